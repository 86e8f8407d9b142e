import type { AppendResult, DomainEvent, EventStore, StreamAppend } from '../eventStore/eventStore.js';
import type { ImportRecordType } from './importLines.js';

/**
 * Which record each import key names, kept as events in one stream: a batch of an import appends one
 * ImportKeysBound with the keys it is about to use, before it appends the records' own events. A key that is
 * bound therefore never gets a second record: an import run again, or resumed after a crash, finds the key
 * and revises (or, when the crash came before the record's own events, creates) the record under its id.
 */
export const IMPORT_KEYS_STREAM = 'importKeys-catalogue';

/** `[key, id]`, or for a project's floor plan, payment plan or gallery picture `[key, id, project id]`. */
export type KeyBindingEntry = [key: string, id: number] | [key: string, id: number, projectId: number];

export type ImportKeysBound = DomainEvent<'ImportKeysBound', { keys: Partial<Record<ImportRecordType, KeyBindingEntry[]>> }>;

export interface KeyBinding {
  id: number;
  /** The project a floor plan, payment plan or gallery picture belongs to. */
  projectId?: number;
}

export interface NewKeyBinding extends KeyBinding {
  type: ImportRecordType;
  key: string;
}

/** The keys bound so far, and the revision of their stream (the expected revision of the next binding). */
export class ImportKeys {
  private constructor(
    private readonly byType: Map<ImportRecordType, Map<string, KeyBinding>>,
    private streamRevision: number | null,
  ) {}

  static async load(eventStore: EventStore): Promise<ImportKeys> {
    const keys = new ImportKeys(new Map(), null);
    for (const event of await eventStore.readStream(IMPORT_KEYS_STREAM)) {
      if (event.type !== 'ImportKeysBound') continue;
      const { data } = event as unknown as ImportKeysBound;
      for (const [type, entries] of Object.entries(data.keys) as Array<[ImportRecordType, KeyBindingEntry[]]>) {
        for (const [key, id, projectId] of entries) keys.set({ type, key, id, ...(projectId === undefined ? {} : { projectId }) });
      }
      keys.streamRevision = event.revision;
    }
    return keys;
  }

  get(type: ImportRecordType, key: string): KeyBinding | undefined {
    return this.byType.get(type)?.get(key);
  }

  /**
   * The append that binds the keys as one event, expecting the stream as it was read (a concurrent import is
   * refused); null when there is nothing to bind. `bound` takes them in once it is written.
   */
  bindingAppend(bindings: readonly NewKeyBinding[]): StreamAppend | null {
    if (bindings.length === 0) return null;
    const keys: Partial<Record<ImportRecordType, KeyBindingEntry[]>> = {};
    for (const { type, key, id, projectId } of bindings) {
      (keys[type] ??= []).push(projectId === undefined ? [key, id] : [key, id, projectId]);
    }
    const event: ImportKeysBound = { type: 'ImportKeysBound', data: { keys } };
    return { streamName: IMPORT_KEYS_STREAM, events: [event], expectedRevision: this.streamRevision ?? 'no_stream' };
  }

  bound(bindings: readonly NewKeyBinding[], appended: AppendResult): void {
    for (const binding of bindings) this.set(binding);
    this.streamRevision = appended.nextExpectedRevision;
  }

  private set({ type, key, id, projectId }: NewKeyBinding): void {
    let ofType = this.byType.get(type);
    if (!ofType) this.byType.set(type, (ofType = new Map()));
    ofType.set(key, projectId === undefined ? { id } : { id, projectId });
  }
}
