import type { DomainEvent, EventStore, RecordedEvent } from '../eventStore/eventStore.js';
import type { Aggregate } from './decider.js';

/**
 * How many streams' folded states one event store keeps. A demo project's state holds about 8 KB of heap (5 KB
 * as JSON), so 2,000 take some 16 MB, a few times that for larger projects; and 2,000 cover what the demo seed
 * goes back to (it attaches brochures to the last 1,000 projects at a time) and what editors return to.
 */
export const CACHED_STREAMS = 2_000;

export interface FoldedStream<State> {
  state: State;
  /** Revision of the last event folded into state. */
  revision: number;
}

interface CachedFold {
  aggregate: Aggregate<unknown, DomainEvent>;
  state: unknown;
  revision: number;
  /** The id of the event at `revision`: the stream read again must still have it there. */
  lastEventId: string;
}

type ReadStream = EventStore['readStream'];

/**
 * Keyed by the function that reads streams, not by the store object: the decorators that leave reads alone
 * (metrics, the acting editor, the appended-position recorder, made per request) hand on the adapter's own
 * readStream, so they share its folds; one that changes what a read returns (the history's as_of view) has its
 * own function, hence its own folds; and two stores, even on one file, never share one.
 */
const foldsByReader = new WeakMap<ReadStream, Map<string, CachedFold>>();

/**
 * The aggregate's stream folded with `evolve`, reading only the events after the fold this store last made of
 * it; null when the stream does not exist. The read starts at the cached revision itself, and the fold is
 * continued only if that event is still the one folded last: a stream that is shorter, or was written anew
 * under the same name, is read and folded in full. Events appended since, by any process, are folded on.
 *
 * The states are shared by every load of the stream, so they are frozen (deeply): a caller that writes to
 * one throws instead of changing what the next command is decided on.
 */
export async function loadFolded<State, Event extends DomainEvent>(
  eventStore: EventStore,
  aggregate: Aggregate<State, Event>,
  streamName: string,
): Promise<FoldedStream<State> | null> {
  const folds = foldsOf(eventStore.readStream);
  const cached = folds.get(streamName);
  if (cached?.aggregate === aggregate) {
    const tail = await eventStore.readStream(streamName, { fromRevision: cached.revision });
    const [first] = tail;
    if (first?.revision === cached.revision && first.id === cached.lastEventId) {
      return remember(folds, streamName, aggregate, foldOnto(aggregate, cached.state as State, tail, 1), tail.at(-1)!);
    }
  }
  folds.delete(streamName);
  const events = await eventStore.readStream(streamName);
  const last = events.at(-1);
  if (!last) return null;
  return remember(folds, streamName, aggregate, foldOnto(aggregate, aggregate.initialState(), events, 0), last);
}

function foldsOf(readStream: ReadStream): Map<string, CachedFold> {
  let folds = foldsByReader.get(readStream);
  if (!folds) {
    folds = new Map();
    foldsByReader.set(readStream, folds);
  }
  return folds;
}

function foldOnto<State, Event extends DomainEvent>(
  aggregate: Aggregate<State, Event>,
  state: State,
  events: readonly RecordedEvent[],
  from: number,
): State {
  let folded = state;
  for (let index = from; index < events.length; index++) folded = aggregate.evolve(folded, events[index] as unknown as Event);
  return folded;
}

/** Stores the fold as the stream's most recently used (a Map iterates in insertion order), evicting the least. */
function remember<State, Event extends DomainEvent>(
  folds: Map<string, CachedFold>,
  streamName: string,
  aggregate: Aggregate<State, Event>,
  state: State,
  last: RecordedEvent,
): FoldedStream<State> {
  freezeDeep(state);
  folds.delete(streamName);
  folds.set(streamName, { aggregate: aggregate as Aggregate<unknown, DomainEvent>, state, revision: last.revision, lastEventId: last.id });
  if (folds.size > CACHED_STREAMS) folds.delete(folds.keys().next().value!);
  return { state, revision: last.revision };
}

/**
 * Freezes what is not frozen yet. evolve copies only what an event changes, so the rest of a state is the
 * previous fold's, already frozen, and is not walked again: the cost is that of the new events' data.
 */
export function freezeDeep(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) freezeDeep(child);
}
