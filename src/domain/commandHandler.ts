import { WrongExpectedRevisionError, type DomainEvent, type EventStore } from '../eventStore/eventStore.js';
import type { Aggregate, CommandMeta } from './decider.js';
import { Conflict, NotFound } from './errors.js';
import { allocateId } from './idAllocator.js';
import { releaseSlug, reserveSlug } from './slugReservations.js';

export interface CommandDeps {
  eventStore: EventStore;
  clock: () => Date;
}

export interface CommandResult<State, Event> {
  id: number;
  /** Stream revision after the command (unchanged when the decider emitted nothing). */
  revision: number;
  state: State;
  events: Event[];
}

export interface LoadedAggregate<State> {
  state: State;
  revision: number;
}

/** Folds the aggregate's stream; null when the stream does not exist. */
export async function loadAggregate<State, Event extends DomainEvent>(
  eventStore: EventStore,
  aggregate: Aggregate<State, Event>,
  id: number,
): Promise<LoadedAggregate<State> | null> {
  const events = await eventStore.readStream(aggregate.streamName(id));
  const last = events.at(-1);
  if (!last) return null;
  let state = aggregate.initialState();
  for (const event of events) state = aggregate.evolve(state, event as unknown as Event);
  return { state, revision: last.revision };
}

interface CommandOptions<State, Event> {
  aggregate: Aggregate<State, Event & DomainEvent>;
  actor: string;
  /** Purposes that need fresh service-allocated ids (e.g. `floorPlan`); passed to decide in meta.allocatedIds. */
  allocate?: string[];
  decide: (state: State, meta: CommandMeta & { id: number }) => Event[];
}

/** Creates a new aggregate: allocates its id, decides on the initial state, reserves its slug, appends. */
export async function createAggregate<State, Event extends DomainEvent>(
  deps: CommandDeps,
  options: CommandOptions<State, Event> & { idSequence: string },
): Promise<CommandResult<State, Event>> {
  const id = await allocateId(deps.eventStore, options.idSequence);
  return execute(deps, options, id, { state: options.aggregate.initialState(), revision: null });
}

/**
 * Starts an aggregate whose id is given rather than allocated (one per owner, e.g. a client's
 * subscription): the append expects no stream, so a concurrent start is refused with 409.
 */
export async function startAggregate<State, Event extends DomainEvent>(
  deps: CommandDeps,
  options: CommandOptions<State, Event> & { id: number },
): Promise<CommandResult<State, Event>> {
  return execute(deps, options, options.id, { state: options.aggregate.initialState(), revision: null });
}

/**
 * Runs a command against an existing aggregate. `expectedRevision` (from If-Match) must equal the
 * current revision; in any case the append expects the revision that was read, so a concurrent edit
 * between read and append is refused with 409 and nothing is written.
 */
export async function updateAggregate<State, Event extends DomainEvent>(
  deps: CommandDeps,
  options: CommandOptions<State, Event> & { id: number; expectedRevision?: number },
): Promise<CommandResult<State, Event>> {
  const loaded = await loadAggregate(deps.eventStore, options.aggregate, options.id);
  if (!loaded) throw new NotFound(`${options.aggregate.category} ${options.id} does not exist.`);
  if (options.expectedRevision !== undefined && options.expectedRevision !== loaded.revision) {
    throw staleRevision(options.expectedRevision, loaded.revision);
  }
  return execute(deps, options, options.id, loaded);
}

async function execute<State, Event extends DomainEvent>(
  deps: CommandDeps,
  options: CommandOptions<State, Event>,
  id: number,
  current: { state: State; revision: number | null },
): Promise<CommandResult<State, Event>> {
  const { aggregate } = options;
  const allocatedIds: Record<string, number> = {};
  for (const purpose of options.allocate ?? []) allocatedIds[purpose] = await allocateId(deps.eventStore, purpose);
  const meta = { now: deps.clock().toISOString(), actor: options.actor, allocatedIds, id };
  const events = options.decide(current.state, meta);
  const state = events.reduce((folded, event) => aggregate.evolve(folded, event), current.state);
  if (events.length === 0) {
    if (current.revision === null) throw new Error(`A create command for ${aggregate.category} emitted no event.`);
    return { id, revision: current.revision, state, events };
  }

  const slugBefore = aggregate.slug?.of(current.state);
  const slugAfter = aggregate.slug?.of(state);
  const slugChanged = aggregate.slug && slugAfter !== undefined && slugAfter !== slugBefore;
  const ownerExists = async (ownerId: number) =>
    (await deps.eventStore.readStream(aggregate.streamName(ownerId))).length > 0;
  if (slugChanged) {
    await reserveSlug(
      deps.eventStore,
      { resourceType: aggregate.slug!.resourceType, slug: slugAfter, resourceId: id },
      ownerExists,
      aggregate.slug!.field,
    );
  }

  let revision: number;
  try {
    const appended = await deps.eventStore.appendToStream(
      aggregate.streamName(id),
      events.map((event) => ({ type: event.type, data: event.data, metadata: { actor: meta.actor, at: meta.now } })),
      { expectedRevision: current.revision ?? 'no_stream' },
    );
    revision = appended.nextExpectedRevision;
  } catch (error) {
    if (slugChanged) {
      await releaseSlug(deps.eventStore, { resourceType: aggregate.slug!.resourceType, slug: slugAfter, resourceId: id });
    }
    if (error instanceof WrongExpectedRevisionError) {
      throw staleRevision(current.revision ?? -1, typeof error.actual === 'number' ? error.actual : -1);
    }
    throw error;
  }

  if (slugChanged && slugBefore !== undefined) {
    await releaseSlug(deps.eventStore, { resourceType: aggregate.slug!.resourceType, slug: slugBefore, resourceId: id });
  }
  return { id, revision, state, events };
}

export function staleRevision(expected: number, actual: number): Conflict {
  return new Conflict('The resource was changed by someone else; reload it and retry.', {
    expected_revision: expected,
    current_revision: actual,
  });
}
