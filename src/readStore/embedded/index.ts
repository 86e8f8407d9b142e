/*
 * Embedded read store. SQLite (WAL) is the durable copy: documents keyed by (physical collection, id), the
 * checkpoints, the logical -> physical aliases of blue/green generations, declared indexes and one version
 * counter per physical collection. Queries are answered from an in-memory mirror of each collection, with
 * sorted orderings, equality lookups and recent query results cached until the collection next changes. A
 * collection gets its mirror when something first searches it (find, findOne); until then, reads by id
 * answer from the table, so that a large collection only ever read by id costs no memory.
 *
 * Documents in the mirror are frozen copies parsed from the stored JSON: a write replaces an object and
 * never mutates one, so `find`/`get` hand out the stored objects themselves (callers must not mutate them;
 * trying to throws a TypeError).
 *
 * Several processes may share the file (an API and a projector). Before answering, a store asks SQLite's
 * `PRAGMA data_version`, which changes only when another connection committed; then it re-reads aliases,
 * index declarations and collection versions, and reloads only the documents written since the version
 * its mirror holds.
 *
 * A generation writes physical collections named `<collection>@<generation>` and checkpoints scoped by its
 * id; promote points the aliases at them and moves the checkpoints to the live scope in one transaction.
 * Beginning a generation drops any unfinished one of the same collections (a rebuild that died).
 *
 * A file-backed store commits a generation's writes on a second connection in a worker thread (see
 * generationWriter.ts), so that a rebuild projects the next page while SQLite writes, and waits for the WAL
 * checkpoints' fsyncs, on the other core. Such a write is checked (ids, unique keys) and serialised before
 * it resolves; it is committed, with its checkpoints, in the order written, before any later query of the
 * generation, its promote or its discard. A read by id of a collection the generation rebuilds waits only for
 * the writes of those ids still in flight, and reads the table rather than loading a mirror (see
 * EmbeddedEngine.byIdFromTable).
 */
import type {
  Checkpoint,
  Doc,
  DocId,
  Filter,
  FindOptions,
  FindResult,
  GenerationStore,
  IndexSpec,
  ReadStore,
  SequenceRange,
  WriteOp,
} from '../readStore.js';
import type { ReadCall } from '../readCall.js';
import { EmbeddedEngine } from './engine.js';
import type { StoreView } from './generation.js';
import type { EmbeddedReadPlan } from './queryPlanner.js';

export type { EmbeddedReadPlan } from './queryPlanner.js';

/** The embedded store, which can also say how it answers a read (which lookup, which ordering). */
export interface EmbeddedReadStore extends ReadStore {
  explain(call: ReadCall): Promise<EmbeddedReadPlan>;
}

/** The port on a view; `settled` resolves before each operation's turn (a generation's queued writes). */
function storeOn(engine: EmbeddedEngine, view: StoreView, settled: () => Promise<void> = async () => undefined) {
  return {
    async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
      await settled();
      engine.ensureIndexes(view, collection, indexes);
    },
    async find<T extends Doc = Doc>(collection: string, options?: FindOptions): Promise<FindResult<T>> {
      await settled();
      return engine.find(view, collection, options) as FindResult<T>;
    },
    async get<T extends Doc = Doc>(collection: string, id: DocId): Promise<T | null> {
      await settled();
      return engine.get(view, collection, id) as T | null;
    },
    async getMany<T extends Doc = Doc>(collection: string, ids: DocId[]): Promise<T[]> {
      await settled();
      return engine.getMany(view, collection, ids) as T[];
    },
    async findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null> {
      await settled();
      return engine.findOne(view, collection, filter) as T | null;
    },
    async readSequence<T extends Doc = Doc>(collection: string, range: SequenceRange): Promise<T[]> {
      await settled();
      return engine.readSequence(view, collection, range) as T[];
    },
    async write(ops: WriteOp[], checkpoints: Checkpoint[] = []): Promise<void> {
      await settled();
      engine.write(view, ops, checkpoints);
    },
    async getCheckpoint(name: string): Promise<bigint | null> {
      await settled();
      return engine.getCheckpoint(view, name);
    },
    async ping(): Promise<boolean> {
      return engine.ping();
    },
  };
}

export interface EmbeddedReadStoreOptions {
  /** The SQLite database (created if absent); without it everything lives in memory and disappears on close (tests). */
  file?: string;
  /**
   * Collections whose mirrors hold only the fields of their declared indexes (and `_id`, `_search`), reading
   * the whole documents a query returns from the table (the most recently read kept in memory). For large
   * collections whose every search is on declared fields; a query on another field still answers, from the
   * whole documents of the table. `all`: every collection.
   */
  leanCollections?: readonly string[] | 'all';
}

/** The embedded read store. Returned documents are frozen and shared: do not mutate them. */
export function createEmbeddedReadStore(options: EmbeddedReadStoreOptions = {}): EmbeddedReadStore {
  const engine = new EmbeddedEngine(
    options.file ?? ':memory:',
    options.leanCollections === 'all' ? 'all' : new Set(options.leanCollections),
  );
  return {
    ...storeOn(engine, engine),
    async explain(call: ReadCall): Promise<EmbeddedReadPlan> {
      return engine.explain(engine, call);
    },
    async beginGeneration(collections: string[]): Promise<GenerationStore> {
      // Writes still queued for a generation this one replaces must not land after it dropped them.
      await engine.writerIdle();
      const generation = engine.beginGeneration(collections);
      const settled = () => engine.settled(generation);
      return {
        ...storeOn(engine, generation, settled),
        async get<T extends Doc = Doc>(collection: string, id: DocId): Promise<T | null> {
          const fromTable = engine.byIdFromTable(generation, collection, [id]);
          if (fromTable) return (await fromTable)[0] as T | null;
          await settled();
          return engine.get(generation, collection, id) as T | null;
        },
        async getMany<T extends Doc = Doc>(collection: string, ids: DocId[]): Promise<T[]> {
          const fromTable = engine.byIdFromTable(generation, collection, ids);
          if (fromTable) return (await fromTable).filter((doc) => doc !== null) as T[];
          await settled();
          return engine.getMany(generation, collection, ids) as T[];
        },
        async write(ops: WriteOp[], checkpoints: Checkpoint[] = []): Promise<void> {
          if (engine.queueWrite(generation, ops, checkpoints)) return engine.writerRoom(generation);
          await settled();
          engine.write(generation, ops, checkpoints);
        },
        generation: generation.id,
        async beginGeneration(): Promise<GenerationStore> {
          throw new Error('A generation is begun on the live store, not inside another generation');
        },
        async promote(): Promise<void> {
          await settled();
          engine.promote(generation);
        },
        async discard(): Promise<void> {
          // Whatever became of its writes, the generation is dropped.
          await settled().catch(() => undefined);
          engine.discard(generation);
        },
        /** Releases this view; the connection belongs to the live store, and unpromoted data stays until discarded or replaced. */
        async close(): Promise<void> {
          generation.finished = true;
        },
      };
    },
    async close(): Promise<void> {
      await engine.closeWriter();
      engine.close();
    },
  };
}
