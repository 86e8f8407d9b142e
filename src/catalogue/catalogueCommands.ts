import type { CommandDeps, CommandResult } from '../domain/commandHandler.js';
import { createWithSlice, updateWithSlice, type CommandSlice, type FactsReader } from '../domain/commandSlice.js';
import type { Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';
import {
  eventStoreCatalogueReferences,
  noCatalogueFacts,
  readCatalogueFacts,
  type CatalogueFacts,
  type CatalogueLookup,
} from './catalogueReferences.js';
import type { StoredFiles } from './storedFiles.js';

/** A catalogue command slice: it looks up states, communities, developers, ... through CatalogueReferences. */
export type CatalogueSlice<Command, State, Event> = CommandSlice<Command, State, Event, CatalogueLookup, CatalogueFacts>;

/** What a catalogue command runs on: the event store, the clock, and what the blob store holds. */
export interface CatalogueDeps extends CommandDeps {
  storedFiles: StoredFiles;
}

function catalogueFactsReader(deps: CatalogueDeps): FactsReader<CatalogueLookup, CatalogueFacts> {
  const port = eventStoreCatalogueReferences(deps.eventStore, deps.storedFiles);
  return { read: (lookup) => readCatalogueFacts(port, lookup), none: noCatalogueFacts };
}

interface CatalogueCommand<Command, State, Event extends DomainEvent> {
  aggregate: Aggregate<State, Event>;
  actor: string;
  command: Command;
  slice: CatalogueSlice<Command, State, Event>;
}

/** Creates a catalogue resource under the next id of its aggregate's sequence. */
export function createCatalogueResource<Command, State, Event extends DomainEvent>(
  deps: CatalogueDeps,
  command: CatalogueCommand<Command, State, Event>,
): Promise<CommandResult<State, Event>> {
  return createWithSlice(deps, catalogueFactsReader(deps), command);
}

/** Runs a command on an existing catalogue resource (see updateAggregate for If-Match and races). */
export function updateCatalogueResource<Command, State, Event extends DomainEvent>(
  deps: CatalogueDeps,
  command: CatalogueCommand<Command, State, Event> & { id: number; expectedRevision?: number; allocate?: string[] },
): Promise<CommandResult<State, Event>> {
  return updateWithSlice(deps, catalogueFactsReader(deps), command);
}
