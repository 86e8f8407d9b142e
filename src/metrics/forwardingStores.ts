import type { EventStore, LogReadAhead, NewEvent } from '../eventStore/eventStore.js';
import type { Doc, DocId, FindOptions, Filter, GenerationStore, ReadStore, SequenceRange } from '../readStore/readStore.js';

/**
 * A read store that hands every call to `inner`: the base of the decorators here, which replace the calls
 * they observe and keep the others. Written out call by call (no Proxy), so a forwarded call costs one
 * function call and a method added to the port is a type error here until it is forwarded too.
 */
export function forwardReadStore(inner: ReadStore): ReadStore {
  return {
    ensureIndexes: (collection, indexes) => inner.ensureIndexes(collection, indexes),
    find: <T extends Doc = Doc>(collection: string, options?: FindOptions) => inner.find<T>(collection, options),
    get: <T extends Doc = Doc>(collection: string, id: DocId) => inner.get<T>(collection, id),
    getMany: <T extends Doc = Doc>(collection: string, ids: DocId[]) => inner.getMany<T>(collection, ids),
    findOne: <T extends Doc = Doc>(collection: string, filter: Filter) => inner.findOne<T>(collection, filter),
    readSequence: <T extends Doc = Doc>(collection: string, range: SequenceRange) => inner.readSequence<T>(collection, range),
    write: (ops, checkpoints) => inner.write(ops, checkpoints),
    getCheckpoint: (name) => inner.getCheckpoint(name),
    beginGeneration: (collections) => inner.beginGeneration(collections),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

/** The same for a blue/green generation, whose name and promote/discard come along. */
export function forwardGenerationStore(inner: GenerationStore): GenerationStore {
  return {
    ...forwardReadStore(inner),
    generation: inner.generation,
    promote: () => inner.promote(),
    discard: () => inner.discard(),
  };
}

/**
 * An event store that hands every call to `inner`, keeping the read-ahead of the log a rebuild uses where
 * `inner` has it (see LogReadAhead): a decorator must not make a rebuild slower.
 */
export function forwardEventStore(inner: EventStore): EventStore {
  const forwarded: EventStore = {
    appendToStream: (streamName, events, options) => inner.appendToStream(streamName, events, options),
    appendToStreams: (appends) => inner.appendToStreams(appends),
    // The inner function itself (no adapter's uses `this`): the aggregate cache keys its folds by it, so that the
    // decorators share them (src/domain/aggregateCache.ts).
    readStream: inner.readStream,
    streamRevision: (streamName) => inner.streamRevision(streamName),
    readAll: (options) => inner.readAll(options),
    headPosition: () => inner.headPosition(),
    subscribeToAll: (options) => inner.subscribeToAll(options),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  const readsAhead = inner as EventStore & Partial<LogReadAhead>;
  if (!readsAhead.readAllAhead) return forwarded;
  const readAllAhead: LogReadAhead['readAllAhead'] = (options) => readsAhead.readAllAhead!(options);
  const withReadAhead: EventStore & LogReadAhead = { ...forwarded, readAllAhead };
  return withReadAhead;
}

/**
 * The event store with every appended event passed through `rewrite` first, by both append calls alike (the
 * actor of an admin write, the import's ordered ids): a decorator that changes what is appended cannot miss one.
 */
export function rewritingAppendedEvents(inner: EventStore, rewrite: (event: NewEvent) => NewEvent): EventStore {
  const rewritten = (events: NewEvent[]) => events.map(rewrite);
  return {
    ...forwardEventStore(inner),
    appendToStream: (streamName, events, options) => inner.appendToStream(streamName, rewritten(events), options),
    appendToStreams: (appends) => inner.appendToStreams(appends.map((append) => ({ ...append, events: rewritten(append.events) }))),
  };
}
