/*
 * The engine: one SQLite connection, the mirrors, and the views (live store, generations) on them.
 */
import Database from 'better-sqlite3';
import { createPrivateDatabaseFile } from '../../dataDir.js';
import { assertNever } from '../../domain/decider.js';
import {
  indexName,
  StaleFencingTokenError,
  type Checkpoint,
  type Doc,
  type DocId,
  type Filter,
  type FindOptions,
  type FindResult,
  type IndexSpec,
  type SequenceRange,
  type WriteOp,
  sequenceBounds,
  sequenceFilter,
} from '../readStore.js';
import type { ReadCall } from '../readCall.js';
import { CollectionMirror, deepFreeze, leanFields } from './collectionMirror.js';
import { announceCommit, commitsAnnounced } from './commitsInProcess.js';
import { Generation, newGenerationId, type StoreView } from './generation.js';
import { encodeDocs, GenerationWriter } from './generationWriter.js';
import { UniqueKeys, validateIndexSpec, type DocChange } from './indexes.js';
import type { EmbeddedReadPlan } from './queryPlanner.js';
import { normalizeSort } from './sortOrder.js';
import { ADDED_COLUMNS, BUSY_TIMEOUT_MS, SCHEMA } from './sqliteSchema.js';
import { prepareStatements, type Statements } from './sqliteStatements.js';
import type { WriterBatch } from './writerProtocol.js';

/** The checkpoint scope of the live store; a generation's checkpoints are scoped by its id. */
const LIVE_SCOPE = '';

/** Stored id: JSON keeps the number 1 and the string '1' apart, as MongoDB does. */
const idKey = (id: DocId): string => JSON.stringify(id);

function assertDocId(id: unknown, collection: string): asserts id is DocId {
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
    throw new TypeError(`Document _id in ${collection} must be a string or a finite number, got ${JSON.stringify(id)}`);
  }
}

/** The unique keys of a physical collection without a mirror, as of its collection version. */
interface KeyGuard {
  readonly logical: string;
  readonly keys: UniqueKeys;
  version: number;
}

/** Ids and checkpoints validated, documents serialised, before any lock is taken; `json` undefined means a delete. */
function prepareWrite(ops: readonly WriteOp[], checkpoints: readonly Checkpoint[]) {
  const prepared = ops.map((op) => {
    switch (op.op) {
      case 'put':
        assertDocId(op.doc._id, op.collection);
        return { collection: op.collection, id: op.doc._id, doc: op.doc, json: JSON.stringify(op.doc) };
      case 'delete':
        assertDocId(op.id, op.collection);
        return { collection: op.collection, id: op.id, doc: null, json: undefined };
      default:
        return assertNever(op);
    }
  });
  for (const checkpoint of checkpoints) assertCheckpoint(checkpoint);
  return prepared;
}

function assertCheckpoint(checkpoint: Checkpoint): void {
  if (typeof checkpoint.position !== 'bigint') throw new TypeError(`Checkpoint ${checkpoint.name} position must be a bigint`);
  const { fencingToken } = checkpoint;
  if (fencingToken !== undefined && !(Number.isSafeInteger(fencingToken) && fencingToken > 0)) {
    throw new TypeError(`Checkpoint ${checkpoint.name} fencing token must be a positive safe integer`);
  }
}

/**
 * Adds the columns a file created by an earlier version lacks. Looked for first without a lock, so that opening
 * a current file takes none; added in one write transaction, looked for again there, so that two processes
 * opening an old file do not both add one.
 */
function addMissingColumns(db: Database.Database): void {
  const columnsOf = db.prepare<[string], string>('SELECT name FROM pragma_table_info(?)').pluck();
  const missing = () => ADDED_COLUMNS.filter(({ table, column }) => !columnsOf.all(table).includes(column));
  if (missing().length === 0) return;
  db.transaction(() => {
    for (const { add } of missing()) db.exec(add);
  }).immediate();
}

export class EmbeddedEngine implements StoreView {
  readonly checkpointScope = LIVE_SCOPE;
  private readonly db: Database.Database;
  private closed = false;
  private dataVersion: number;
  /** See commitsInProcess.ts. */
  private lookedThisTurn = false;
  private commitsSeen = -1;
  private aliases = new Map<string, string>();
  /** Logical collection -> declared indexes by name, as stored in declared_indexes. */
  private indexSpecs = new Map<string, Map<string, IndexSpec>>();
  private readonly mirrors = new Map<string, CollectionMirror>();
  /**
   * Unique keys of physical collections written here without a mirror: checking a write against them
   * costs no parsing, freezing and indexing of every document, which is all a rebuild's fresh generation
   * needs until it is queried. A physical collection has a mirror or a key guard, never both.
   */
  private readonly keyGuards = new Map<string, KeyGuard>();
  /** Commits generations' writes (file-backed stores), started by the first such write. */
  private writer: GenerationWriter | undefined;

  private readonly statements: Statements;

  constructor(
    file: string,
    /** Logical collections whose mirrors are lean (CollectionMirror.heldFields): their declared indexes' fields only. */
    private readonly leanCollections: ReadonlySet<string> | 'all' = new Set(),
  ) {
    createPrivateDatabaseFile(file);
    this.db = new Database(file);
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    addMissingColumns(this.db);
    this.statements = prepareStatements(this.db);
    this.dataVersion = this.statements.dataVersion.get()!;
    this.readMetadata();
  }

  assertUsable(): void {
    if (this.closed) throw new Error('The read store is closed');
  }

  physicalOf(collection: string): string {
    return this.aliases.get(collection) ?? collection;
  }

  // --- queries ------------------------------------------------------------------------------------------

  find(view: StoreView, collection: string, options: FindOptions = {}): FindResult<Doc> {
    const sort = normalizeSort(options.sort);
    const mirror = this.searchableMirror(view, collection, options.filter, options.text, sort);
    const { ordering, positions } = mirror.matching(options.filter, options.text, sort);
    const skip = Math.max(0, options.skip ?? 0);
    const end = options.limit === undefined ? positions.length : Math.min(positions.length, skip + Math.max(0, options.limit));
    const items: Doc[] = [];
    for (let index = skip; index < end; index++) items.push(ordering.docs[positions[index]!]!);
    const heldSuffice = options.fields?.every((field) => mirror.heldFields?.has(field)) ?? false;
    return { items: heldSuffice ? items : this.wholeOf(mirror, items), total: positions.length };
  }

  get(view: StoreView, collection: string, id: DocId): Doc | null {
    const { physical, mirror } = this.loadedMirror(view, collection);
    return (mirror ? this.wholeById(mirror, id) : this.tableDoc(physical, id)) ?? null;
  }

  getMany(view: StoreView, collection: string, ids: readonly DocId[]): Doc[] {
    const { physical, mirror } = this.loadedMirror(view, collection);
    if (mirror)
      return this.wholeOf(
        mirror,
        ids.flatMap((id) => mirror.docs.get(id) ?? []),
      );
    const stored = this.tableDocs(physical, ids);
    return ids.flatMap((id) => stored.get(id) ?? []);
  }

  findOne(view: StoreView, collection: string, filter: Filter): Doc | null {
    const mirror = this.searchableMirror(view, collection, filter, undefined, normalizeSort(undefined));
    const first = mirror.first(filter);
    return first ? (this.wholeOf(mirror, [first])[0] ?? null) : null;
  }

  /**
   * From the mirror when one is loaded; otherwise a walk of the table's primary key (collection, id), which
   * holds the JSON of each id: for ids of 16 digits that is the digits between quotes, in the same order.
   */
  readSequence(view: StoreView, collection: string, range: SequenceRange): Doc[] {
    const { after, until } = sequenceBounds(range);
    const { physical, mirror } = this.loadedMirror(view, collection);
    if (mirror) {
      const { ordering, positions } = mirror.matching({ _id: { $gt: after, $lte: until } }, undefined, normalizeSort(undefined));
      return this.wholeOf(
        mirror,
        Array.from(positions.subarray(0, range.limit), (position) => ordering.docs[position]!),
      );
    }
    return this.statements.docsInIdRange
      .all(physical, idKey(after), idKey(until), range.limit)
      .map((json) => deepFreeze(JSON.parse(json) as Doc));
  }

  /** How `find`, `findOne`, `get`, `getMany` or `readSequence` would answer the read, without answering it. */
  explain(view: StoreView, call: ReadCall): EmbeddedReadPlan {
    switch (call.method) {
      case 'find': {
        const mirror = this.freshMirror(view, call.collection);
        const sort = normalizeSort(call.options.sort);
        const missing = mirror.missingFields(call.options.filter, call.options.text, sort);
        return missing.length > 0 ? wholeDocumentsPlan(missing) : mirror.plan(call.options.filter, sort);
      }
      case 'findOne': {
        const mirror = this.freshMirror(view, call.collection);
        const missing = mirror.missingFields(call.filter, undefined, normalizeSort(undefined));
        return missing.length > 0 ? wholeDocumentsPlan(missing) : mirror.firstPlan(call.filter);
      }
      case 'get':
      case 'getMany':
        // As the read itself, which loads no mirror: by id, from the mirror or the table.
        view.assertUsable();
        return { source: '_id', ordering: null };
      case 'readSequence': {
        const { mirror } = this.loadedMirror(view, call.collection);
        return mirror ? mirror.plan(sequenceFilter(call.range), normalizeSort(undefined)) : { source: '_id range', ordering: null };
      }
      default:
        return assertNever(call);
    }
  }

  getCheckpoint(view: StoreView, name: string): bigint | null {
    view.assertUsable();
    const position = this.statements.checkpoint.get(view.checkpointScope, name);
    return position === undefined ? null : BigInt(position);
  }

  ping(): boolean {
    if (this.closed) return false;
    try {
      return this.statements.ping.get() === 1;
    } catch {
      return false;
    }
  }

  // --- writes -------------------------------------------------------------------------------------------

  write(view: StoreView, ops: readonly WriteOp[], checkpoints: readonly Checkpoint[]): void {
    view.assertUsable();
    if (ops.length === 0 && checkpoints.length === 0) return;
    const prepared = prepareWrite(ops, checkpoints);
    // Queued writes of a generation are checked against its own keys, which this write bypasses.
    if (view instanceof Generation) view.keys.clear();

    const applied = this.db
      .transaction(() => {
        this.syncWithOtherConnections();
        const targets = new Map<
          string,
          { mirror: CollectionMirror | undefined; guard: KeyGuard | undefined; changes: DocChange[]; version: number }
        >();
        const rows = prepared.map(({ collection, id, doc, json }) => {
          const physical = view.physicalOf(collection);
          let target = targets.get(physical);
          if (!target) {
            // A mirror not loaded yet is left alone (it loads from the table later); unique keys are checked without it.
            const mirror = this.mirrors.get(physical);
            const guard = mirror || !this.hasUniqueIndexes(collection) ? undefined : this.keyGuardOf(physical, collection);
            target = { mirror, guard, changes: [], version: 0 };
            targets.set(physical, target);
          }
          // The mirror keeps its own frozen copy; the key guard only reads the keys, before this write returns.
          if (target.mirror) target.changes.push({ id, doc: json === undefined ? null : (deepFreeze(JSON.parse(json)) as Doc) });
          else if (target.guard) target.changes.push({ id, doc });
          return { physical, id: idKey(id), json };
        });
        for (const { mirror, guard, changes } of targets.values()) {
          mirror?.checkUnique(changes);
          guard?.keys.check(changes);
        }
        for (const [physical, target] of targets) target.version = this.statements.bumpVersion.get(physical)!;
        for (const { physical, id, json } of rows) {
          if (json === undefined) this.statements.deleteDoc.run(physical, id);
          else this.statements.upsertDoc.run(physical, id, targets.get(physical)!.version, json);
        }
        for (const { name, position, fencingToken } of checkpoints) {
          const stored = this.statements.upsertCheckpoint.run(view.checkpointScope, name, position.toString(), fencingToken ?? null);
          if (stored.changes === 0) {
            throw new StaleFencingTokenError(name, fencingToken!, this.statements.checkpointToken.get(view.checkpointScope, name) ?? null);
          }
        }
        return targets;
      })
      .immediate();
    this.announceCommit();

    for (const { mirror, guard, changes, version } of applied.values()) {
      if (mirror) {
        for (const change of changes) mirror.apply(change);
        mirror.version = version;
      } else if (guard) {
        for (const change of changes) guard.keys.apply(change);
        guard.version = version;
      }
    }
  }

  /**
   * Hands a generation's write to the writer thread when it can take it: a file-backed store, every
   * operation on the generation's own collections, and their unique keys known (see Generation.keys).
   * False leaves the write to the synchronous path, which the caller takes once the generation has settled.
   */
  queueWrite(generation: Generation, ops: readonly WriteOp[], checkpoints: readonly Checkpoint[]): boolean {
    generation.assertUsable();
    if (this.db.memory) return false;
    if (this.writer?.broken) this.writer = undefined;
    const writer = (generation.writer ??= this.writer ??= new GenerationWriter(this.db.name));
    writer.assertWritable(generation.id);
    // Another connection may have declared indexes since. Looking once per turn, as reads do, misses only
    // declarations that could as well have come a moment after this write; looking on every write cost a
    // rebuild a re-read of the metadata per page and projection, since the writer's own commits count as
    // another connection's.
    this.syncOncePerTurn();
    const physicals: string[] = [];
    const targets = new Map<string, { index: number; keys: UniqueKeys; changes: DocChange[]; written: Set<DocId> }>();
    const written = new Map<string, Set<DocId>>();
    for (const { collection } of ops) {
      if (targets.has(collection)) continue;
      const physical = generation.physicals.get(collection);
      const keys = physical === undefined ? undefined : this.generationKeysOf(generation, writer, physical, collection);
      if (physical === undefined || !keys) return false;
      const ids = new Set<DocId>();
      written.set(physical, ids);
      targets.set(collection, { index: physicals.push(physical) - 1, keys, changes: [], written: ids });
    }
    for (const checkpoint of checkpoints) assertCheckpoint(checkpoint);
    const rowPhysicals = new Int32Array(ops.length);
    const idLengths = new Int32Array(ops.length);
    const storedIds = new Array<string>(ops.length);
    const jsons = new Array<string | undefined>(ops.length);
    let chars = 0;
    for (let row = 0; row < ops.length; row++) {
      // As prepareWrite, without an object per row: this runs for every document a rebuild writes.
      const op = ops[row]!;
      const target = targets.get(op.collection)!;
      let id: DocId;
      let doc: Doc | null;
      let json: string | undefined;
      switch (op.op) {
        case 'put':
          id = op.doc._id;
          assertDocId(id, op.collection);
          doc = op.doc;
          json = JSON.stringify(doc);
          break;
        case 'delete':
          id = op.id;
          assertDocId(id, op.collection);
          doc = null;
          json = undefined;
          break;
        default:
          return assertNever(op);
      }
      if (!target.keys.isEmpty) target.changes.push({ id, doc });
      target.written.add(id);
      const storedId = idKey(id);
      rowPhysicals[row] = target.index;
      idLengths[row] = storedId.length;
      storedIds[row] = storedId;
      jsons[row] = json;
      chars += json?.length ?? 0;
    }
    const { docs, docEnds } = encodeDocs(jsons, chars);
    const batch: WriterBatch = {
      generation: generation.id,
      scope: generation.checkpointScope,
      physicals,
      rowPhysicals,
      idLengths,
      ids: storedIds.join(''),
      docEnds,
      docs,
      checkpoints: checkpoints.map(({ name, position, fencingToken }) => [name, String(position), fencingToken ?? null]),
    };
    for (const { keys, changes } of targets.values()) keys.check(changes);
    writer.send(batch, docs.byteLength, written);
    for (const { keys, changes } of targets.values()) for (const change of changes) keys.apply(change);
    return true;
  }

  /**
   * The documents of a generation's own collection by id, read from its table when no mirror of it is loaded
   * (`undefined` otherwise, or for a collection the generation does not rebuild: the caller then settles and
   * reads the mirror). A rebuild reads back a document it no longer holds in memory now and then; loading
   * a mirror of the fresh collection for that would parse every document written so far, and keep parsing
   * each one written after it, and waiting for every queued write first would stall the rebuild on the writer
   * thread (on a disk, or another connection's lock). Only writes of these very ids still in flight are
   * waited for.
   */
  byIdFromTable(generation: Generation, collection: string, ids: readonly DocId[]): Promise<Array<Doc | null>> | undefined {
    generation.assertUsable();
    const physical = generation.physicals.get(collection);
    if (physical === undefined || this.mirrors.has(physical)) return undefined;
    return this.readFromTable(generation, physical, ids);
  }

  private async readFromTable(generation: Generation, physical: string, ids: readonly DocId[]): Promise<Array<Doc | null>> {
    await generation.writer?.committedWritesOf(generation.id, physical, ids);
    generation.assertUsable();
    return ids.map((id) => this.tableDoc(physical, id) ?? null);
  }

  /** Resolves once the generation's queued writes are committed; rejects with the failure of one. */
  async settled(generation: Generation): Promise<void> {
    await generation.writer?.settled(generation.id);
  }

  /** Backpressure for queued writes: resolves once the writer has caught up enough. */
  async writerRoom(generation: Generation): Promise<void> {
    await generation.writer?.room();
  }

  /** Resolves once no generation has writes in flight. */
  async writerIdle(): Promise<void> {
    await this.writer?.idle();
  }

  async closeWriter(): Promise<void> {
    await this.writer?.close();
    this.writer = undefined;
  }

  /**
   * A generation's unique keys of one of its physical collections; built from the table only while none
   * of its writes is in flight (undefined otherwise), and again whenever the unique indexes change. A
   * collection without unique indexes has none to build, whatever is in flight: its first write is queued
   * like any other, however late in a rebuild it comes (a rebuild holds some collections' writes back).
   */
  private generationKeysOf(generation: Generation, writer: GenerationWriter, physical: string, logical: string): UniqueKeys | undefined {
    const specs = [...(this.indexSpecs.get(logical)?.values() ?? [])].filter((spec) => spec.unique);
    const signature = JSON.stringify(specs);
    const known = generation.keys.get(physical);
    if (known?.signature === signature) return known.keys;
    if (specs.length > 0 && writer.hasInFlight(generation.id)) return undefined;
    const keys =
      specs.length === 0
        ? new UniqueKeys()
        : this.db.transaction(() => UniqueKeys.build(logical, specs, this.storedDocs(physical), false))();
    generation.keys.set(physical, { signature, keys });
    return keys;
  }

  ensureIndexes(view: StoreView, collection: string, indexes: readonly IndexSpec[]): void {
    view.assertUsable();
    for (const spec of indexes) validateIndexSpec(collection, spec);
    const declared = this.db
      .transaction(() => {
        this.syncWithOtherConnections();
        const specs = new Map(this.indexSpecs.get(collection));
        let added = false;
        for (const spec of indexes) {
          const name = indexName(spec);
          const existing = specs.get(name);
          if (existing) {
            if (Boolean(existing.unique) !== Boolean(spec.unique)) {
              throw new Error(`Index ${name} on ${collection} already exists with different options`);
            }
            continue;
          }
          const normalized: IndexSpec = {
            keys: spec.keys.map(([field, direction]) => [field, direction]),
            ...(spec.unique ? { unique: true } : {}),
          };
          specs.set(name, normalized);
          this.statements.insertIndex.run(collection, name, JSON.stringify(normalized));
          added = true;
        }
        if (!added) return undefined;
        // Kept in name order, as readMetadata reads them, so other connections' declarations compare equal.
        const sorted = new Map([...specs].sort(([left], [right]) => (left < right ? -1 : 1)));
        const all = [...sorted.values()];
        // A lean mirror does not hold the fields of an index declared now: it is loaded afresh when next searched.
        for (const [physical, mirror] of this.mirrors) {
          if (mirror.logical === collection && mirror.heldFields && !sameFields(mirror.heldFields, leanFields(all))) {
            this.mirrors.delete(physical);
          }
        }
        const mirrors = [...this.mirrors.values()].filter((mirror) => mirror.logical === collection);
        const built = mirrors.map((mirror) => ({ mirror, indexes: mirror.buildIndexes(all, true) }));
        // As createIndexes does, a unique index is refused while the stored documents violate it; collections
        // without a mirror are checked from their table, and keep the keys as their guard.
        const guards = new Map<string, KeyGuard>();
        if (all.some((spec) => spec.unique)) {
          for (const physical of new Set([view.physicalOf(collection), this.physicalOf(collection)])) {
            if (!this.mirrors.has(physical)) guards.set(physical, this.loadKeyGuard(physical, collection, all, true));
          }
        }
        return { specs: sorted, built, guards };
      })
      .immediate();
    this.announceCommit();
    if (!declared) return;
    this.indexSpecs.set(collection, declared.specs);
    for (const { mirror, indexes } of declared.built) mirror.useIndexes(indexes);
    this.dropKeyGuards(collection);
    for (const [physical, guard] of declared.guards) this.keyGuards.set(physical, guard);
  }

  // --- blue/green ---------------------------------------------------------------------------------------

  beginGeneration(collections: readonly string[]): Generation {
    this.assertUsable();
    if (collections.length === 0) throw new TypeError('beginGeneration needs at least one collection');
    if (new Set(collections).size !== collections.length) throw new TypeError('beginGeneration got a collection twice');
    const id = newGenerationId();
    const physicals = new Map(collections.map((collection) => [collection, `${collection}@${id}`]));
    this.db
      .transaction(() => {
        this.syncWithOtherConnections();
        // An unfinished generation of the same collections belongs to a rebuild that died or was replaced.
        const superseded = new Set(collections.flatMap((collection) => this.statements.pendingGenerationsOf.all(collection)));
        for (const generation of superseded) this.dropGeneration(generation);
        for (const [logical, physical] of physicals) {
          this.dropPhysical(physical);
          this.statements.insertPending.run(physical, logical, id);
        }
      })
      .immediate();
    this.announceCommit();
    return new Generation(id, physicals, this);
  }

  promote(generation: Generation): void {
    generation.assertUsable();
    const replaced = this.db
      .transaction(() => {
        this.syncWithOtherConnections();
        const pending = this.statements.pendingOf.all(generation.id);
        if (pending.length !== generation.physicals.size) {
          throw new Error(`Generation ${generation.id} is no longer pending: a newer generation of its collections replaced it`);
        }
        const replaced: string[] = [];
        for (const [logical, physical] of generation.physicals) {
          const previous = this.physicalOf(logical);
          this.statements.upsertAlias.run(logical, physical);
          if (previous !== physical) {
            this.dropPhysical(previous);
            replaced.push(previous);
          }
        }
        this.statements.promoteCheckpoints.run(LIVE_SCOPE, generation.id);
        this.statements.dropCheckpoints.run(generation.id);
        this.statements.dropPending.run(generation.id);
        return replaced;
      })
      .immediate();
    this.announceCommit();
    for (const [logical, physical] of generation.physicals) this.aliases.set(logical, physical);
    for (const physical of replaced) this.mirrors.delete(physical);
    generation.finished = true;
    generation.writer?.forget(generation.id);
  }

  discard(generation: Generation): void {
    if (generation.finished) return;
    this.assertUsable();
    this.db
      .transaction(() => {
        this.syncWithOtherConnections();
        this.dropGeneration(generation.id, [...generation.physicals.values()]);
      })
      .immediate();
    this.announceCommit();
    generation.finished = true;
    generation.writer?.forget(generation.id);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.mirrors.clear();
    this.keyGuards.clear();
    this.db.close();
  }

  // --- internals ----------------------------------------------------------------------------------------

  private hasUniqueIndexes(collection: string): boolean {
    for (const spec of this.indexSpecs.get(collection)?.values() ?? []) if (spec.unique) return true;
    return false;
  }

  private freshMirror(view: StoreView, collection: string): CollectionMirror {
    const { physical, mirror } = this.loadedMirror(view, collection);
    return mirror ?? this.mirrorOf(physical, collection);
  }

  /**
   * The mirror a query is answered from: the collection's, or, when that is lean and does not hold a field the
   * query reads, one of whole documents loaded from the table for this query alone (explain names the fields,
   * and test/readStore/v1ReadIndexes.spec.ts fails when a /v1 read needs one).
   */
  private searchableMirror(
    view: StoreView,
    collection: string,
    filter: Filter | undefined,
    text: string | undefined,
    sort: ReturnType<typeof normalizeSort>,
  ): CollectionMirror {
    const mirror = this.freshMirror(view, collection);
    return mirror.missingFields(filter, text, sort).length === 0 ? mirror : this.loadMirror(mirror.physical, collection, undefined);
  }

  /** The whole documents of those a mirror holds, in order (a lean mirror's from those it keeps, or the table). */
  private wholeOf(mirror: CollectionMirror, docs: readonly Doc[]): Doc[] {
    if (!mirror.heldFields) return docs as Doc[];
    const kept = docs.map(({ _id }) => mirror.keptWhole(_id));
    const missing = docs.flatMap(({ _id }, index) => (kept[index] ? [] : [_id]));
    const stored = missing.length === 0 ? undefined : this.tableDocs(mirror.physical, missing);
    for (const doc of stored?.values() ?? []) mirror.keepWhole(doc);
    // One deleted by another connection since this turn looked is left out, as a later read would.
    return docs.flatMap(({ _id }, index) => kept[index] ?? stored?.get(_id) ?? []);
  }

  private wholeById(mirror: CollectionMirror, id: DocId): Doc | undefined {
    if (!mirror.heldFields) return mirror.docs.get(id);
    if (!mirror.docs.has(id)) return undefined;
    let doc = mirror.keptWhole(id);
    if (!doc) {
      doc = this.tableDoc(mirror.physical, id);
      if (doc) mirror.keepWhole(doc);
    }
    return doc;
  }

  /**
   * The collection's mirror if one is loaded. A read by id does not load one: at 200,000 projects the
   * mirror of the project resources held 1.1 GB of heap for reads that only ever look one document up, and
   * every young-generation collection pays for the size of the old generation.
   */
  private loadedMirror(view: StoreView, collection: string): { physical: string; mirror: CollectionMirror | undefined } {
    view.assertUsable();
    this.syncOncePerTurn();
    const physical = view.physicalOf(collection);
    return { physical, mirror: this.mirrors.get(physical) };
  }

  /** Documents read by id from the table in one statement, frozen as a mirror's are. */
  private tableDocs(physical: string, ids: readonly DocId[]): Map<DocId, Doc> {
    const found = new Map<DocId, Doc>();
    if (ids.length === 0) return found;
    for (const json of this.statements.docsWithIds.all(physical, JSON.stringify(ids.map(idKey)))) {
      const doc = deepFreeze(JSON.parse(json) as Doc);
      found.set(doc._id, doc);
    }
    return found;
  }

  /** A document read by id from the table, frozen as a mirror's are. */
  private tableDoc(physical: string, id: DocId): Doc | undefined {
    const json = this.statements.doc.get(physical, idKey(id));
    return json === undefined ? undefined : deepFreeze(JSON.parse(json) as Doc);
  }

  private mirrorOf(physical: string, logical: string): CollectionMirror {
    let mirror = this.mirrors.get(physical);
    if (!mirror) {
      mirror = this.loadMirror(physical, logical, this.heldFieldsOf(logical));
      this.mirrors.set(physical, mirror);
      this.keyGuards.delete(physical);
    }
    return mirror;
  }

  /** Runs inside a transaction, so that the keys and the version belong together. */
  private keyGuardOf(physical: string, logical: string): KeyGuard {
    let guard = this.keyGuards.get(physical);
    if (!guard) {
      guard = this.loadKeyGuard(physical, logical, [...(this.indexSpecs.get(logical)?.values() ?? [])], false);
      this.keyGuards.set(physical, guard);
    }
    return guard;
  }

  /** Runs inside a transaction; `enforce`: see UniqueKeys.build. */
  private loadKeyGuard(physical: string, logical: string, specs: readonly IndexSpec[], enforce: boolean): KeyGuard {
    return {
      logical,
      keys: UniqueKeys.build(logical, specs, this.storedDocs(physical), enforce),
      version: this.statements.versionOf.get(physical) ?? 0,
    };
  }

  private storedDocs(physical: string): Doc[] {
    return this.statements.docs.all(physical).map((json) => JSON.parse(json) as Doc);
  }

  private dropKeyGuards(logical: string): void {
    for (const [physical, guard] of this.keyGuards) if (guard.logical === logical) this.keyGuards.delete(physical);
  }

  private heldFieldsOf(logical: string): ReadonlySet<string> | undefined {
    const lean = this.leanCollections === 'all' || this.leanCollections.has(logical);
    return lean ? leanFields([...(this.indexSpecs.get(logical)?.values() ?? [])]) : undefined;
  }

  private loadMirror(physical: string, logical: string, heldFields: ReadonlySet<string> | undefined): CollectionMirror {
    return this.db.transaction(() => {
      const mirror = new CollectionMirror(physical, logical, heldFields);
      mirror.version = this.statements.versionOf.get(physical) ?? 0;
      for (const json of this.statements.docs.all(physical)) {
        const doc = JSON.parse(json) as Doc;
        mirror.docs.set(doc._id, deepFreeze(mirror.held(doc)));
      }
      mirror.useIndexes(mirror.buildIndexes([...(this.indexSpecs.get(logical)?.values() ?? [])], false));
      return mirror;
    })();
  }

  private announceCommit(): void {
    if (!this.db.memory) announceCommit(this.db.name);
  }

  /** See commitsInProcess.ts. */
  private syncOncePerTurn(): void {
    const commits = commitsAnnounced(this.db.name);
    if (this.lookedThisTurn && commits === this.commitsSeen) return;
    this.syncWithOtherConnections();
    this.commitsSeen = commits;
    if (!this.lookedThisTurn) {
      this.lookedThisTurn = true;
      setImmediate(() => {
        this.lookedThisTurn = false;
      }).unref();
    }
  }

  /** Another connection committed since we last looked: pick up its aliases, indexes and documents. */
  private syncWithOtherConnections(): void {
    this.assertUsable();
    const dataVersion = this.statements.dataVersion.get()!;
    if (dataVersion === this.dataVersion) return;
    this.db.transaction(() => {
      this.readMetadata();
      const versions = new Map(this.statements.versions.all());
      for (const [physical, mirror] of this.mirrors) {
        const version = versions.get(physical) ?? 0;
        if (version === mirror.version) continue;
        if (version < mirror.version) this.mirrors.delete(physical);
        else this.catchUp(mirror, version);
      }
      // Rebuilt from the table when next needed: without the documents, a guard cannot catch up.
      for (const [physical, guard] of this.keyGuards) {
        if ((versions.get(physical) ?? 0) !== guard.version) this.keyGuards.delete(physical);
      }
    })();
    this.dataVersion = dataVersion;
  }

  private readMetadata(): void {
    this.aliases = new Map(this.statements.aliases.all());
    const indexSpecs = new Map<string, Map<string, IndexSpec>>();
    for (const [collection, name, spec] of this.statements.declaredIndexes.all()) {
      let specs = indexSpecs.get(collection);
      if (!specs) {
        specs = new Map();
        indexSpecs.set(collection, specs);
      }
      specs.set(name, JSON.parse(spec) as IndexSpec);
    }
    const specsOf = (specs: typeof indexSpecs, logical: string) => [...(specs.get(logical)?.values() ?? [])];
    const changed = (logical: string) => JSON.stringify(specsOf(this.indexSpecs, logical)) !== JSON.stringify(specsOf(indexSpecs, logical));
    for (const [physical, mirror] of this.mirrors) {
      if (!changed(mirror.logical)) continue;
      const specs = specsOf(indexSpecs, mirror.logical);
      // A lean mirror may not hold the fields of the new declarations: loaded afresh when next searched.
      if (mirror.heldFields) this.mirrors.delete(physical);
      else mirror.useIndexes(mirror.buildIndexes(specs, false));
    }
    for (const [physical, guard] of this.keyGuards) if (changed(guard.logical)) this.keyGuards.delete(physical);
    this.indexSpecs = indexSpecs;
  }

  /** Applies what other connections wrote to the collection since the mirror's version. */
  private catchUp(mirror: CollectionMirror, version: number): void {
    for (const json of this.statements.docsSince.all(mirror.physical, mirror.version)) {
      const doc = deepFreeze(JSON.parse(json) as Doc);
      mirror.apply({ id: doc._id, doc });
    }
    if (this.statements.countDocs.get(mirror.physical) !== mirror.docs.size) {
      const stored = new Set(this.statements.docIds.all(mirror.physical));
      for (const id of [...mirror.docs.keys()]) if (!stored.has(idKey(id))) mirror.apply({ id, doc: null });
    }
    mirror.version = version;
  }

  private dropPhysical(physical: string): void {
    this.statements.dropDocs.run(physical);
    this.statements.deleteVersion.run(physical);
    this.mirrors.delete(physical);
    this.keyGuards.delete(physical);
  }

  /** Drops a generation's collections (never a live one), its checkpoints and its pending record. */
  private dropGeneration(generation: string, physicals?: readonly string[]): void {
    const live = new Set(this.aliases.values());
    const dropped = physicals ?? this.statements.pendingOf.all(generation).map(([physical]) => physical);
    for (const physical of dropped) if (!live.has(physical)) this.dropPhysical(physical);
    this.statements.dropCheckpoints.run(generation);
    this.statements.dropPending.run(generation);
  }
}

const sameFields = (left: ReadonlySet<string>, right: ReadonlySet<string>): boolean =>
  left.size === right.size && [...left].every((field) => right.has(field));

/** A query on fields a lean mirror does not hold reads every whole document from the table. */
const wholeDocumentsPlan = (missing: readonly string[]): EmbeddedReadPlan => ({
  source: `whole documents (${missing.join(', ')} not held)`,
  ordering: null,
});
