import { randomBytes } from 'node:crypto';
import type { GenerationWriter } from './generationWriter.js';
import type { UniqueKeys } from './indexes.js';

/** Where a store reads and writes: the live collections, or a generation's own ones. */
export interface StoreView {
  physicalOf(collection: string): string;
  readonly checkpointScope: string;
  assertUsable(): void;
}

export class Generation implements StoreView {
  finished = false;
  /** The writer thread its writes are queued on (file-backed stores), from its first queued write. */
  writer: GenerationWriter | undefined;
  /**
   * Unique keys of its own collections for queued writes, ahead of the table by what is in flight; keyed
   * by physical collection, with the unique index specs they were built for.
   */
  readonly keys = new Map<string, { signature: string; keys: UniqueKeys }>();

  constructor(
    readonly id: string,
    /** Logical collection -> this generation's physical collection. */
    readonly physicals: ReadonlyMap<string, string>,
    /** The live store's view, whose collections the generation does not rebuild. */
    private readonly live: StoreView,
  ) {}

  get checkpointScope(): string {
    return this.id;
  }

  physicalOf(collection: string): string {
    return this.physicals.get(collection) ?? this.live.physicalOf(collection);
  }

  assertUsable(): void {
    this.live.assertUsable();
    if (this.finished) throw new Error(`Generation ${this.id} is finished (promoted, discarded or closed)`);
  }
}

export const newGenerationId = (): string => `g${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
