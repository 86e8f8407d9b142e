import type { DomainEvent } from '../eventStore/eventStore.js';
import {
  createAggregate,
  createAggregateWithReferences,
  staleRevision,
  startAggregate,
  updateAggregate,
  updateAggregateWithReferences,
  type CommandDeps,
  type CommandResult,
} from './commandHandler.js';
import type { Aggregate, CommandMeta } from './decider.js';

/**
 * One command as its file in commands/ defines it: the pure `decide` and, when decide judges something outside
 * its aggregate (does the developer exist? is the plan active?), `references`: what to look up, as plain
 * values. The handler reads the answers through a port (a FactsReader) and hands them to decide as
 * meta.references, so every rule of the command is in decide and decide stays pure.
 */
export interface CommandSlice<Command, State, Event, Lookup, Facts> {
  decide(command: Command, state: State, meta: CommandMeta & { id: number; references: Facts }): Event[];
  references?(command: Command, state: State): Lookup;
}

/** Answers a slice's lookup through a port; `none` is what a slice without references is given. */
export interface FactsReader<Lookup, Facts> {
  read(lookup: Lookup): Promise<Facts>;
  readonly none: Facts;
}

interface SliceCommand<Command, State, Event extends DomainEvent, Lookup, Facts> {
  aggregate: Aggregate<State, Event>;
  actor: string;
  command: Command;
  slice: CommandSlice<Command, State, Event, Lookup, Facts>;
  /** Purposes of fresh ids the command needs (see updateAggregate). */
  allocate?: string[];
}

type OnExisting = { id: number; expectedRevision?: number };

function baseOptions<Command, State, Event extends DomainEvent, Lookup, Facts>(
  command: SliceCommand<Command, State, Event, Lookup, Facts>,
) {
  return {
    aggregate: command.aggregate,
    actor: command.actor,
    ...(command.allocate ? { allocate: command.allocate } : {}),
  };
}

/** Creates an aggregate under the next id of its sequence by running the slice. */
export function createWithSlice<Command, State, Event extends DomainEvent, Lookup, Facts>(
  deps: CommandDeps,
  facts: FactsReader<Lookup, Facts>,
  command: SliceCommand<Command, State, Event, Lookup, Facts>,
): Promise<CommandResult<State, Event>> {
  const { slice } = command;
  const options = { ...baseOptions(command), idSequence: command.aggregate.category };
  const { references } = slice;
  if (!references) {
    return createAggregate(deps, {
      ...options,
      decide: (state, meta) => slice.decide(command.command, state, { ...meta, references: facts.none }),
    });
  }
  return createAggregateWithReferences(deps, {
    ...options,
    readReferences: (state) => facts.read(references(command.command, state)),
    decide: (state, meta) => slice.decide(command.command, state, meta),
  });
}

/** Runs the slice on an existing aggregate (see updateAggregate for If-Match and races). */
export function updateWithSlice<Command, State, Event extends DomainEvent, Lookup, Facts>(
  deps: CommandDeps,
  facts: FactsReader<Lookup, Facts>,
  command: SliceCommand<Command, State, Event, Lookup, Facts> & OnExisting,
): Promise<CommandResult<State, Event>> {
  const { slice } = command;
  const options = {
    ...baseOptions(command),
    id: command.id,
    ...(command.expectedRevision === undefined ? {} : { expectedRevision: command.expectedRevision }),
  };
  const { references } = slice;
  if (!references) {
    return updateAggregate(deps, {
      ...options,
      decide: (state, meta) => slice.decide(command.command, state, { ...meta, references: facts.none }),
    });
  }
  return updateAggregateWithReferences(deps, {
    ...options,
    readReferences: (state) => facts.read(references(command.command, state)),
    decide: (state, meta) => slice.decide(command.command, state, meta),
  });
}

/**
 * Starts an aggregate whose id is given (see startAggregate). An If-Match names a revision of a stream that
 * does not exist, so it is stale; but a command the decider refuses anyway (its client does not exist, say)
 * is refused in the decider's words first.
 */
export async function startWithSlice<Command, State, Event extends DomainEvent, Lookup, Facts>(
  deps: CommandDeps,
  facts: FactsReader<Lookup, Facts>,
  command: SliceCommand<Command, State, Event, Lookup, Facts> & OnExisting,
): Promise<CommandResult<State, Event>> {
  const { slice } = command;
  const initial = command.aggregate.initialState();
  const references = slice.references ? await facts.read(slice.references(command.command, initial)) : facts.none;
  const decide = (state: State, meta: CommandMeta & { id: number }) => slice.decide(command.command, state, { ...meta, references });
  if (command.expectedRevision !== undefined) {
    decide(initial, { now: deps.clock().toISOString(), actor: command.actor, allocatedIds: {}, id: command.id });
    throw staleRevision(command.expectedRevision, -1);
  }
  return startAggregate(deps, { ...baseOptions(command), id: command.id, decide });
}

/** A PUT of an aggregate whose id is its owner's (a client's subscription): started when it has no stream yet. */
export async function putWithSlice<Command, State, Event extends DomainEvent, Lookup, Facts>(
  deps: CommandDeps,
  facts: FactsReader<Lookup, Facts>,
  command: SliceCommand<Command, State, Event, Lookup, Facts> & OnExisting,
): Promise<CommandResult<State, Event>> {
  const exists = (await deps.eventStore.readStream(command.aggregate.streamName(command.id))).length > 0;
  return exists ? updateWithSlice(deps, facts, command) : startWithSlice(deps, facts, command);
}
