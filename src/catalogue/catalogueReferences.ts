import { loadAggregate } from '../domain/commandHandler.js';
import { ValidationFailed } from '../domain/errors.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { communityAggregate } from './community.js';
import { developerAggregate } from './developer.js';
import { projectAggregate } from './project.js';
import { stateAggregate } from './state.js';
import { noStoredFiles, type StoredFileFacts, type StoredFiles } from './storedFiles.js';
import { subCommunityAggregate } from './subCommunity.js';
import { unitTypeAggregate } from './unitType.js';

/**
 * The port through which a catalogue command learns about the resources it names outside its own aggregate.
 * Only the handler uses it; deciders get what it answered as CatalogueFacts (plain values), so they stay pure.
 */
export interface CatalogueReferences {
  stateExists(id: number): Promise<boolean>;
  community(id: number): Promise<{ state_id: number } | null>;
  subCommunity(id: number): Promise<{ community_id: number } | null>;
  developerExists(id: number): Promise<boolean>;
  unitTypeExists(id: number): Promise<boolean>;
  /** The project exists and is not deleted (a deleted project has left the catalogue). */
  projectInCatalogue(id: number): Promise<boolean>;
  /** What the blob store holds under a stored file's key (see src/catalogue/storedFiles.ts). */
  storedFile(key: string): Promise<StoredFileFacts | null>;
}

/** The ids a command will look at, by kind; a slice's `references(command, state)` names them. */
export interface CatalogueLookup {
  states?: readonly number[];
  communities?: readonly number[];
  subCommunities?: readonly number[];
  developers?: readonly number[];
  unitTypes?: readonly number[];
  projects?: readonly number[];
  /** Keys of stored files (content SHA-256) the command names. */
  storedFiles?: readonly string[];
}

/** What the catalogue held, when the command was handled, about the ids its lookup named: the existing ones. */
export interface CatalogueFacts {
  states: ReadonlySet<number>;
  communities: ReadonlyMap<number, { state_id: number }>;
  subCommunities: ReadonlyMap<number, { community_id: number }>;
  developers: ReadonlySet<number>;
  unitTypes: ReadonlySet<number>;
  /** Projects in the catalogue: existing and not deleted. */
  projects: ReadonlySet<number>;
  /** Stored files by key: the ones the blob store holds. */
  storedFiles: ReadonlyMap<string, StoredFileFacts>;
}

/** Facts for a command that looks nothing up. */
export const noCatalogueFacts: CatalogueFacts = catalogueFacts({});

/** Builds facts from plain lists (deciders' tests use it to state what exists). */
export function catalogueFacts(known: {
  states?: number[];
  communities?: Record<number, { state_id: number }>;
  subCommunities?: Record<number, { community_id: number }>;
  developers?: number[];
  unitTypes?: number[];
  projects?: number[];
  storedFiles?: Record<string, StoredFileFacts>;
}): CatalogueFacts {
  const byId = <Value>(record: Record<number, Value> = {}) => new Map(Object.entries(record).map(([id, value]) => [Number(id), value]));
  return {
    states: new Set(known.states),
    communities: byId(known.communities),
    subCommunities: byId(known.subCommunities),
    developers: new Set(known.developers),
    unitTypes: new Set(known.unitTypes),
    projects: new Set(known.projects),
    storedFiles: new Map(Object.entries(known.storedFiles ?? {})),
  };
}

/** Asks the port about every id of the lookup at once. */
export async function readCatalogueFacts(port: CatalogueReferences, lookup: CatalogueLookup): Promise<CatalogueFacts> {
  const existing = async (ids: readonly number[] = [], exists: (id: number) => Promise<boolean>) => {
    const found = await Promise.all(ids.map(exists));
    return new Set(ids.filter((_id, index) => found[index]));
  };
  const holding = async <Id, Value>(ids: readonly Id[] = [], read: (id: Id) => Promise<Value | null>) => {
    const found = await Promise.all(ids.map(read));
    const held = new Map<Id, Value>();
    ids.forEach((id, index) => {
      const value = found[index];
      if (value !== null && value !== undefined) held.set(id, value);
    });
    return held;
  };
  const [states, communities, subCommunities, developers, unitTypes, projects, storedFiles] = await Promise.all([
    existing(lookup.states, (id) => port.stateExists(id)),
    holding(lookup.communities, (id) => port.community(id)),
    holding(lookup.subCommunities, (id) => port.subCommunity(id)),
    existing(lookup.developers, (id) => port.developerExists(id)),
    existing(lookup.unitTypes, (id) => port.unitTypeExists(id)),
    existing(lookup.projects, (id) => port.projectInCatalogue(id)),
    holding(lookup.storedFiles, (key) => port.storedFile(key)),
  ]);
  return { states, communities, subCommunities, developers, unitTypes, projects, storedFiles };
}

/**
 * CatalogueReferences over the event store: each answer folds the named resource's stream. Stored files are
 * looked up in `storedFiles` (none for the access commands, which name no file).
 */
export function eventStoreCatalogueReferences(eventStore: EventStore, storedFiles: StoredFiles = noStoredFiles): CatalogueReferences {
  const exists = async (streamName: string) => (await eventStore.readStream(streamName)).length > 0;
  return {
    stateExists: (id) => exists(stateAggregate.streamName(id)),
    async community(id) {
      const community = (await loadAggregate(eventStore, communityAggregate, id))?.state;
      return community ? { state_id: community.state_id } : null;
    },
    async subCommunity(id) {
      const subCommunity = (await loadAggregate(eventStore, subCommunityAggregate, id))?.state;
      return subCommunity ? { community_id: subCommunity.community_id } : null;
    },
    developerExists: (id) => exists(developerAggregate.streamName(id)),
    unitTypeExists: (id) => exists(unitTypeAggregate.streamName(id)),
    async projectInCatalogue(id) {
      const project = (await loadAggregate(eventStore, projectAggregate, id))?.state;
      return project ? !project.deleted : false;
    },
    storedFile: (key) => storedFiles.describe(key),
  };
}

/** Problems of a command by field path; a decider reports every problem of its references in one 422. */
export type ReferenceProblems = Record<string, string>;

export function throwIfAnyProblem(problems: ReferenceProblems): void {
  if (Object.keys(problems).length > 0) throw new ValidationFailed(problems);
}

/** One problem per id of the list that the catalogue does not hold, named `<field>.<index>`. */
export function missingInList(ids: readonly number[], known: ReadonlySet<number>, field: string, noun: string): ReferenceProblems {
  return Object.fromEntries(ids.flatMap((id, index) => (known.has(id) ? [] : [[`${field}.${index}`, `${noun} ${id} does not exist`]])));
}

export interface Place {
  state_id: number;
  community_id: number;
  sub_community_id: number | null;
}

/** The ids a place's check looks at. */
export function placeLookup(place: Place): CatalogueLookup {
  return {
    states: [place.state_id],
    communities: [place.community_id],
    subCommunities: place.sub_community_id === null ? [] : [place.sub_community_id],
  };
}

/** The state must exist, the community lie in the state and the sub-community in the community. */
export function placeProblems(place: Place, facts: CatalogueFacts): ReferenceProblems {
  const problems: ReferenceProblems = {};
  if (!facts.states.has(place.state_id)) problems['body.state_id'] = `state ${place.state_id} does not exist`;
  const community = facts.communities.get(place.community_id);
  if (!community) {
    problems['body.community_id'] = `community ${place.community_id} does not exist`;
  } else if (community.state_id !== place.state_id) {
    problems['body.community_id'] = `community ${place.community_id} lies in state ${community.state_id}, not in state ${place.state_id}`;
  }
  if (place.sub_community_id !== null) {
    const subCommunity = facts.subCommunities.get(place.sub_community_id);
    if (!subCommunity) {
      problems['body.sub_community_id'] = `sub-community ${place.sub_community_id} does not exist`;
    } else if (subCommunity.community_id !== place.community_id) {
      problems['body.sub_community_id'] =
        `sub-community ${place.sub_community_id} lies in community ${subCommunity.community_id}, not in community ${place.community_id}`;
    }
  }
  return problems;
}
