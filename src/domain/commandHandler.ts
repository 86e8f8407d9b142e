import { WrongExpectedRevisionError, type DomainEvent, type EventStore } from '../eventStore/eventStore.js';
import { loadFolded } from './aggregateCache.js';
import type { Aggregate, CommandMeta } from './decider.js';
import { Conflict, NotFound } from './errors.js';
import { claimId, peekNextId, type PeekedId } from './idAllocator.js';
import { assertSlugAvailable, releaseSlug, reserveSlug } from './slugReservations.js';

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

/**
 * Folds the aggregate's stream, continuing the fold this store last made of it (see loadFolded); null when the
 * stream does not exist. The state is frozen: a decision derives a new one.
 */
export async function loadAggregate<State, Event extends DomainEvent>(
  eventStore: EventStore,
  aggregate: Aggregate<State, Event>,
  id: number,
): Promise<LoadedAggregate<State> | null> {
  return loadFolded(eventStore, aggregate, aggregate.streamName(id));
}

interface CommandOptions<State, Event> {
  aggregate: Aggregate<State, Event & DomainEvent>;
  actor: string;
  /**
   * Purposes that need fresh service-allocated ids (e.g. `floorPlan`), each its own id sequence; passed to
   * decide in meta.allocatedIds, and claimed only once decide has accepted the command.
   */
  allocate?: string[];
  decide: (state: State, meta: CommandMeta & { id: number }) => Event[];
}

/**
 * How often a command is decided afresh when other commands keep claiming the ids it was decided with.
 * Every lost race means another command got its id, so only a burst of that many concurrent creates of
 * one resource type exhausts it.
 */
export const MAX_CLAIM_ATTEMPTS = 10;

/** Creates a new aggregate under the next id of its sequence (see execute for when that id is claimed). */
export async function createAggregate<State, Event extends DomainEvent>(
  deps: CommandDeps,
  options: CommandOptions<State, Event> & { idSequence: string },
): Promise<CommandResult<State, Event>> {
  return execute(deps, options, { idSequence: options.idSequence }, { state: options.aggregate.initialState(), revision: null });
}

/**
 * Starts an aggregate whose id is given rather than allocated (one per owner, e.g. a client's
 * subscription): the append expects no stream, so a concurrent start is refused with 409. An expected
 * revision names a stream that does not exist, so it is stale too.
 */
export async function startAggregate<State, Event extends DomainEvent>(
  deps: CommandDeps,
  options: CommandOptions<State, Event> & { id: number; expectedRevision?: number },
): Promise<CommandResult<State, Event>> {
  if (options.expectedRevision !== undefined) throw staleRevision(options.expectedRevision, -1);
  return execute(deps, options, { id: options.id }, { state: options.aggregate.initialState(), revision: null });
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
  return execute(deps, options, { id: options.id }, loaded);
}

/**
 * What a command needs to know from outside its aggregate (does the developer it names exist? is the plan
 * active?), read through a port before deciding and handed to decide as `meta.references`, so decide stays
 * pure. `readReferences` sees the aggregate as read, for rules about the state after the change.
 */
interface ReferencedCommandOptions<State, Event, References> extends Omit<CommandOptions<State, Event>, 'decide'> {
  readReferences(state: State): Promise<References>;
  decide: (state: State, meta: CommandMeta & { id: number; references: References }) => Event[];
}

/** createAggregate for a command whose decide needs references. */
export async function createAggregateWithReferences<State, Event extends DomainEvent, References>(
  deps: CommandDeps,
  options: ReferencedCommandOptions<State, Event, References> & { idSequence: string },
): Promise<CommandResult<State, Event>> {
  const references = await options.readReferences(options.aggregate.initialState());
  return createAggregate(deps, { ...options, decide: (state, meta) => options.decide(state, { ...meta, references }) });
}

/**
 * updateAggregate for a command whose decide needs references. The references are read for the revision
 * the aggregate was read at, and the command is decided on exactly that revision (a concurrent edit in
 * between is refused with 409). A missing aggregate is refused by the decider in its own words.
 */
export async function updateAggregateWithReferences<State, Event extends DomainEvent, References>(
  deps: CommandDeps,
  options: ReferencedCommandOptions<State, Event, References> & { id: number; expectedRevision?: number },
): Promise<CommandResult<State, Event>> {
  const loaded = await loadAggregate(deps.eventStore, options.aggregate, options.id);
  const references = await options.readReferences(loaded?.state ?? options.aggregate.initialState());
  const decide = (state: State, meta: CommandMeta & { id: number }) => options.decide(state, { ...meta, references });
  if (!loaded) {
    decide(options.aggregate.initialState(), { now: deps.clock().toISOString(), actor: options.actor, allocatedIds: {}, id: options.id });
    throw new NotFound(`${options.aggregate.category} ${options.id} does not exist.`);
  }
  const expectedRevision = options.expectedRevision ?? loaded.revision;
  return updateAggregate(deps, { ...options, expectedRevision, decide });
}

/** Claims the peeked ids in turn; false at the first one another command claimed first. */
async function claimAll(eventStore: EventStore, peeked: readonly PeekedId[]): Promise<boolean> {
  for (const id of peeked) {
    if (!(await claimId(eventStore, id))) return false;
  }
  return true;
}

/**
 * All or nothing: a command refused for any reason but a lost race appends nothing. The ids it needs (the
 * aggregate's own for a create, one per `allocate` purpose) are peeked, not allocated; the decider runs
 * with them; a new slug is checked (SLUG_TAKEN without a write); only then is each id claimed, by an
 * append that expects its sequence as peeked. When another command claimed one first, the decision was
 * made with an id that is not ours, so the command is decided again with fresh ids, at most
 * MAX_CLAIM_ATTEMPTS times (then 409 CONFLICT). The slug is reserved after the claims, so a reservation
 * always names an id its command owns (see reserveSlug on orphans); then the events are appended.
 *
 * Only a race with a concurrent command can leave a write of a command that ends refused:
 * - another resource took the slug between the check and the reservation: 409 SLUG_TAKEN, and the ids
 *   claimed stay unused (ids are never reused);
 * - the aggregate changed between read and append: 409 CONFLICT, the ids claimed stay unused and the new
 *   slug's reservation is released again (SlugReleased);
 * - a command that needs several ids and loses the race for a later one keeps the earlier ones claimed
 *   while it is decided again (no command needs more than one today).
 */
async function execute<State, Event extends DomainEvent>(
  deps: CommandDeps,
  options: CommandOptions<State, Event>,
  target: { id: number } | { idSequence: string },
  current: { state: State; revision: number | null },
): Promise<CommandResult<State, Event>> {
  const { aggregate } = options;
  const sequences = ['idSequence' in target ? [target.idSequence] : [], options.allocate ?? []].flat();
  if (new Set(sequences).size !== sequences.length)
    throw new Error(`A command cannot take two ids of one sequence: ${sequences.join(', ')}.`);
  const now = deps.clock().toISOString();
  const ownerExists = async (ownerId: number) => (await deps.eventStore.readStream(aggregate.streamName(ownerId))).length > 0;

  for (let attempt = 1; ; attempt++) {
    const peeked = await Promise.all(sequences.map((sequence) => peekNextId(deps.eventStore, sequence)));
    const id = 'id' in target ? target.id : peeked[0]!.id;
    const purposePeeks = 'id' in target ? peeked : peeked.slice(1);
    const allocatedIds = Object.fromEntries(purposePeeks.map((purpose) => [purpose.resourceType, purpose.id]));
    const meta = { now, actor: options.actor, allocatedIds, id };
    const events = options.decide(current.state, meta);
    const state = events.reduce((folded, event) => aggregate.evolve(folded, event), current.state);
    if (events.length === 0) {
      if (current.revision === null) throw new Error(`A create command for ${aggregate.category} emitted no event.`);
      return { id, revision: current.revision, state, events };
    }

    const slugBefore = aggregate.slug?.of(current.state);
    const slugAfter = aggregate.slug?.of(state);
    const newSlug =
      aggregate.slug && slugAfter !== undefined && slugAfter !== slugBefore
        ? { resourceType: aggregate.slug.resourceType, slug: slugAfter, resourceId: id }
        : null;
    if (newSlug) await assertSlugAvailable(deps.eventStore, newSlug, ownerExists, aggregate.slug!.field);

    if (!(await claimAll(deps.eventStore, peeked))) {
      if (attempt < MAX_CLAIM_ATTEMPTS) continue;
      throw new Conflict('Other commands kept taking the ids this one needs; retry.');
    }
    if (newSlug) await reserveSlug(deps.eventStore, newSlug, ownerExists, aggregate.slug!.field);

    let revision: number;
    try {
      const appended = await deps.eventStore.appendToStream(
        aggregate.streamName(id),
        events.map((event) => ({ type: event.type, data: event.data, metadata: { actor: meta.actor, at: meta.now } })),
        { expectedRevision: current.revision ?? 'no_stream' },
      );
      revision = appended.nextExpectedRevision;
    } catch (error) {
      if (newSlug) await releaseSlug(deps.eventStore, newSlug);
      if (error instanceof WrongExpectedRevisionError) {
        throw staleRevision(current.revision ?? -1, typeof error.actual === 'number' ? error.actual : -1);
      }
      throw error;
    }

    // A slug replaced, or removed (a client's account token set to null), is free for others again.
    if (aggregate.slug && slugBefore !== undefined && slugAfter !== slugBefore) {
      await releaseSlug(deps.eventStore, { resourceType: aggregate.slug.resourceType, slug: slugBefore, resourceId: id });
    }
    return { id, revision, state, events };
  }
}

export function staleRevision(expected: number, actual: number): Conflict {
  return new Conflict('The resource was changed by someone else; reload it and retry.', {
    expected_revision: expected,
    current_revision: actual,
  });
}
