import type { DomainEvent, RecordedEvent } from '../eventStore/eventStore.js';
import type { Doc, DocId, IndexSpec, Scalar } from '../readStore/readStore.js';

/**
 * The per-batch unit of work a projection writes through. Reads see the batch's own pending writes, so
 * events later in a batch build on earlier ones; everything is flushed together with the checkpoint in
 * one `readStore.write` when the batch ends. Returned documents are shared with the unit of work: treat
 * them as immutable and `put` a new object to change one.
 */
export interface ProjectionContext {
  get<T extends Doc = Doc>(collection: string, id: DocId): Promise<T | null>;
  /** The documents that exist, in the order of `ids`. */
  getMany<T extends Doc = Doc>(collection: string, ids: readonly DocId[]): Promise<T[]>;
  /** Documents whose fields equal the given values (an array field matches when any element does). */
  find<T extends Doc = Doc>(collection: string, equals: Record<string, Scalar>): Promise<T[]>;
  put(collection: string, doc: Doc): void;
  delete(collection: string, id: DocId): void;
  /**
   * A document this unit of work changes in place, for one that many events of a batch change (copying it
   * on every event made garbage in proportion to its size). On its first draft in the unit of work, `make`
   * turns the current document (shared: never change it) or null into an object of the unit of work's own,
   * which is put; later drafts of it in the same unit of work return that object again, as a fresh write.
   * It is written as it stands when the batch ends. Null, writing nothing, when `make` returns null.
   */
  draft<T extends Doc = Doc>(collection: string, id: DocId, make: (current: T | null) => T | null): Promise<T | null>;
  /**
   * `get` without waiting, for a document the unit of work holds already (its own write, or one read or
   * written before): undefined when only the store can tell, then `get` it. A replay's projection finds
   * nearly every document this way, and an await per event costs a promise and a turn of the microtask queue.
   */
  peek<T extends Doc = Doc>(collection: string, id: DocId): T | null | undefined;
  /**
   * `draft` without waiting, for a document `peek` knows: undefined, having made nothing, when only the store
   * can tell (never for a document `peek` or `get` has just answered).
   */
  draftKnown<T extends Doc = Doc>(collection: string, id: DocId, make: (current: T | null) => T | null): T | null | undefined;
}

/**
 * A read model: the collections it owns (rebuilt together, never read by any other projection), the
 * indexes its queries need, the event types it reacts to, and how one event changes its documents.
 * `apply` must be idempotent: applying an event a second time leaves the documents as they were.
 */
export interface Projection<Event extends DomainEvent = DomainEvent> {
  readonly name: string;
  /**
   * Raised whenever what the projection writes changes (a document's shape, a derived field, its
   * collections): read models built by an earlier version are rebuilt when a projector starts
   * (see `outdatedProjections`), instead of being served or updated in the old shape.
   */
  readonly version: number;
  readonly collections: string[];
  readonly indexes: Record<string, IndexSpec[]>;
  readonly handles: readonly Event['type'][];
  apply(event: Recorded<Event>, ctx: ProjectionContext): Promise<void>;
}

/**
 * What `apply` answers for an event it applied without waiting for anything (see ProjectionContext.peek):
 * one settled promise for every such event, where an async function makes a promise, and keeps its state,
 * per call.
 */
export const APPLIED: Promise<void> = Promise.resolve();

/**
 * The name a projection's checkpoint is stored under: it carries the version, so a projector finds no
 * checkpoint of the current version in a read model an earlier version built. Version 1 keeps the bare name
 * that stores had before versions existed.
 */
export function checkpointNameOf(projection: Pick<Projection, 'name' | 'version'>): string {
  return projection.version === 1 ? projection.name : `${projection.name}@v${projection.version}`;
}

/** A recorded event per member of an event union, so a switch on `type` narrows `data`. */
export type Recorded<Event extends DomainEvent> = Event extends DomainEvent ? RecordedEvent<Event> : never;

/**
 * Every type of an event union, listed through a Record so that a type added to the union cannot be left
 * out of a projection's `handles` unnoticed.
 */
export function everyEventType<Event extends DomainEvent>(types: Record<Event['type'], true>): Event['type'][] {
  return Object.keys(types) as Event['type'][];
}

/**
 * Global log position as stored in documents (`_position`) and the change feed. JSON documents cannot hold
 * a bigint; log positions stay far below 2^53 (EventStoreDB commit positions are byte offsets in the log).
 */
export function positionNumber(event: RecordedEvent): number {
  return Number(event.position);
}

/** Documents stamped with the position of the last event applied to them. */
export type PositionedDoc = Doc & { _position: number };

/**
 * The generic idempotency guard: an event at or before the document's `_position` has already been
 * applied to it (events reach a projection in log order).
 */
export function alreadyApplied(doc: { _position?: unknown } | null | undefined, event: RecordedEvent): boolean {
  return typeof doc?._position === 'number' && doc._position >= positionNumber(event);
}
