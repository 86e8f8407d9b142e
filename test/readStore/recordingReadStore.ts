import { forwardReadStore } from '../../src/metrics/forwardingStores.js';
import type { ReadCall } from '../../src/readStore/readCall.js';
import type { Doc, DocId, Filter, FindOptions, IndexSpec, ReadStore, SequenceRange } from '../../src/readStore/readStore.js';

export interface ReadRecording {
  /** Hand this to the service: it forwards every call to the recorded store. */
  store: ReadStore;
  /** The indexes declared through `store`, by collection, as declared (whether recording or not). */
  declared: ReadonlyMap<string, readonly IndexSpec[]>;
  /** Records the reads made from now on, until `stop`. */
  start(): void;
  /** The reads recorded since `start`, in the order they were made. */
  stop(): ReadCall[];
}

/**
 * A read store that remembers the reads made through it while recording: collection, filter, sort,
 * skip/limit and text of each `find`, the filter of each `findOne`, the ids of each `get` and `getMany`, the
 * range of each `readSequence`.
 * Writes and checkpoints pass through unrecorded.
 */
export function recordReads(inner: ReadStore): ReadRecording {
  const declared = new Map<string, IndexSpec[]>();
  let calls: ReadCall[] | null = null;
  const record = (call: ReadCall) => calls?.push(structuredClone(call));
  const store: ReadStore = {
    ...forwardReadStore(inner),
    async ensureIndexes(collection: string, indexes: IndexSpec[]) {
      await inner.ensureIndexes(collection, indexes);
      const known = declared.get(collection) ?? [];
      for (const index of indexes) if (!known.some((spec) => JSON.stringify(spec) === JSON.stringify(index))) known.push(index);
      declared.set(collection, known);
    },
    find<T extends Doc = Doc>(collection: string, options: FindOptions = {}) {
      record({ method: 'find', collection, options });
      return inner.find<T>(collection, options);
    },
    findOne<T extends Doc = Doc>(collection: string, filter: Filter) {
      record({ method: 'findOne', collection, filter });
      return inner.findOne<T>(collection, filter);
    },
    get<T extends Doc = Doc>(collection: string, id: DocId) {
      record({ method: 'get', collection, id });
      return inner.get<T>(collection, id);
    },
    getMany<T extends Doc = Doc>(collection: string, ids: DocId[]) {
      record({ method: 'getMany', collection, ids });
      return inner.getMany<T>(collection, ids);
    },
    readSequence<T extends Doc = Doc>(collection: string, range: SequenceRange) {
      record({ method: 'readSequence', collection, range });
      return inner.readSequence<T>(collection, range);
    },
  };
  return {
    store,
    declared,
    start() {
      calls = [];
    },
    stop() {
      const recorded = calls ?? [];
      calls = null;
      return recorded;
    },
  };
}
