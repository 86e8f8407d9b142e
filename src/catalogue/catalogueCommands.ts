import {
  createAggregate,
  createAggregateWithReferences,
  updateAggregate,
  updateAggregateWithReferences,
  type CommandDeps,
  type CommandResult,
} from '../domain/commandHandler.js';
import type { Aggregate, CommandMeta } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';
import {
  eventStoreCatalogueReferences,
  noCatalogueFacts,
  readCatalogueFacts,
  type CatalogueFacts,
  type CatalogueLookup,
} from './catalogueReferences.js';

/**
 * A catalogue command slice (one file in commands/): its pure decide and, when decide judges resources outside
 * its aggregate, `references`, the ids it needs facts about. The handler reads those facts through the
 * CatalogueReferences port and hands them to decide as meta.references.
 */
export interface CatalogueSlice<Command, State, Event> {
  decide(command: Command, state: State, meta: CommandMeta & { id: number; references: CatalogueFacts }): Event[];
  references?(command: Command, state: State): CatalogueLookup;
}

interface CatalogueCommand<Command, State, Event extends DomainEvent> {
  aggregate: Aggregate<State, Event>;
  actor: string;
  command: Command;
  slice: CatalogueSlice<Command, State, Event>;
}

/** Creates a catalogue resource under the next id of its aggregate's sequence. */
export function createCatalogueResource<Command, State, Event extends DomainEvent>(
  deps: CommandDeps,
  { aggregate, actor, command, slice }: CatalogueCommand<Command, State, Event>,
): Promise<CommandResult<State, Event>> {
  const options = { aggregate, idSequence: aggregate.category, actor };
  const { references } = slice;
  if (!references) {
    return createAggregate(deps, { ...options, decide: (state, meta) => slice.decide(command, state, { ...meta, references: noCatalogueFacts }) });
  }
  return createAggregateWithReferences(deps, {
    ...options,
    readReferences: (state) => readCatalogueFacts(eventStoreCatalogueReferences(deps.eventStore), references(command, state)),
    decide: (state, meta) => slice.decide(command, state, meta),
  });
}

/** Runs a command on an existing catalogue resource (see updateAggregate for If-Match and races). */
export function updateCatalogueResource<Command, State, Event extends DomainEvent>(
  deps: CommandDeps,
  command: CatalogueCommand<Command, State, Event> & { id: number; expectedRevision?: number; allocate?: string[] },
): Promise<CommandResult<State, Event>> {
  const { slice } = command;
  const options = {
    aggregate: command.aggregate,
    id: command.id,
    actor: command.actor,
    ...(command.expectedRevision === undefined ? {} : { expectedRevision: command.expectedRevision }),
    ...(command.allocate ? { allocate: command.allocate } : {}),
  };
  const { references } = slice;
  if (!references) {
    return updateAggregate(deps, {
      ...options,
      decide: (state, meta) => slice.decide(command.command, state, { ...meta, references: noCatalogueFacts }),
    });
  }
  return updateAggregateWithReferences(deps, {
    ...options,
    readReferences: (state) => readCatalogueFacts(eventStoreCatalogueReferences(deps.eventStore), references(command.command, state)),
    decide: (state, meta) => slice.decide(command.command, state, meta),
  });
}
