import type { RecordedEvent } from '../src/eventStore/eventStore.js';
import type { Doc, DocId, ReadStore, Scalar, WriteOp } from '../src/readStore/readStore.js';
import type { Projection, ProjectionContext } from './projection.js';

/**
 * Values by collection and `_id`. Map keys tell the number 1 and the string '1' apart, as MongoDB does with
 * `_id`s, and two levels spare building (and hashing) a combined string key on every access.
 */
class DocMap<Value> {
  private readonly collections = new Map<string, Map<DocId, Value>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(collection: string, id: DocId): Value | undefined {
    return this.collections.get(collection)?.get(id);
  }

  set(collection: string, id: DocId, value: Value): void {
    let values = this.collections.get(collection);
    if (!values) {
      values = new Map();
      this.collections.set(collection, values);
    }
    const before = values.size;
    values.set(id, value);
    this.count += values.size - before;
  }

  delete(collection: string, id: DocId): void {
    const values = this.collections.get(collection);
    if (values?.delete(id)) this.count -= 1;
  }

  clear(): void {
    this.collections.clear();
    this.count = 0;
  }

  valuesOf(collection: string): IterableIterator<Value> {
    return (this.collections.get(collection) ?? new Map<DocId, Value>()).values();
  }

  *values(): IterableIterator<Value> {
    for (const values of this.collections.values()) yield* values.values();
  }
}

/**
 * What the unit of work knows about the stored (flushed) documents. `lookup` answers a document, `null`
 * (known not to exist) or `undefined` (unknown: ask the store).
 */
export interface FlushedDocuments {
  lookup(collection: string, id: DocId): Doc | null | undefined;
  remember(collection: string, id: DocId, doc: Doc | null): void;
}

/** The live projector's view: only what this batch has read, since another process may write in between. */
class BatchReads implements FlushedDocuments {
  private readonly docs = new DocMap<Doc | null>();

  lookup(collection: string, id: DocId): Doc | null | undefined {
    return this.docs.get(collection, id);
  }

  remember(collection: string, id: DocId, doc: Doc | null): void {
    this.docs.set(collection, id, doc);
  }
}

/**
 * A rebuild writes into fresh, empty collections that nobody else writes, so it knows exactly which
 * documents exist without asking the store: misses on unknown ids cost no round trip. Recently written
 * documents are kept (bounded) so most reads never reach the store at all.
 *
 * The bound is kept by two generations of maps rather than a strict LRU: a Map evicted from its front
 * one entry at a time leaves holes that every later eviction walks over, which made the change feed's
 * write-only documents cost more than writing them. A full young generation becomes the old one and the
 * previous old one is dropped whole; a document read from the old generation moves back to the young one.
 */
export class FreshGenerationDocuments implements FlushedDocuments {
  private readonly existing = new Map<string, Set<DocId>>();
  private young = new DocMap<Doc>();
  private old = new DocMap<Doc>();

  constructor(private readonly maxRecentDocs = 50_000) {}

  lookup(collection: string, id: DocId): Doc | null | undefined {
    const doc = this.young.get(collection, id) ?? this.old.get(collection, id);
    if (doc) {
      this.keep(collection, id, doc);
      return doc;
    }
    return this.existing.get(collection)?.has(id) ? undefined : null;
  }

  remember(collection: string, id: DocId, doc: Doc | null): void {
    let ids = this.existing.get(collection);
    if (!ids) {
      ids = new Set();
      this.existing.set(collection, ids);
    }
    if (doc === null) {
      ids.delete(id);
      this.young.delete(collection, id);
      this.old.delete(collection, id);
      return;
    }
    ids.add(id);
    this.keep(collection, id, doc);
  }

  private keep(collection: string, id: DocId, doc: Doc): void {
    if (this.young.get(collection, id) === doc) return;
    this.old.delete(collection, id);
    this.young.set(collection, id, doc);
    if (this.young.size >= this.maxRecentDocs / 2) {
      this.old = this.young;
      this.young = new DocMap();
    }
  }
}

interface PendingWrite {
  collection: string;
  id: DocId;
  doc: Doc | null;
  /** When it was last modified in this batch: the write order. */
  sequence: number;
}

function fieldValue(doc: Doc, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The read store's equality semantics (MongoDB's): arrays match by element, null matches missing. */
function matchesEquals(doc: Doc, equals: Record<string, Scalar>): boolean {
  return Object.entries(equals).every(([path, expected]) => {
    const actual = fieldValue(doc, path);
    if (Array.isArray(actual)) return actual.includes(expected);
    if (expected === null) return actual === null || actual === undefined;
    return actual === expected;
  });
}

/**
 * One batch's reads and writes. Writes collapse to the last version of each document; the write order is
 * the order of last modification, so a document that gives up a unique value (a slug) is written before
 * one that takes it over later in the batch.
 */
export class UnitOfWork implements ProjectionContext {
  private readonly pending = new DocMap<PendingWrite>();
  private sequence = 0;

  constructor(
    private readonly store: ReadStore,
    private readonly flushed: FlushedDocuments = new BatchReads(),
  ) {}

  async get<T extends Doc = Doc>(collection: string, id: DocId): Promise<T | null> {
    const known = this.known(collection, id);
    if (known !== undefined) return known as T | null;
    const doc = await this.store.get(collection, id);
    this.flushed.remember(collection, id, doc);
    return doc as T | null;
  }

  async getMany<T extends Doc = Doc>(collection: string, ids: readonly DocId[]): Promise<T[]> {
    const unknown = ids.filter((id) => this.known(collection, id) === undefined);
    if (unknown.length > 0) {
      const loaded = new Map((await this.store.getMany(collection, unknown)).map((doc) => [doc._id, doc]));
      for (const id of unknown) this.flushed.remember(collection, id, loaded.get(id) ?? null);
    }
    const docs: T[] = [];
    for (const id of ids) {
      const doc = this.known(collection, id);
      if (doc) docs.push(doc as T);
    }
    return docs;
  }

  async find<T extends Doc = Doc>(collection: string, equals: Record<string, Scalar>): Promise<T[]> {
    const found = new Map<DocId, Doc>();
    for (const stored of (await this.store.find(collection, { filter: equals })).items) {
      const pending = this.pending.get(collection, stored._id);
      const current = pending ? pending.doc : stored;
      if (current && matchesEquals(current, equals)) found.set(stored._id, current);
    }
    for (const { id, doc } of this.pending.valuesOf(collection)) {
      if (doc && !found.has(id) && matchesEquals(doc, equals)) found.set(id, doc);
    }
    return [...found.values()] as T[];
  }

  put(collection: string, doc: Doc): void {
    this.record(collection, doc._id, doc);
  }

  delete(collection: string, id: DocId): void {
    this.record(collection, id, null);
  }

  ops(): WriteOp[] {
    return [...this.pending.values()]
      .sort((left, right) => left.sequence - right.sequence)
      .map(({ collection, id, doc }) => (doc ? { op: 'put', collection, doc } : { op: 'delete', collection, id }));
  }

  /** After a successful write: the flushed view now holds what was pending. */
  committed(): void {
    for (const { collection, id, doc } of this.pending.values()) this.flushed.remember(collection, id, doc);
    this.pending.clear();
  }

  private known(collection: string, id: DocId): Doc | null | undefined {
    const pending = this.pending.get(collection, id);
    return pending ? pending.doc : this.flushed.lookup(collection, id);
  }

  private record(collection: string, id: DocId, doc: Doc | null): void {
    this.pending.set(collection, id, { collection, id, doc, sequence: this.sequence++ });
  }
}

/** Applies the events a projection handles, in order, to one unit of work. */
export async function applyEvents(
  projection: Projection,
  handled: ReadonlySet<string>,
  events: readonly RecordedEvent[],
  ctx: ProjectionContext,
): Promise<void> {
  for (const event of events) {
    if (handled.has(event.type)) await projection.apply(event, ctx);
  }
}

/**
 * Runs `project` over the events; when it fails, over each half in turn, down to single events. Collapsing
 * many events into one write can, in rare cases, trip a unique index that every event-by-event state
 * respects (two documents trading a slug inside one batch); halving gets such a batch through in a few
 * writes, and pins a genuinely failing event down before the failure is reported.
 */
export async function projectHalvingOnFailure(
  events: readonly RecordedEvent[],
  project: (events: readonly RecordedEvent[]) => Promise<void>,
  mayRetry: (error: unknown) => boolean = () => true,
): Promise<void> {
  try {
    await project(events);
  } catch (error) {
    if (events.length === 1 || !mayRetry(error)) throw error;
    const middle = Math.ceil(events.length / 2);
    await projectHalvingOnFailure(events.slice(0, middle), project, mayRetry);
    await projectHalvingOnFailure(events.slice(middle), project, mayRetry);
  }
}
