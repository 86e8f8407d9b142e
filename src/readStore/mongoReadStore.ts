import { randomBytes } from 'node:crypto';
import {
  MongoBulkWriteError,
  MongoClient,
  MongoServerError,
  type AnyBulkWriteOperation,
  type ClientSession,
  type Collection,
  type Db,
  type Document,
  type Filter as MongoFilter,
  type IndexDescription,
} from 'mongodb';
import { assertNever } from '../domain/decider.js';
import {
  DuplicateKeyError,
  indexName,
  sequenceFilter,
  StaleFencingTokenError,
  type Checkpoint,
  type Doc,
  type DocId,
  type Filter,
  type FindOptions,
  type FindResult,
  type GenerationStore,
  type IndexSpec,
  type ReadStore,
  type SequenceRange,
  type SortDirection,
  type WriteOp,
} from './readStore.js';
import type { ReadCall } from './readCall.js';

/*
 * MongoDB read store. Logical collections map to physical ones through one mapping document in `_aliases`
 * (cached for a second, so other processes see a promote within that time); that document also names the
 * scope each live checkpoint is kept under, so a promote switches collections and checkpoints in one
 * single-document update. Checkpoints live in `_checkpoints` (positions as decimal strings, with the highest
 * fencing token written), unfinished generations in `_generations`. A live write whose checkpoints carry
 * fencing tokens runs in a transaction (MongoDB runs as a replica set here, as the design says): the
 * checkpoints' conditional updates first, so a stale token aborts it before any document is written.
 */

const ALIASES = '_aliases';
const CHECKPOINTS = '_checkpoints';
const GENERATIONS = '_generations';
const LIVE_MAPPING_ID = 'live';
const MAPPING_CACHE_MS = 1000;
/** Checkpoints written by the live store before any promote. */
const LIVE_SCOPE = '';
const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
/** How often a promote retries when another promote changed the mapping under it. */
const PROMOTE_ATTEMPTS = 5;

type StoredDoc = Document & { _id: DocId };

interface MappingDoc {
  _id: string;
  revision: number;
  collections: Array<{ logical: string; physical: string }>;
  checkpointScopes: Array<{ name: string; scope: string }>;
}

interface CheckpointDoc {
  /** `${scope}|${name}`; a scope never contains `|`. */
  _id: string;
  scope: string;
  name: string;
  position: string;
  /** The highest fencing token the checkpoint was written with; absent until one was. */
  fencingToken?: number;
}

interface GenerationDoc {
  /** The physical collection. */
  _id: string;
  logical: string;
  generation: string;
}

interface LiveMapping {
  /** 0 while no mapping document exists. */
  revision: number;
  collections: Map<string, string>;
  checkpointScopes: Map<string, string>;
}

const checkpointId = (scope: string, name: string): string => `${scope}|${name}`;

const newGenerationId = (): string => `g${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const codeOf = (error: unknown): unknown => (error instanceof MongoServerError ? error.code : undefined);

/** MongoDB's E11000, from a single write or an ordered bulk write, as the port's DuplicateKeyError. */
function asDuplicateKeyError(error: unknown, collection: string): unknown {
  if (!(error instanceof MongoServerError)) return error;
  let code = error.code;
  let message = error.message;
  if (error instanceof MongoBulkWriteError) {
    const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
    const first = writeErrors[0];
    if (first) {
      code = first.code;
      message = first.errmsg ?? message;
    }
  }
  if (code !== DUPLICATE_KEY) return error;
  return new DuplicateKeyError(collection, /index: (\S+)/.exec(message)?.[1] ?? 'unknown');
}

/**
 * The port's filter is MongoDB's syntax already; operators left undefined by a caller building a filter
 * from optional parameters are dropped (the embedded store ignores them too). `text` becomes a literal,
 * case-insensitive regular expression on `_search`.
 */
function toMongoQuery(filter: Filter | undefined, text: string | undefined): MongoFilter<StoredDoc> {
  const query: Document = {};
  for (const [path, condition] of Object.entries(filter ?? {})) {
    if (condition === undefined) continue;
    if (condition === null || typeof condition !== 'object') {
      query[path] = condition;
      continue;
    }
    const operators = Object.fromEntries(Object.entries(condition).filter(([, operand]) => operand !== undefined));
    if (Object.keys(operators).length > 0) query[path] = operators;
  }
  if (!text) return query;
  const textCondition = { $regex: escapeRegExp(text), $options: 'i' };
  if ('_search' in query) return { $and: [query, { _search: textCondition }] };
  return { ...query, _search: textCondition };
}

/** The caller's sort with `_id` ascending appended as the final tie-breaker; an array keeps key order. */
function toMongoSort(sort: FindOptions['sort']): Array<[string, SortDirection]> {
  const spec = (sort ?? []).map(([field, direction]): [string, SortDirection] => [field, direction]);
  if (!spec.some(([field]) => field === '_id')) spec.push(['_id', 1]);
  return spec;
}

/** The stage countDocuments ends its aggregation with. */
const COUNT_STAGE = { $group: { _id: 1, n: { $sum: 1 } } };

/** The query a `find` matches with, and its cursor of the page (none for `limit: 0`, which only counts). */
function findCommands(documents: Collection<StoredDoc>, options: FindOptions) {
  const query = toMongoQuery(options.filter, options.text);
  const skip = Math.max(0, options.skip ?? 0);
  const limit = options.limit === undefined ? undefined : Math.max(0, options.limit);
  const cursor =
    limit === 0
      ? null
      : documents.find(query, {
          sort: toMongoSort(options.sort),
          skip,
          ...(limit === undefined ? {} : { limit }),
          ...(options.fields ? { projection: Object.fromEntries(options.fields.map((field) => [field, 1])) } : {}),
        });
  return { query, cursor };
}

/** A sequence page walks the `_id` index; none for `limit: 0`, which MongoDB would read as no limit. */
function sequenceCursor(documents: Collection<StoredDoc>, range: SequenceRange) {
  const query = toMongoQuery(sequenceFilter(range), undefined);
  return range.limit === 0 ? null : documents.find(query, { sort: [['_id', 1]], limit: range.limit });
}

const toIndexDescription = (spec: IndexSpec): IndexDescription => ({
  key: new Map(spec.keys),
  name: indexName(spec),
  ...(spec.unique ? { unique: true } : {}),
});

/** Operations on one collection, in a row, written as one ordered bulk write. */
interface WriteRun {
  collection: string;
  physical: string;
  models: Array<AnyBulkWriteOperation<StoredDoc>>;
}

function assertFencingToken(checkpoint: Checkpoint): void {
  const { fencingToken } = checkpoint;
  if (fencingToken !== undefined && !(Number.isSafeInteger(fencingToken) && fencingToken > 0)) {
    throw new TypeError(`Checkpoint ${checkpoint.name} fencing token must be a positive safe integer`);
  }
}

interface MongoView {
  physicalOf(collection: string): Promise<string>;
  checkpointScopeOf(name: string): Promise<string>;
  assertUsable(): void;
  /**
   * Whether fencing tokens are checked in a transaction: on the live store. A generation is written only by
   * the rebuild that began it; its tokens are kept, and reach the live checkpoints when it is promoted.
   */
  readonly checksFencing: boolean;
}

class MongoGeneration implements MongoView {
  finished = false;
  readonly checksFencing = false;

  constructor(
    readonly id: string,
    readonly physicals: ReadonlyMap<string, string>,
    private readonly engine: MongoEngine,
  ) {}

  async physicalOf(collection: string): Promise<string> {
    return this.physicals.get(collection) ?? this.engine.physicalOf(collection);
  }

  async checkpointScopeOf(): Promise<string> {
    return this.id;
  }

  assertUsable(): void {
    this.engine.assertUsable();
    if (this.finished) throw new Error(`Generation ${this.id} is finished (promoted, discarded or closed)`);
  }
}

class MongoEngine implements MongoView {
  readonly checksFencing = true;
  private closed = false;
  private cachedMapping: { mapping: LiveMapping; fetchedAt: number } | undefined;
  private mappingRequest: Promise<LiveMapping> | undefined;
  /** Indexes declared through this store, by logical collection and name, for the physical collections of new generations. */
  private readonly declared = new Map<string, Map<string, IndexSpec>>();
  private readonly aliases: Collection<MappingDoc>;
  private readonly checkpoints: Collection<CheckpointDoc>;
  private readonly generations: Collection<GenerationDoc>;

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {
    this.aliases = db.collection<MappingDoc>(ALIASES);
    this.checkpoints = db.collection<CheckpointDoc>(CHECKPOINTS);
    this.generations = db.collection<GenerationDoc>(GENERATIONS);
  }

  assertUsable(): void {
    if (this.closed) throw new Error('The read store is closed');
  }

  async physicalOf(collection: string): Promise<string> {
    return (await this.liveMapping()).collections.get(collection) ?? collection;
  }

  async checkpointScopeOf(name: string): Promise<string> {
    return (await this.liveMapping()).checkpointScopes.get(name) ?? LIVE_SCOPE;
  }

  private collectionOf(physical: string): Collection<StoredDoc> {
    return this.db.collection<StoredDoc>(physical);
  }

  // --- queries ------------------------------------------------------------------------------------------

  async find(view: MongoView, collection: string, options: FindOptions = {}): Promise<FindResult<Doc>> {
    view.assertUsable();
    const documents = this.collectionOf(await view.physicalOf(collection));
    const { query, cursor } = findCommands(documents, options);
    const [items, total] = await Promise.all([cursor ? cursor.toArray() : Promise.resolve([]), documents.countDocuments(query)]);
    return { items, total };
  }

  /**
   * MongoDB's explain ('queryPlanner') of each command the read sends, in order: a `find` sends its find
   * (none for `limit: 0`) and its count, the aggregation countDocuments runs.
   */
  async explain(view: MongoView, call: ReadCall): Promise<Document[]> {
    view.assertUsable();
    const documents = this.collectionOf(await view.physicalOf(call.collection));
    switch (call.method) {
      case 'find': {
        const { query, cursor } = findCommands(documents, call.options);
        const count = documents.aggregate([{ $match: query }, COUNT_STAGE]);
        return [...(cursor ? [await cursor.explain('queryPlanner')] : []), await count.explain('queryPlanner')];
      }
      case 'findOne':
        return [await documents.find(toMongoQuery(call.filter, undefined), { sort: [['_id', 1]], limit: 1 }).explain('queryPlanner')];
      case 'get':
        return [await documents.find({ _id: call.id }, { limit: 1 }).explain('queryPlanner')];
      case 'getMany':
        return [await documents.find({ _id: { $in: [...call.ids] } }).explain('queryPlanner')];
      case 'readSequence': {
        const cursor = sequenceCursor(documents, call.range);
        return cursor ? [await cursor.explain('queryPlanner')] : [];
      }
      default:
        return assertNever(call);
    }
  }

  async readSequence(view: MongoView, collection: string, range: SequenceRange): Promise<Doc[]> {
    view.assertUsable();
    const cursor = sequenceCursor(this.collectionOf(await view.physicalOf(collection)), range);
    return cursor ? cursor.toArray() : [];
  }

  async get(view: MongoView, collection: string, id: DocId): Promise<Doc | null> {
    view.assertUsable();
    return this.collectionOf(await view.physicalOf(collection)).findOne({ _id: id });
  }

  async getMany(view: MongoView, collection: string, ids: readonly DocId[]): Promise<Doc[]> {
    view.assertUsable();
    if (ids.length === 0) return [];
    const found = await this.collectionOf(await view.physicalOf(collection))
      .find({ _id: { $in: [...ids] } })
      .toArray();
    const byId = new Map<DocId, Doc>(found.map((doc) => [doc._id, doc]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** The matching document with the smallest `_id`, as the embedded store answers. */
  async findOne(view: MongoView, collection: string, filter: Filter): Promise<Doc | null> {
    view.assertUsable();
    return this.collectionOf(await view.physicalOf(collection)).findOne(toMongoQuery(filter, undefined), { sort: [['_id', 1]] });
  }

  async getCheckpoint(view: MongoView, name: string): Promise<bigint | null> {
    view.assertUsable();
    const stored = await this.checkpoints.findOne({ _id: checkpointId(await view.checkpointScopeOf(name), name) });
    return stored ? BigInt(stored.position) : null;
  }

  async ping(): Promise<boolean> {
    try {
      const answer = await this.db.command({ ping: 1 });
      return answer.ok === 1;
    } catch {
      return false;
    }
  }

  // --- writes -------------------------------------------------------------------------------------------

  /** Ordered bulk writes, one per run of operations on the same collection, then the checkpoints. */
  async write(view: MongoView, ops: readonly WriteOp[], checkpoints: readonly Checkpoint[]): Promise<void> {
    view.assertUsable();
    for (const checkpoint of checkpoints) assertFencingToken(checkpoint);
    const runs = await this.runsOf(view, ops);
    const scoped = await Promise.all(
      checkpoints.map(async (checkpoint) => ({ ...checkpoint, scope: await view.checkpointScopeOf(checkpoint.name) })),
    );
    if (view.checksFencing && checkpoints.some((checkpoint) => checkpoint.fencingToken !== undefined)) {
      await this.fencedWrite(runs, scoped);
      return;
    }
    for (const run of runs) await this.writeRun(run);
    if (scoped.length === 0) return;
    await this.checkpoints.bulkWrite(
      scoped.map(({ scope, name, position, fencingToken }) => ({
        updateOne: {
          filter: { _id: checkpointId(scope, name) },
          update: { $set: { scope, name, position: position.toString(), ...(fencingToken === undefined ? {} : { fencingToken }) } },
          upsert: true,
        },
      })),
      { ordered: true },
    );
  }

  /**
   * One transaction: each checkpoint is updated only where its stored token is not greater (an upsert that
   * finds the checkpoint with a greater token inserts its _id again: E11000, the refusal), then the documents.
   */
  private async fencedWrite(runs: readonly WriteRun[], checkpoints: ReadonlyArray<Checkpoint & { scope: string }>): Promise<void> {
    const session = this.client.startSession();
    try {
      await session.withTransaction(async () => {
        for (const { scope, name, position, fencingToken } of checkpoints) {
          const _id = checkpointId(scope, name);
          if (fencingToken === undefined) {
            await this.checkpoints.updateOne({ _id }, { $set: { scope, name, position: position.toString() } }, { upsert: true, session });
            continue;
          }
          try {
            await this.checkpoints.updateOne(
              { _id, $or: [{ fencingToken: { $exists: false } }, { fencingToken: { $lte: fencingToken } }] },
              { $set: { scope, name, position: position.toString(), fencingToken } },
              { upsert: true, session },
            );
          } catch (error) {
            if (codeOf(error) !== DUPLICATE_KEY) throw error;
            // Outside the session: the error aborted its transaction.
            const stored = await this.checkpoints.findOne({ _id });
            throw new StaleFencingTokenError(name, fencingToken, stored?.fencingToken ?? null);
          }
        }
        for (const run of runs) await this.writeRun(run, session);
      });
    } finally {
      await session.endSession();
    }
  }

  private async runsOf(view: MongoView, ops: readonly WriteOp[]): Promise<WriteRun[]> {
    const runs: WriteRun[] = [];
    for (const op of ops) {
      const model: AnyBulkWriteOperation<StoredDoc> =
        op.op === 'put'
          ? { replaceOne: { filter: { _id: op.doc._id }, replacement: op.doc, upsert: true } }
          : { deleteOne: { filter: { _id: op.id } } };
      const last = runs.at(-1);
      if (last?.collection === op.collection) last.models.push(model);
      else runs.push({ collection: op.collection, physical: await view.physicalOf(op.collection), models: [model] });
    }
    return runs;
  }

  private async writeRun(run: WriteRun, session?: ClientSession): Promise<void> {
    try {
      await this.collectionOf(run.physical).bulkWrite(run.models, { ordered: true, ...(session ? { session } : {}) });
    } catch (error) {
      throw asDuplicateKeyError(error, run.collection);
    }
  }

  async ensureIndexes(view: MongoView, collection: string, indexes: readonly IndexSpec[]): Promise<void> {
    view.assertUsable();
    if (indexes.length === 0) return;
    const declared = this.declared.get(collection) ?? new Map<string, IndexSpec>();
    for (const spec of indexes) declared.set(indexName(spec), spec);
    this.declared.set(collection, declared);
    try {
      await this.collectionOf(await view.physicalOf(collection)).createIndexes(indexes.map(toIndexDescription));
    } catch (error) {
      throw asDuplicateKeyError(error, collection);
    }
  }

  // --- blue/green ---------------------------------------------------------------------------------------

  async beginGeneration(collections: readonly string[]): Promise<MongoGeneration> {
    this.assertUsable();
    if (collections.length === 0) throw new TypeError('beginGeneration needs at least one collection');
    if (new Set(collections).size !== collections.length) throw new TypeError('beginGeneration got a collection twice');
    const id = newGenerationId();
    const physicals = new Map(collections.map((collection) => [collection, `${collection}@${id}`]));
    // An unfinished generation of the same collections belongs to a rebuild that died or was replaced.
    const superseded = await this.generations.distinct('generation', { logical: { $in: [...collections] } });
    for (const generation of superseded) await this.dropGeneration(generation);
    await this.generations.insertMany([...physicals].map(([logical, physical]) => ({ _id: physical, logical, generation: id })));
    for (const [logical, physical] of physicals) {
      const indexes = await this.indexesFor(logical);
      if (indexes.length > 0) await this.collectionOf(physical).createIndexes(indexes);
    }
    return new MongoGeneration(id, physicals, this);
  }

  async promote(generation: MongoGeneration): Promise<void> {
    generation.assertUsable();
    const pending = await this.generations.countDocuments({ generation: generation.id });
    if (pending !== generation.physicals.size) {
      throw new Error(`Generation ${generation.id} is no longer pending: a newer generation of its collections replaced it`);
    }
    const written = await this.checkpoints.distinct('name', { scope: generation.id });
    for (let attempt = 0; attempt < PROMOTE_ATTEMPTS; attempt++) {
      const current = await this.readMapping();
      const collections = new Map(current.collections);
      const replacedPhysicals: string[] = [];
      for (const [logical, physical] of generation.physicals) {
        const previous = collections.get(logical) ?? logical;
        if (previous !== physical) replacedPhysicals.push(previous);
        collections.set(logical, physical);
      }
      const checkpointScopes = new Map(current.checkpointScopes);
      const replacedCheckpoints = written.map((name) => checkpointId(checkpointScopes.get(name) ?? LIVE_SCOPE, name));
      await this.carryFencingTokens(generation.id, replacedCheckpoints);
      for (const name of written) checkpointScopes.set(name, generation.id);
      const next: LiveMapping = { revision: current.revision + 1, collections, checkpointScopes };
      if (!(await this.swapMapping(current.revision, next))) continue;

      this.cachedMapping = { mapping: next, fetchedAt: Date.now() };
      generation.finished = true;
      await this.generations.deleteMany({ generation: generation.id });
      await this.checkpoints.deleteMany({ _id: { $in: replacedCheckpoints } });
      for (const physical of replacedPhysicals) await this.dropCollection(physical);
      return;
    }
    throw new Error(`Generation ${generation.id} could not be promoted: the live mapping kept changing`);
  }

  /**
   * The live fencing tokens never go down: each promoted checkpoint keeps the greater of its own token and
   * the one of the live checkpoint it replaces (a rebuild run without a lease, `npm run replay`, has none).
   */
  private async carryFencingTokens(generation: string, liveIds: readonly string[]): Promise<void> {
    const live = await this.checkpoints.find({ _id: { $in: [...liveIds] }, fencingToken: { $exists: true } }).toArray();
    for (const { name, fencingToken } of live) {
      await this.checkpoints.updateOne({ _id: checkpointId(generation, name) }, { $max: { fencingToken: fencingToken! } });
    }
  }

  async discard(generation: MongoGeneration): Promise<void> {
    if (generation.finished) return;
    this.assertUsable();
    generation.finished = true;
    await this.dropGeneration(generation.id, [...generation.physicals.values()]);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client.close();
  }

  // --- internals ----------------------------------------------------------------------------------------

  private async liveMapping(): Promise<LiveMapping> {
    if (this.cachedMapping && Date.now() - this.cachedMapping.fetchedAt < MAPPING_CACHE_MS) return this.cachedMapping.mapping;
    this.mappingRequest ??= this.readMapping()
      .then((mapping) => {
        this.cachedMapping = { mapping, fetchedAt: Date.now() };
        return mapping;
      })
      .finally(() => {
        this.mappingRequest = undefined;
      });
    return this.mappingRequest;
  }

  private async readMapping(): Promise<LiveMapping> {
    const stored = await this.aliases.findOne({ _id: LIVE_MAPPING_ID });
    return {
      revision: stored?.revision ?? 0,
      collections: new Map((stored?.collections ?? []).map(({ logical, physical }) => [logical, physical])),
      checkpointScopes: new Map((stored?.checkpointScopes ?? []).map(({ name, scope }) => [name, scope])),
    };
  }

  /** Replaces the mapping if it is still at `revision`; false when another promote got there first. */
  private async swapMapping(revision: number, next: LiveMapping): Promise<boolean> {
    const fields = {
      revision: next.revision,
      collections: [...next.collections].map(([logical, physical]) => ({ logical, physical })),
      checkpointScopes: [...next.checkpointScopes].map(([name, scope]) => ({ name, scope })),
    };
    if (revision === 0) {
      try {
        await this.aliases.insertOne({ _id: LIVE_MAPPING_ID, ...fields });
        return true;
      } catch (error) {
        if (codeOf(error) === DUPLICATE_KEY) return false;
        throw error;
      }
    }
    const result = await this.aliases.updateOne({ _id: LIVE_MAPPING_ID, revision }, { $set: fields });
    return result.matchedCount === 1;
  }

  /** Declared here, plus whatever the live physical collection carries (declared by another process). */
  private async indexesFor(collection: string): Promise<IndexDescription[]> {
    const byName = new Map<string, IndexDescription>();
    try {
      const existing = await this.collectionOf(await this.physicalOf(collection))
        .listIndexes()
        .toArray();
      for (const index of existing) {
        if (index.name === '_id_') continue;
        byName.set(index.name as string, {
          key: index.key as Document,
          name: index.name as string,
          ...(index.unique ? { unique: true } : {}),
        });
      }
    } catch (error) {
      if (codeOf(error) !== NAMESPACE_NOT_FOUND) throw error;
    }
    for (const [name, spec] of this.declared.get(collection) ?? []) byName.set(name, toIndexDescription(spec));
    return [...byName.values()];
  }

  /** Drops a generation's collections (never a live one), its checkpoints and its pending record. */
  private async dropGeneration(generation: string, physicals?: readonly string[]): Promise<void> {
    const live = new Set((await this.readMapping()).collections.values());
    const dropped = physicals ?? (await this.generations.find({ generation }).toArray()).map(({ _id }) => _id);
    for (const physical of dropped) if (!live.has(physical)) await this.dropCollection(physical);
    await this.checkpoints.deleteMany({ scope: generation });
    await this.generations.deleteMany({ generation });
  }

  private async dropCollection(physical: string): Promise<void> {
    try {
      await this.db.collection(physical).drop();
    } catch (error) {
      if (codeOf(error) !== NAMESPACE_NOT_FOUND) throw error;
    }
  }
}

function storeOn(engine: MongoEngine, view: MongoView) {
  return {
    async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
      await engine.ensureIndexes(view, collection, indexes);
    },
    async find<T extends Doc = Doc>(collection: string, options?: FindOptions): Promise<FindResult<T>> {
      return (await engine.find(view, collection, options)) as FindResult<T>;
    },
    async get<T extends Doc = Doc>(collection: string, id: DocId): Promise<T | null> {
      return (await engine.get(view, collection, id)) as T | null;
    },
    async getMany<T extends Doc = Doc>(collection: string, ids: DocId[]): Promise<T[]> {
      return (await engine.getMany(view, collection, ids)) as T[];
    },
    async findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null> {
      return (await engine.findOne(view, collection, filter)) as T | null;
    },
    async readSequence<T extends Doc = Doc>(collection: string, range: SequenceRange): Promise<T[]> {
      return (await engine.readSequence(view, collection, range)) as T[];
    },
    async write(ops: WriteOp[], checkpoints: Checkpoint[] = []): Promise<void> {
      await engine.write(view, ops, checkpoints);
    },
    async getCheckpoint(name: string): Promise<bigint | null> {
      return engine.getCheckpoint(view, name);
    },
    async ping(): Promise<boolean> {
      return engine.ping();
    },
  };
}

/** The MongoDB read store, which can also say how MongoDB answers a read (see MongoEngine.explain). */
export interface MongoReadStore extends ReadStore {
  explain(call: ReadCall): Promise<Document[]>;
}

/**
 * The MongoDB read store. `dbName` defaults to the database named in the URL (the driver's default
 * otherwise). The client connects on first use.
 */
export function createMongoReadStore(options: { url: string; dbName?: string }): MongoReadStore {
  // Undefined fields are left out, as JSON (and so the embedded store) leaves them out.
  const client = new MongoClient(options.url, { ignoreUndefined: true });
  const engine = new MongoEngine(client, client.db(options.dbName));
  return {
    ...storeOn(engine, engine),
    explain: (call) => engine.explain(engine, call),
    async beginGeneration(collections: string[]): Promise<GenerationStore> {
      const generation = await engine.beginGeneration(collections);
      return {
        ...storeOn(engine, generation),
        generation: generation.id,
        async beginGeneration(): Promise<GenerationStore> {
          throw new Error('A generation is begun on the live store, not inside another generation');
        },
        async promote(): Promise<void> {
          await engine.promote(generation);
        },
        async discard(): Promise<void> {
          await engine.discard(generation);
        },
        /** Releases this view; the client belongs to the live store, and unpromoted data stays until discarded or replaced. */
        async close(): Promise<void> {
          generation.finished = true;
        },
      };
    },
    async close(): Promise<void> {
      await engine.close();
    },
  };
}
