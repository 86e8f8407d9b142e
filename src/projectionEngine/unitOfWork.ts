import type { RecordedEvent } from '../eventStore/eventStore.js';
import type { Doc, DocId, ReadStore, Scalar, WriteOp } from '../readStore/readStore.js';
import { APPLIED, type Projection, type ProjectionContext } from './projection.js';

/**
 * Values by collection and `_id`. Map keys tell the number 1 and the string '1' apart, as MongoDB does with
 * `_id`s, and two levels spare building (and hashing) a combined string key on every access.
 */
class DocMap<Value> {
  private readonly collections = new Map<string, Map<DocId, Value>>();

  get(collection: string, id: DocId): Value | undefined {
    return this.collections.get(collection)?.get(id);
  }

  /** The values of one collection, created empty on first use. */
  of(collection: string): Map<DocId, Value> {
    let values = this.collections.get(collection);
    if (!values) {
      values = new Map();
      this.collections.set(collection, values);
    }
    return values;
  }

  set(collection: string, id: DocId, value: Value): void {
    this.of(collection).set(id, value);
  }

  valuesOf(collection: string): IterableIterator<Value> {
    return (this.collections.get(collection) ?? new Map<DocId, Value>()).values();
  }

  clear(): void {
    this.collections.clear();
  }
}

/**
 * What the unit of work knows about the stored (flushed) documents. `lookup` answers a document, `null`
 * (known not to exist) or `undefined` (unknown: ask the store).
 */
export interface FlushedDocuments {
  lookup(collection: string, id: DocId): Doc | null | undefined;
  remember(collection: string, id: DocId, doc: Doc | null): void;
  /** Documents committed to the unit of work's caller but not yet written to the store (see HeldWrites), by id. */
  unwritten?(collection: string): ReadonlyMap<DocId, Doc | null> | undefined;
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

/** A document a FreshGenerationDocuments knows to exist; `doc` undefined once it is no longer kept. */
interface KnownDoc {
  doc: Doc | undefined;
  /** The generation it was last kept in (see FreshGenerationDocuments). */
  generation: number;
}

/** What a FreshGenerationDocuments knows of one collection. */
interface KnownCollection {
  docs: Map<DocId, KnownDoc>;
  /** Looked up at least once: from then on its writes are kept. */
  read: boolean;
  /** Holds documents written before its first lookup, which were not kept: a miss is no proof of absence. */
  unknown: boolean;
}

/**
 * A rebuild writes into fresh, empty collections that nobody else writes, so it knows exactly which
 * documents exist without asking the store: misses on unknown ids cost no round trip. Recently written
 * documents are kept (bounded) so most reads never reach the store at all.
 *
 * Only collections that are read are kept: a collection that is only ever written (the change feed's, a
 * document per event) would fill the bound with documents nobody asks for. Should one be read after all,
 * its documents written until then are left to the store.
 *
 * The bound is kept by two generations rather than a strict LRU: a Map evicted from its front one entry at
 * a time leaves holes that every later eviction walks over. A document written or read is kept in the
 * young generation; a full young generation becomes the old one, and the documents of the previous old one
 * that were not kept again meanwhile are let go. One entry per known document holds both its existence and
 * the kept version, so a lookup or a write costs one map access in the common case.
 */
export class FreshGenerationDocuments implements FlushedDocuments {
  private readonly collections = new Map<string, KnownCollection>();
  private young: KnownDoc[] = [];
  private old: KnownDoc[] = [];
  private generation = 0;

  constructor(private readonly maxRecentDocs = 50_000) {}

  /** Whether the collection has been looked up: a projection reads it, rather than only writing it. */
  isRead(collection: string): boolean {
    return this.collections.get(collection)?.read ?? false;
  }

  lookup(collection: string, id: DocId): Doc | null | undefined {
    const known = this.collectionOf(collection);
    known.read = true;
    const entry = known.docs.get(id);
    if (!entry) return known.unknown ? undefined : null;
    if (entry.doc !== undefined && entry.generation !== this.generation) this.keep(entry);
    return entry.doc;
  }

  remember(collection: string, id: DocId, doc: Doc | null): void {
    const known = this.collectionOf(collection);
    if (!known.read) {
      if (doc !== null) known.unknown = true;
      return;
    }
    const entry = known.docs.get(id);
    if (doc === null) {
      if (entry) {
        known.docs.delete(id);
        entry.doc = undefined;
      }
      return;
    }
    if (!entry) {
      const added: KnownDoc = { doc, generation: -1 };
      known.docs.set(id, added);
      this.keep(added);
      return;
    }
    entry.doc = doc;
    if (entry.generation !== this.generation) this.keep(entry);
  }

  private collectionOf(collection: string): KnownCollection {
    let known = this.collections.get(collection);
    if (!known) {
      known = { docs: new Map(), read: false, unknown: false };
      this.collections.set(collection, known);
    }
    return known;
  }

  private keep(entry: KnownDoc): void {
    entry.generation = this.generation;
    this.young.push(entry);
    if (this.young.length >= this.maxRecentDocs / 2) {
      // Those of the old generation kept again meanwhile are in the young one too, with its number.
      for (const dropped of this.old) if (dropped.generation !== this.generation) dropped.doc = undefined;
      this.old = this.young;
      this.young = [];
      this.generation += 1;
    }
  }
}

/** A write a HeldWrites holds back. */
interface HeldWrite {
  collection: string;
  id: DocId;
  doc: Doc | null;
}

/**
 * A rebuild's writes held back from the store, so that a document changed on many pages is written once
 * rather than once per page: a project's later edits are spread over the whole log (a seeded catalogue's
 * project is written on 2.6 pages of 1,500 events on average), and each write serialises and stores the
 * whole document again. A generation is read by nobody but the rebuild until it is promoted, and its
 * checkpoint matters only then, so a held write need only be written by then (`release`).
 *
 * Held are the documents of the collections `holds` accepts: those the projection reads (a document written
 * once, like a change feed entry, would gain nothing). In a collection with unique indexes (`uniqueKeyPaths`)
 * only a document whose unique fields equal those of its version in the store is held: its write cannot
 * fail, nor change what another document's write may take, so it cannot take part in halving a failed page;
 * a document that is new, deleted or changes a unique field is written with its page, and its held version,
 * if any, dropped. At most `maxHeld` are held; past that, those changed least recently are released for
 * writing. Reads see held documents before the store's.
 */
export class HeldWrites implements FlushedDocuments {
  private readonly byCollection = new Map<string, Map<DocId, HeldWrite>>();
  /** Every held write, in the order of last change (a Set keeps insertion order; a change re-inserts). */
  private readonly order = new Set<HeldWrite>();
  private readonly views = new Map<string, ReadonlyMap<DocId, Doc | null>>();
  /** The unique fields of the stored version of each document of a collection in `uniqueKeyPaths`, as a key. */
  private readonly storedUniqueKeys = new Map<string, Map<DocId, string>>();

  constructor(
    private readonly documents: FreshGenerationDocuments,
    /** Whether the writes of a collection may be held. */
    private readonly holds: (collection: string) => boolean,
    private readonly maxHeld: number,
    /** The fields of the unique indexes of each collection that has any. */
    private readonly uniqueKeyPaths: ReadonlyMap<string, readonly string[]> = new Map(),
  ) {}

  /** Whether `hold` would hold the write, given the writes accepted so far: the others are to be written now. */
  mayHold(op: WriteOp): boolean {
    if (!this.holds(op.collection)) return false;
    const paths = this.uniqueKeyPaths.get(op.collection);
    if (!paths) return true;
    if (op.op === 'delete') return false;
    const stored = this.storedUniqueKeys.get(op.collection)?.get(op.doc._id);
    return stored !== undefined && stored === uniqueKeyOf(op.doc, paths);
  }

  lookup(collection: string, id: DocId): Doc | null | undefined {
    const held = this.byCollection.get(collection)?.get(id);
    return held ? held.doc : this.documents.lookup(collection, id);
  }

  remember(collection: string, id: DocId, doc: Doc | null): void {
    this.documents.remember(collection, id, doc);
  }

  unwritten(collection: string): ReadonlyMap<DocId, Doc | null> | undefined {
    const held = this.byCollection.get(collection);
    if (!held || held.size === 0) return undefined;
    let view = this.views.get(collection);
    if (!view) {
      view = new Map([...held].map(([id, write]) => [id, write.doc]));
      this.views.set(collection, view);
    }
    return view;
  }

  /**
   * Holds the writes `mayHold` accepts among a page's (the unit of work's ops, once the others were
   * accepted), and notes what the others stored; answers those released to stay within the bound, to be
   * written.
   */
  hold(ops: readonly WriteOp[]): WriteOp[] {
    for (const op of ops) {
      const id = op.op === 'put' ? op.doc._id : op.id;
      if (!this.mayHold(op)) {
        this.stored(op, id);
        continue;
      }
      let held = this.byCollection.get(op.collection);
      if (!held) {
        held = new Map();
        this.byCollection.set(op.collection, held);
      }
      const previous = held.get(id);
      if (previous) this.order.delete(previous);
      const write: HeldWrite = { collection: op.collection, id, doc: op.op === 'put' ? op.doc : null };
      held.set(id, write);
      this.order.add(write);
      this.views.delete(op.collection);
    }
    // Released a tenth at a time, so that a page's write rarely comes with a second one.
    return this.order.size > this.maxHeld ? this.release(this.order.size - Math.floor(this.maxHeld * 0.9)) : [];
  }

  /** A write not held, accepted: a version of the document it replaces that is still held is stale. */
  private stored(op: WriteOp, id: DocId): void {
    const held = this.byCollection.get(op.collection);
    const stale = held?.get(id);
    if (stale) {
      held!.delete(id);
      this.order.delete(stale);
      this.views.delete(op.collection);
    }
    const paths = this.uniqueKeyPaths.get(op.collection);
    if (!paths) return;
    let keys = this.storedUniqueKeys.get(op.collection);
    if (!keys) {
      keys = new Map();
      this.storedUniqueKeys.set(op.collection, keys);
    }
    if (op.op === 'put') keys.set(id, uniqueKeyOf(op.doc, paths));
    else keys.delete(id);
  }

  /** The `count` writes changed least recently (all by default), no longer held: to be written. */
  release(count = this.order.size): WriteOp[] {
    const released: WriteOp[] = [];
    for (const write of this.order) {
      if (released.length >= count) break;
      this.order.delete(write);
      this.byCollection.get(write.collection)!.delete(write.id);
      this.views.delete(write.collection);
      released.push(
        write.doc
          ? { op: 'put', collection: write.collection, doc: write.doc }
          : { op: 'delete', collection: write.collection, id: write.id },
      );
    }
    return released;
  }
}

interface PendingWrite {
  collection: string;
  id: DocId;
  doc: Doc | null;
  /** A later write of the same document in this batch replaces it. */
  superseded: boolean;
  /** The document is the unit of work's own (see ProjectionContext.draft): it may be changed in place. */
  draft: boolean;
}

function fieldValue(doc: Doc, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * The values of a document's unique fields as one string: equal strings, equal index keys. A missing field
 * and null are told apart, and an object's keys count in order, so that a difference the indexes might not
 * make at most costs a write.
 */
function uniqueKeyOf(doc: Doc, paths: readonly string[]): string {
  let key = '';
  for (const path of paths) {
    const value = fieldValue(doc, path);
    key += value === undefined ? '\u0000' : `${JSON.stringify(value)}\u0000`;
  }
  return key;
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

/** What `get` answers for a document known not to exist. */
const NO_DOCUMENT: Promise<null> = Promise.resolve(null);

/**
 * One batch's reads and writes. Writes collapse to the last version of each document; the write order is
 * the order of last modification, so a document that gives up a unique value (a slug) is written before
 * one that takes it over later in the batch.
 */
export class UnitOfWork implements ProjectionContext {
  private readonly pending = new DocMap<PendingWrite>();
  /** Every write in the order made: those not superseded are in the order of last modification. */
  private log: PendingWrite[] = [];

  constructor(
    private readonly store: ReadStore,
    private readonly flushed: FlushedDocuments = new BatchReads(),
  ) {}

  get<T extends Doc = Doc>(collection: string, id: DocId): Promise<T | null> {
    const known = this.known(collection, id);
    // Not an async function: a document held already costs one settled promise, not an async call's state too.
    if (known === null) return NO_DOCUMENT;
    return known === undefined ? this.load<T>(collection, id) : Promise.resolve(known as T);
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
    const unwritten = this.flushed.unwritten?.(collection);
    for (const stored of (await this.store.find(collection, { filter: equals })).items) {
      const pending = this.pending.get(collection, stored._id);
      const current = pending ? pending.doc : unwritten?.has(stored._id) ? unwritten.get(stored._id)! : stored;
      if (current && matchesEquals(current, equals)) found.set(stored._id, current);
    }
    for (const [id, doc] of unwritten ?? []) {
      if (doc && !found.has(id) && !this.pending.get(collection, id) && matchesEquals(doc, equals)) found.set(id, doc);
    }
    for (const { id, doc } of this.pending.valuesOf(collection)) {
      if (doc && !found.has(id) && matchesEquals(doc, equals)) found.set(id, doc);
    }
    return [...found.values()] as T[];
  }

  put(collection: string, doc: Doc): void {
    this.record(collection, doc._id, doc, false);
  }

  delete(collection: string, id: DocId): void {
    this.record(collection, id, null, false);
  }

  peek<T extends Doc = Doc>(collection: string, id: DocId): T | null | undefined {
    return this.known(collection, id) as T | null | undefined;
  }

  draft<T extends Doc = Doc>(collection: string, id: DocId, make: (current: T | null) => T | null): Promise<T | null> {
    // Not an async function, as `get`.
    const known = this.draftKnown(collection, id, make);
    return known === undefined ? this.loadDraft(collection, id, make) : Promise.resolve(known);
  }

  draftKnown<T extends Doc = Doc>(collection: string, id: DocId, make: (current: T | null) => T | null): T | null | undefined {
    const pending = this.pending.get(collection, id);
    if (pending?.draft) return this.ownDraft(collection, id, pending.doc as T);
    const current = this.known(collection, id);
    return current === undefined ? undefined : this.ownDraft(collection, id, make(current as T | null));
  }

  ops(): WriteOp[] {
    const ops: WriteOp[] = [];
    for (const { collection, id, doc, superseded } of this.log) {
      if (!superseded) ops.push(doc ? { op: 'put', collection, doc } : { op: 'delete', collection, id });
    }
    return ops;
  }

  /** After a successful write: the flushed view now holds what was pending. */
  committed(): void {
    for (const { collection, id, doc, superseded } of this.log) if (!superseded) this.flushed.remember(collection, id, doc);
    this.pending.clear();
    this.log = [];
  }

  private async load<T extends Doc>(collection: string, id: DocId): Promise<T | null> {
    const doc = await this.store.get(collection, id);
    this.flushed.remember(collection, id, doc);
    return doc as T | null;
  }

  private async loadDraft<T extends Doc>(collection: string, id: DocId, make: (current: T | null) => T | null): Promise<T | null> {
    return this.ownDraft(collection, id, make(await this.load<T>(collection, id)));
  }

  private known(collection: string, id: DocId): Doc | null | undefined {
    const pending = this.pending.get(collection, id);
    return pending ? pending.doc : this.flushed.lookup(collection, id);
  }

  private ownDraft<T extends Doc>(collection: string, id: DocId, own: T | null): T | null {
    if (own) this.record(collection, id, own, true);
    return own;
  }

  private record(collection: string, id: DocId, doc: Doc | null, draft: boolean): void {
    const writes = this.pending.of(collection);
    const previous = writes.get(id);
    // The same write again, already the last modification: the order of writes stays as it is.
    if (previous && previous.doc === doc && previous.draft === draft && this.log[this.log.length - 1] === previous) return;
    if (previous) previous.superseded = true;
    const write: PendingWrite = { collection, id, doc, superseded: false, draft };
    writes.set(id, write);
    this.log.push(write);
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
    if (!handled.has(event.type)) continue;
    // An event applied at once is not waited for: an await costs a turn of the microtask queue and its garbage.
    const applying = projection.apply(event, ctx);
    if (applying !== APPLIED) await applying;
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
