import { WrongExpectedRevisionError, type EventStore } from '../eventStore/eventStore.js';
import type { Doc, DocId, Filter, FindOptions, GenerationStore, ReadStore, SequenceRange } from '../readStore/readStore.js';
import { forwardEventStore, forwardGenerationStore, forwardReadStore } from './forwardingStores.js';
import type { ServiceMetrics } from './serviceMetrics.js';

const secondsSince = (started: number) => (performance.now() - started) / 1000;

/** Append latency by outcome; every other call goes straight through. */
export function instrumentEventStore(inner: EventStore, metrics: ServiceMetrics): EventStore {
  // Label children made once: the request path pays an observe, not a label lookup.
  const ok = metrics.eventStoreAppendDuration.labels('ok');
  const conflict = metrics.eventStoreAppendDuration.labels('conflict');
  const failed = metrics.eventStoreAppendDuration.labels('error');
  const timed = <T>(started: number, appended: Promise<T>): Promise<T> =>
    appended.then(
      (result) => {
        ok.observe(secondsSince(started));
        return result;
      },
      (error: unknown) => {
        (error instanceof WrongExpectedRevisionError ? conflict : failed).observe(secondsSince(started));
        throw error;
      },
    );
  return {
    ...forwardEventStore(inner),
    appendToStream: (streamName, events, options) => timed(performance.now(), inner.appendToStream(streamName, events, options)),
    // A multi-stream append is one write to the store (one transaction in the embedded one): observed as one append.
    appendToStreams: (appends) => timed(performance.now(), inner.appendToStreams(appends)),
  };
}

const READ_STORE_OPERATIONS = ['find', 'get', 'get_many', 'find_one', 'read_sequence', 'write', 'get_checkpoint'] as const;
type ReadStoreOperation = (typeof READ_STORE_OPERATIONS)[number];

/**
 * Latency and failures of the read store's calls by operation, and the progress of blue/green rebuilds run
 * through it (the checkpoints a generation writes, per projection, until it is promoted or discarded).
 * `projectionOf` names the projection a checkpoint belongs to.
 */
export function instrumentReadStore(
  inner: ReadStore,
  metrics: ServiceMetrics,
  projectionOf: (checkpoint: string) => string | undefined,
): ReadStore {
  // Series and label children made once: a read pays a bucket search, not a label lookup.
  const durations = Object.fromEntries(READ_STORE_OPERATIONS.map((operation) => [operation, metrics.readStoreDuration.series(operation)]));
  const errors = Object.fromEntries(READ_STORE_OPERATIONS.map((operation) => [operation, metrics.readStoreErrors.labels(operation)]));
  const timed = <T>(operation: ReadStoreOperation, started: number, pending: Promise<T>): Promise<T> =>
    pending.then(
      (value) => {
        durations[operation]!.observe(secondsSince(started));
        return value;
      },
      (error: unknown) => {
        durations[operation]!.observe(secondsSince(started));
        errors[operation]!.inc();
        throw error;
      },
    );
  return {
    ...forwardReadStore(inner),
    find<T extends Doc = Doc>(collection: string, options?: FindOptions) {
      const started = performance.now();
      return timed('find', started, inner.find<T>(collection, options));
    },
    get<T extends Doc = Doc>(collection: string, id: DocId) {
      const started = performance.now();
      return timed('get', started, inner.get<T>(collection, id));
    },
    getMany<T extends Doc = Doc>(collection: string, ids: DocId[]) {
      const started = performance.now();
      return timed('get_many', started, inner.getMany<T>(collection, ids));
    },
    findOne<T extends Doc = Doc>(collection: string, filter: Filter) {
      const started = performance.now();
      return timed('find_one', started, inner.findOne<T>(collection, filter));
    },
    readSequence<T extends Doc = Doc>(collection: string, range: SequenceRange) {
      const started = performance.now();
      return timed('read_sequence', started, inner.readSequence<T>(collection, range));
    },
    write(ops, checkpoints) {
      const started = performance.now();
      return timed('write', started, inner.write(ops, checkpoints));
    },
    getCheckpoint(name) {
      const started = performance.now();
      return timed('get_checkpoint', started, inner.getCheckpoint(name));
    },
    async beginGeneration(collections) {
      return trackRebuild(await inner.beginGeneration(collections), metrics, projectionOf);
    },
  };
}

/**
 * A rebuild's generation: each checkpoint it writes sets its projection's rebuild position; promoting or
 * discarding it removes them again. Its reads and writes are not timed: they are the rebuild's own work,
 * whose pace the position shows, and timing them would mix it into the serving side's latency.
 */
function trackRebuild(
  generation: GenerationStore,
  metrics: ServiceMetrics,
  projectionOf: (checkpoint: string) => string | undefined,
): GenerationStore {
  const rebuilding = new Set<string>();
  const finished = () => {
    for (const projection of rebuilding) metrics.rebuildCheckpoint.remove(projection);
    rebuilding.clear();
  };
  return {
    ...forwardGenerationStore(generation),
    async write(ops, checkpoints) {
      await generation.write(ops, checkpoints);
      for (const checkpoint of checkpoints ?? []) {
        const projection = projectionOf(checkpoint.name);
        if (projection === undefined) continue;
        rebuilding.add(projection);
        metrics.rebuildCheckpoint.set({ projection }, Number(checkpoint.position));
      }
    },
    async promote() {
      await generation.promote();
      finished();
    },
    async discard() {
      try {
        await generation.discard();
      } finally {
        finished();
      }
    },
  };
}
