import { communityAggregate } from '../catalogue/community.js';
import {
  noCatalogueFacts,
  readCatalogueFacts,
  type CatalogueFacts,
  type CatalogueLookup,
  type CatalogueReferences,
} from '../catalogue/catalogueReferences.js';
import { developerAggregate } from '../catalogue/developer.js';
import { projectAggregate, type Project } from '../catalogue/project.js';
import { stateAggregate } from '../catalogue/state.js';
import type { StoredFileFacts, StoredFiles } from '../catalogue/storedFiles.js';
import { subCommunityAggregate } from '../catalogue/subCommunity.js';
import { unitTypeAggregate } from '../catalogue/unitType.js';
import type { Aggregate } from '../domain/decider.js';
import { idSequenceStream, peekNextId, type PeekedId } from '../domain/idAllocator.js';
import { slugStream, SlugTaken, type SlugEvent } from '../domain/slugReservations.js';
import type { AppendResult, DomainEvent, EventStore, NewEvent, StreamAppend } from '../eventStore/eventStore.js';
import { ImportKeys, type KeyBinding, type NewKeyBinding } from './importKeys.js';
import type { ImportRecordType } from './importLines.js';

/** How many projects an import keeps folded between batches (lines of a project's parts usually follow it closely). */
const CACHED_PROJECTS = 2_000;
/** The field a slug taken by another resource is reported under. */
export const SLUG_FIELD = 'data.slug';

type AnyAggregate = Aggregate<unknown, DomainEvent>;

export interface Folded<State> {
  state: State;
  /** The stream's revision; null when it does not exist. */
  revision: number | null;
}

export interface ImportDeps {
  eventStore: EventStore;
  /** What the blob store holds: the files a line names must be stored ones, as for the single commands. */
  storedFiles: StoredFiles;
  clock: () => Date;
}

interface SlugReservation {
  resourceType: string;
  slug: string;
  resourceId: number;
  aggregate: AnyAggregate;
}

/**
 * What an import knows across its batches: the key bindings, and the aggregates it has folded (read from the
 * log, or as its own appends left them), so that a record it created is decided on from memory.
 */
export class WorkingCatalogue {
  private readonly folded = new Map<string, Folded<unknown>>();
  private readonly projectStreams = new Set<string>();
  /** Whether each project seen is deleted: what related-project checks need, kept for every project. */
  private readonly projectDeleted = new Map<number, boolean>();
  /** Facts of the stored files lines named: a blob never changes under its key (files not stored are asked again). */
  private readonly storedFiles = new Map<string, StoredFileFacts>();

  private constructor(
    readonly deps: ImportDeps,
    public keys: ImportKeys,
  ) {}

  static async open(deps: ImportDeps): Promise<WorkingCatalogue> {
    return new WorkingCatalogue(deps, await ImportKeys.load(deps.eventStore));
  }

  async reloadKeys(): Promise<void> {
    this.keys = await ImportKeys.load(this.deps.eventStore);
  }

  async load<State, Event extends DomainEvent>(aggregate: Aggregate<State, Event>, id: number): Promise<Folded<State>> {
    const stream = aggregate.streamName(id);
    const known = this.folded.get(stream) as Folded<State> | undefined;
    if (known) return known;
    const events = await this.deps.eventStore.readStream(stream);
    let state = aggregate.initialState();
    for (const event of events) state = aggregate.evolve(state, event as unknown as Event);
    const loaded = { state, revision: events.at(-1)?.revision ?? null };
    this.remember(aggregate, id, loaded);
    return loaded;
  }

  /** The aggregate as loaded or written before, when it is in memory. */
  folds<State, Event extends DomainEvent>(aggregate: Aggregate<State, Event>, id: number): Folded<State> | undefined {
    return this.folded.get(aggregate.streamName(id)) as Folded<State> | undefined;
  }

  /** Whether the project is in the catalogue, when known without reading the log. */
  knownInCatalogue(id: number): boolean | undefined {
    const deleted = this.projectDeleted.get(id);
    if (deleted !== undefined) return !deleted;
    const project = this.folds(projectAggregate, id)?.state;
    return project === undefined ? undefined : project !== null && !project.deleted;
  }

  knownStoredFile(key: string): StoredFileFacts | undefined {
    return this.storedFiles.get(key);
  }

  async storedFile(key: string): Promise<StoredFileFacts | null> {
    const known = this.storedFiles.get(key);
    if (known) return known;
    const facts = await this.deps.storedFiles.describe(key);
    if (facts) this.storedFiles.set(key, facts);
    return facts;
  }

  async projectInCatalogue(id: number): Promise<boolean> {
    const deleted = this.projectDeleted.get(id);
    if (deleted !== undefined) return !deleted;
    const { state } = await this.load(projectAggregate, id);
    return state !== null && !state.deleted;
  }

  remember<State, Event extends DomainEvent>(aggregate: Aggregate<State, Event>, id: number, folded: Folded<State>): void {
    const stream = aggregate.streamName(id);
    this.folded.delete(stream);
    this.folded.set(stream, folded);
    if (aggregate !== (projectAggregate as unknown)) return;
    const project = folded.state as Project | null;
    if (project) this.projectDeleted.set(id, project.deleted);
    this.projectStreams.delete(stream);
    this.projectStreams.add(stream);
    if (this.projectStreams.size > CACHED_PROJECTS) {
      const oldest = this.projectStreams.values().next().value!;
      this.projectStreams.delete(oldest);
      this.folded.delete(oldest);
    }
  }

  /** After an append was refused as stale: the stream is read again when next needed. */
  forget(stream: string): void {
    this.folded.delete(stream);
    this.projectStreams.delete(stream);
  }
}

interface PendingStream {
  aggregate: AnyAggregate;
  id: number;
  /** The revision the append expects: the stream as it was read, before this batch. */
  expected: number | 'no_stream';
  state: unknown;
  events: NewEvent[];
}

/** A line's effect, applied to the batch only once the whole line was accepted. */
export interface LineChanges {
  stream: { aggregate: AnyAggregate; id: number; before: Folded<unknown>; state: unknown; events: NewEvent[] };
  binding?: NewKeyBinding;
  /** The id sequence the line took its new id from (the id peeked with peekId). */
  takesIdOf?: string;
  reserve?: SlugReservation;
  release?: SlugReservation;
}

/**
 * One batch of lines: decided one after the other on the working catalogue plus what earlier lines of the
 * batch did, then written with few appends: each id sequence once, the key bindings once, each slug once,
 * each record's stream once (however many lines of the batch touched it).
 */
export class ImportBatch {
  private readonly streams = new Map<string, PendingStream>();
  private readonly ids = new Map<string, { peeked: PeekedId; taken: number }>();
  /** By type, then key: a line looks up several keys, and a lookup need not build a string. */
  private readonly bindings = new Map<ImportRecordType, Map<string, NewKeyBinding>>();
  private readonly reservations: SlugReservation[] = [];
  private readonly releases: SlugReservation[] = [];
  /** `<resourceType>:<slug>` to the id of the batch's record that takes it. */
  private readonly slugsTaken = new Map<string, number>();
  /** Built once per batch rather than per command: each of a line's commands asks it. */
  readonly references: CatalogueReferences = batchReferences(this);
  /** Read once per batch: the lines check each new slug against them, and the write appends to them. */
  private readonly slugs: SlugStreams;

  constructor(readonly working: WorkingCatalogue) {
    this.slugs = new SlugStreams(working.deps.eventStore);
  }

  get deps(): ImportDeps {
    return this.working.deps;
  }

  binding(type: ImportRecordType, key: string): KeyBinding | undefined {
    return this.bindings.get(type)?.get(key) ?? this.working.keys.get(type, key);
  }

  /** The aggregate as the lines before have left it. */
  async load<State, Event extends DomainEvent>(aggregate: Aggregate<State, Event>, id: number): Promise<Folded<State>> {
    const pending = this.streams.get(aggregate.streamName(id));
    if (pending) return { state: pending.state as State, revision: pending.expected === 'no_stream' ? null : pending.expected };
    return this.working.load(aggregate, id);
  }

  async projectInCatalogue(id: number): Promise<boolean> {
    const pending = this.streams.get(projectAggregate.streamName(id));
    if (!pending) return this.working.projectInCatalogue(id);
    const project = pending.state as Project | null;
    return project !== null && !project.deleted;
  }

  /**
   * What a command's lookup finds, as readCatalogueFacts over `references` answers it; without a promise when
   * everything it names is in memory (the records of the import's own lines, nearly always): a project line
   * runs a dozen commands, and answering their lookups through the port's promises took about 5 % of the
   * import's CPU profile samples.
   */
  facts(lookup: CatalogueLookup): CatalogueFacts | Promise<CatalogueFacts> {
    return factsInMemory(this, lookup) ?? readCatalogueFacts(this.references, lookup);
  }

  /** The aggregate's state as the lines before have left it, when it is in memory. */
  stateInMemory<State, Event extends DomainEvent>(aggregate: Aggregate<State, Event>, id: number): { state: State } | undefined {
    const pending = this.streams.get(aggregate.streamName(id));
    if (pending) return { state: pending.state as State };
    return this.working.folds(aggregate, id);
  }

  projectInMemory(id: number): boolean | undefined {
    const pending = this.streams.get(projectAggregate.streamName(id));
    if (!pending) return this.working.knownInCatalogue(id);
    const project = pending.state as Project | null;
    return project !== null && !project.deleted;
  }

  /** The next free id of a sequence; it is taken only when a line using it is applied. */
  async peekId(sequence: string): Promise<number> {
    let entry = this.ids.get(sequence);
    if (!entry) this.ids.set(sequence, (entry = { peeked: await peekNextId(this.deps.eventStore, sequence), taken: 0 }));
    return entry.peeked.id + entry.taken;
  }

  /** SlugTaken (reported at `data.slug`) when another record holds the slug or takes it earlier in the batch. */
  async assertSlugAvailable(reservation: SlugReservation): Promise<void> {
    const taker = this.slugsTaken.get(`${reservation.resourceType}:${reservation.slug}`);
    if (taker !== undefined && taker !== reservation.resourceId)
      throw new SlugTaken(reservation.resourceType, reservation.slug, SLUG_FIELD);
    await this.slugs.assertAvailable(reservation, (owner) => this.exists(reservation.aggregate, owner));
  }

  apply(changes: LineChanges): void {
    const { aggregate, id, before, state, events } = changes.stream;
    const stream = aggregate.streamName(id);
    const pending = this.streams.get(stream);
    if (pending) {
      pending.state = state;
      pending.events.push(...events);
    } else if (events.length > 0) {
      this.streams.set(stream, { aggregate, id, expected: before.revision ?? 'no_stream', state, events: [...events] });
    }
    if (changes.binding) {
      const { type, key } = changes.binding;
      let ofType = this.bindings.get(type);
      if (!ofType) this.bindings.set(type, (ofType = new Map()));
      ofType.set(key, changes.binding);
    }
    if (changes.takesIdOf) this.ids.get(changes.takesIdOf)!.taken += 1;
    if (changes.reserve) {
      this.reservations.push(changes.reserve);
      this.slugsTaken.set(`${changes.reserve.resourceType}:${changes.reserve.slug}`, changes.reserve.resourceId);
    }
    if (changes.release) this.releases.push(changes.release);
  }

  get eventCount(): number {
    let count = 0;
    for (const pending of this.streams.values()) count += pending.events.length;
    return count;
  }

  /**
   * Writes the batch with one multi-stream append (one transaction in the embedded store), its streams in an
   * order that a crash after any prefix of them leaves resumable (a store without transactions across streams
   * writes them one by one): the ids are claimed, then the keys bound to them, then the slugs reserved for
   * them, then the records' events appended, then replaced slugs released. Once written, the batch is taken
   * into the working catalogue; a refused append (a concurrent edit or import) leaves the batch's records to
   * be read again from the log when it is decided again. `between` runs after each slug stream read (the
   * import lets the process's other work run there).
   */
  async write(between: () => Promise<void>): Promise<void> {
    const appends: StreamAppend[] = [];
    for (const [sequence, { peeked, taken }] of this.ids) {
      if (taken === 0) continue;
      const claims = Array.from({ length: taken }, () => ({ type: 'IdAllocated', data: { resourceType: sequence } }));
      appends.push({ streamName: idSequenceStream(sequence), events: claims, expectedRevision: peeked.sequenceRevision ?? 'no_stream' });
    }
    const bindings = [...this.bindings.values()].flatMap((ofType) => [...ofType.values()]);
    const binding = this.working.keys.bindingAppend(bindings);
    if (binding) appends.push(binding);
    for (const reservation of this.reservations) {
      const reserved = await this.slugs.reserve(reservation, (owner) => this.exists(reservation.aggregate, owner));
      if (reserved) appends.push(reserved);
      await between();
    }
    const recordsFrom = appends.length;
    for (const [streamName, pending] of this.streams)
      appends.push({ streamName, events: pending.events, expectedRevision: pending.expected });
    for (const release of this.releases) {
      const released = await this.slugs.release(release);
      if (released) appends.push(released);
    }

    let appended: AppendResult[];
    try {
      appended = await this.deps.eventStore.appendToStreams(appends);
    } catch (error) {
      for (const stream of this.streams.keys()) this.working.forget(stream);
      throw error;
    }
    if (binding) this.working.keys.bound(bindings, appended[appends.indexOf(binding)]!);
    let index = recordsFrom;
    for (const pending of this.streams.values()) {
      this.working.remember(pending.aggregate, pending.id, { state: pending.state, revision: appended[index++]!.nextExpectedRevision });
    }
  }

  private async exists(aggregate: AnyAggregate, id: number): Promise<boolean> {
    if (this.streams.has(aggregate.streamName(id))) return true;
    return (await this.working.load(aggregate, id)).revision !== null;
  }
}

/**
 * The slug streams a batch writes, as its appends will leave them: a slug the batch reserves and then releases
 * again (a record renamed twice) is released after its reservation, as reserveSlug and releaseSlug would do
 * one after the other.
 */
class SlugStreams {
  private readonly streams = new Map<string, { last: SlugEvent | undefined; revision: number | null }>();

  constructor(private readonly eventStore: EventStore) {}

  /** SlugTaken when another record that exists holds the slug (as the batch found it, before its own appends). */
  async assertAvailable(reservation: SlugReservation, ownerExists: (id: number) => Promise<boolean>): Promise<void> {
    const holder = this.holder(await this.read(reservation));
    if (holder !== undefined && holder !== reservation.resourceId && (await ownerExists(holder)))
      throw new SlugTaken(reservation.resourceType, reservation.slug, SLUG_FIELD);
  }

  /**
   * The append reserving the slug, or null when it is this record's already; SlugTaken when another record
   * that exists holds it. A reservation left by a record whose stream does not exist is taken over.
   */
  async reserve(reservation: SlugReservation, ownerExists: (id: number) => Promise<boolean>): Promise<StreamAppend | null> {
    const stream = await this.read(reservation);
    const holder = this.holder(stream);
    if (holder === reservation.resourceId) return null;
    if (holder !== undefined && (await ownerExists(holder))) throw new SlugTaken(reservation.resourceType, reservation.slug, SLUG_FIELD);
    return this.append(reservation, 'SlugReserved', stream);
  }

  /** The append releasing the slug, or null when this record does not hold it. */
  async release(reservation: SlugReservation): Promise<StreamAppend | null> {
    const stream = await this.read(reservation);
    if (stream.last?.type !== 'SlugReserved' || stream.last.data.resourceId !== reservation.resourceId) return null;
    return this.append(reservation, 'SlugReleased', stream);
  }

  private holder(stream: { last: SlugEvent | undefined }): number | undefined {
    return stream.last?.type === 'SlugReserved' ? stream.last.data.resourceId : undefined;
  }

  private async read({ resourceType, slug }: SlugReservation): Promise<{ last: SlugEvent | undefined; revision: number | null }> {
    const name = slugStream(resourceType, slug);
    let stream = this.streams.get(name);
    if (!stream) {
      const last = (await this.eventStore.readStream(name)).at(-1);
      stream = { last: last as unknown as SlugEvent | undefined, revision: last?.revision ?? null };
      this.streams.set(name, stream);
    }
    return stream;
  }

  private append(
    { resourceType, slug, resourceId }: SlugReservation,
    type: SlugEvent['type'],
    stream: { last: SlugEvent | undefined; revision: number | null },
  ): StreamAppend {
    const event: SlugEvent = { type, data: { resourceType, slug, resourceId } };
    const append: StreamAppend = {
      streamName: slugStream(resourceType, slug),
      events: [event],
      expectedRevision: stream.revision ?? 'no_stream',
    };
    stream.last = event;
    stream.revision = (stream.revision ?? -1) + 1;
    return append;
  }
}

/** CatalogueReferences answered from the batch: what earlier lines did, then the working catalogue, then the log. */
function batchReferences(batch: ImportBatch): CatalogueReferences {
  const folded = async <State, Event extends DomainEvent>(aggregate: Aggregate<State, Event>, id: number) =>
    (await batch.load(aggregate, id)).state;
  return {
    stateExists: async (id) => (await folded(stateAggregate, id)) !== null,
    async community(id) {
      const community = await folded(communityAggregate, id);
      return community ? { state_id: community.state_id } : null;
    },
    async subCommunity(id) {
      const subCommunity = await folded(subCommunityAggregate, id);
      return subCommunity ? { community_id: subCommunity.community_id } : null;
    },
    developerExists: async (id) => (await folded(developerAggregate, id)) !== null,
    unitTypeExists: async (id) => (await folded(unitTypeAggregate, id)) !== null,
    projectInCatalogue: (id) => batch.projectInCatalogue(id),
    storedFile: (key) => batch.working.storedFile(key),
  };
}

/** CatalogueFacts with the answers batchReferences would give, or undefined when one of them needs the log or the blob store. */
function factsInMemory(batch: ImportBatch, lookup: CatalogueLookup): CatalogueFacts | undefined {
  if (Object.values(lookup).every(isEmpty)) return noCatalogueFacts;
  const states = existingInMemory(batch, stateAggregate, lookup.states);
  const communities = heldInMemory(batch, communityAggregate, lookup.communities, (community) => ({ state_id: community.state_id }));
  const subCommunities = heldInMemory(batch, subCommunityAggregate, lookup.subCommunities, (subCommunity) => ({
    community_id: subCommunity.community_id,
  }));
  const developers = existingInMemory(batch, developerAggregate, lookup.developers);
  const unitTypes = existingInMemory(batch, unitTypeAggregate, lookup.unitTypes);
  if (!states || !communities || !subCommunities || !developers || !unitTypes) return undefined;
  const projects = new Set<number>();
  for (const id of lookup.projects ?? []) {
    const inCatalogue = batch.projectInMemory(id);
    if (inCatalogue === undefined) return undefined;
    if (inCatalogue) projects.add(id);
  }
  const storedFiles = new Map<string, StoredFileFacts>();
  for (const key of lookup.storedFiles ?? []) {
    const facts = batch.working.knownStoredFile(key);
    if (!facts) return undefined;
    storedFiles.set(key, facts);
  }
  return { states, communities, subCommunities, developers, unitTypes, projects, storedFiles };
}

const isEmpty = (ids: readonly unknown[] | undefined) => ids === undefined || ids.length === 0;

function heldInMemory<State, Event extends DomainEvent, Value>(
  batch: ImportBatch,
  aggregate: Aggregate<State | null, Event>,
  ids: readonly number[] = [],
  value: (state: State) => Value,
): Map<number, Value> | undefined {
  const held = new Map<number, Value>();
  for (const id of ids) {
    const folded = batch.stateInMemory(aggregate, id);
    if (!folded) return undefined;
    if (folded.state !== null) held.set(id, value(folded.state));
  }
  return held;
}

function existingInMemory<State, Event extends DomainEvent>(
  batch: ImportBatch,
  aggregate: Aggregate<State | null, Event>,
  ids: readonly number[] = [],
): Set<number> | undefined {
  const existing = new Set<number>();
  for (const id of ids) {
    const folded = batch.stateInMemory(aggregate, id);
    if (!folded) return undefined;
    if (folded.state !== null) existing.add(id);
  }
  return existing;
}
