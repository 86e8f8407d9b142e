import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAggregate, MAX_CLAIM_ATTEMPTS, startAggregate, updateAggregate, type CommandDeps } from '../../src/domain/commandHandler.js';
import type { Aggregate, CommandMeta } from '../../src/domain/decider.js';
import { ApiError, ValidationFailed } from '../../src/domain/errors.js';
import { idSequenceStream } from '../../src/domain/idAllocator.js';
import { slugStream } from '../../src/domain/slugReservations.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';

/** A minimal aggregate with what the command handler serves: a unique slug and parts whose ids it allocates. */
type Thing = { slug: string; parts: number[] } | null;
type ThingEvent =
  | { type: 'ThingCreated'; data: { thing_id: number; slug: string } }
  | { type: 'ThingRenamed'; data: { thing_id: number; slug: string } }
  | { type: 'PartAdded'; data: { thing_id: number; part_id: number } };

const thingAggregate: Aggregate<Thing, ThingEvent> = {
  category: 'thing',
  streamName: (id) => `thing-${id}`,
  initialState: () => null,
  evolve(state, event) {
    switch (event.type) {
      case 'ThingCreated':
        return { slug: event.data.slug, parts: [] };
      case 'ThingRenamed':
        return state && { ...state, slug: event.data.slug };
      case 'PartAdded':
        return state && { ...state, parts: [...state.parts, event.data.part_id] };
    }
  },
  slug: { resourceType: 'thing', of: (thing) => thing?.slug },
};

type Meta = CommandMeta & { id: number };
const refused = () => new ValidationFailed({ 'body.slug': 'refused by the decider' });

const at = '2024-05-01T10:00:00.000Z';
let store: EventStore;
/** The ids each decision was made with, in order. */
let decidedWith: Meta[];

beforeEach(() => {
  store = createSqliteEventStore({ file: ':memory:' });
  decidedWith = [];
});

afterEach(async () => {
  await store.close();
});

const depsOn = (eventStore: EventStore): CommandDeps => ({ eventStore, clock: () => new Date(at) });

function createThing(slug: string, options: { refuse?: boolean; eventStore?: EventStore } = {}) {
  return createAggregate(depsOn(options.eventStore ?? store), {
    aggregate: thingAggregate,
    idSequence: 'thing',
    actor: 'editor@test',
    decide: (_state, meta): ThingEvent[] => {
      decidedWith.push(meta);
      if (options.refuse) throw refused();
      return [{ type: 'ThingCreated', data: { thing_id: meta.id, slug } }];
    },
  });
}

function renameThing(id: number, slug: string, eventStore: EventStore = store) {
  return updateAggregate(depsOn(eventStore), {
    aggregate: thingAggregate,
    id,
    actor: 'editor@test',
    decide: (_state, meta): ThingEvent[] => [{ type: 'ThingRenamed', data: { thing_id: meta.id, slug } }],
  });
}

function addPart(id: number, outcome: 'added' | 'refused' | 'unchanged' = 'added') {
  return updateAggregate(depsOn(store), {
    aggregate: thingAggregate,
    id,
    actor: 'editor@test',
    allocate: ['part'],
    decide: (_state, meta): ThingEvent[] => {
      if (outcome === 'refused') throw refused();
      if (outcome === 'unchanged') return [];
      return [{ type: 'PartAdded', data: { thing_id: meta.id, part_id: meta.allocatedIds!.part! } }];
    },
  });
}

async function refusalOf(command: Promise<unknown>): Promise<ApiError> {
  const error = await command.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/**
 * The store as a command sees it while rivals are at work: before each of the first `races` claims of an
 * id (an append to a sequence that expects a revision), `rival` runs on the real store.
 */
function racedBy(rival: (sequence: string) => Promise<void>, races: number): EventStore {
  let left = races;
  return {
    ...store,
    async appendToStream(streamName, events, options) {
      if (left > 0 && streamName.startsWith('idSequence-') && options.expectedRevision !== 'any') {
        left -= 1;
        await rival(streamName);
      }
      return store.appendToStream(streamName, events, options);
    },
  };
}

/** Another command's claim of the next id of the same sequence. */
const rivalClaim = async (sequence: string) => {
  await store.appendToStream(sequence, [{ type: 'IdAllocated', data: {} }], { expectedRevision: 'any' });
};

describe('command handler: a refused command appends nothing', () => {
  it('when a create is refused by its decider, then nothing is appended and the next create gets the id it was shown', async () => {
    const refusal = await refusalOf(createThing('alpha', { refuse: true }));

    expect(refusal.code).toBe('VALIDATION_FAILED');
    expect(await store.headPosition()).toBeNull();
    const created = await createThing('alpha');
    expect(decidedWith.map((meta) => meta.id)).toEqual([1, 1]);
    expect(created).toMatchObject({ id: 1, revision: 0, state: { slug: 'alpha' } });
  });

  it('when a create names a slug another thing holds, then 409 SLUG_TAKEN and nothing is appended', async () => {
    await createThing('alpha');
    const head = await store.headPosition();

    const refusal = await refusalOf(createThing('alpha'));

    expect(refusal).toMatchObject({ status: 409, code: 'SLUG_TAKEN' });
    expect(await store.headPosition()).toBe(head);
    expect(await store.readStream(idSequenceStream('thing'))).toHaveLength(1);
  });

  it('when a rename to a slug another thing holds is refused, then nothing is appended', async () => {
    await createThing('alpha');
    await createThing('beta');
    const head = await store.headPosition();

    await expect(renameThing(2, 'alpha')).rejects.toMatchObject({ code: 'SLUG_TAKEN' });

    expect(await store.headPosition()).toBe(head);
  });

  it('when a command that needs an allocated id is refused by its decider, then no id is claimed', async () => {
    await createThing('alpha');
    const head = await store.headPosition();

    await expect(addPart(1, 'refused')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });

    expect(await store.headPosition()).toBe(head);
    expect(await store.streamRevision(idSequenceStream('part'))).toBeNull();
    await expect(addPart(1)).resolves.toMatchObject({ state: { parts: [1] } });
  });

  it('when a command that needs an allocated id changes nothing, then it answers the current revision and claims no id', async () => {
    await createThing('alpha');
    const head = await store.headPosition();

    await expect(addPart(1, 'unchanged')).resolves.toMatchObject({ revision: 0, events: [] });

    expect(await store.headPosition()).toBe(head);
  });

  it('when an expected revision is given for a stream that does not exist yet, then the start is refused with 409 and nothing is appended', async () => {
    const start = startAggregate(depsOn(store), {
      aggregate: thingAggregate,
      id: 7,
      expectedRevision: 0,
      actor: 'editor@test',
      decide: (_state, meta): ThingEvent[] => [{ type: 'ThingCreated', data: { thing_id: meta.id, slug: 'seven' } }],
    });

    await expect(start).rejects.toMatchObject({ status: 409, code: 'CONFLICT', details: { expected_revision: 0 } });
    expect(await store.headPosition()).toBeNull();
  });
});

describe('command handler: ids are claimed after the decision', () => {
  it('when another command claims the peeked id first, then the create is decided again with the next id and reserves its slug for that id only', async () => {
    const created = await createThing('alpha', { eventStore: racedBy(rivalClaim, 1) });

    expect(decidedWith.map((meta) => meta.id)).toEqual([1, 2]);
    expect(created).toMatchObject({ id: 2, revision: 0 });
    expect(await store.readStream(idSequenceStream('thing'))).toHaveLength(2);
    expect(await store.readStream('thing-1')).toEqual([]);
    const reservations = await store.readStream(slugStream('thing', 'alpha'));
    expect(reservations.map((event) => [event.type, event.data])).toEqual([
      ['SlugReserved', { resourceType: 'thing', slug: 'alpha', resourceId: 2 }],
    ]);
  });

  it('when another command claims the peeked part id first, then the update is decided again with the next part id', async () => {
    await createThing('alpha');
    const partIdsDecided: Array<number | undefined> = [];

    const added = await updateAggregate(depsOn(racedBy(rivalClaim, 1)), {
      aggregate: thingAggregate,
      id: 1,
      actor: 'editor@test',
      allocate: ['part'],
      decide: (_state, meta): ThingEvent[] => {
        partIdsDecided.push(meta.allocatedIds?.part);
        return [{ type: 'PartAdded', data: { thing_id: meta.id, part_id: meta.allocatedIds!.part! } }];
      },
    });

    expect(partIdsDecided).toEqual([1, 2]);
    expect(added.state).toEqual({ slug: 'alpha', parts: [2] });
  });

  it(`when rivals claim the peeked id at every attempt, then 409 CONFLICT after ${MAX_CLAIM_ATTEMPTS} decisions and only the rivals' ids are allocated`, async () => {
    const refusal = await refusalOf(createThing('alpha', { eventStore: racedBy(rivalClaim, MAX_CLAIM_ATTEMPTS) }));

    expect(refusal).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(decidedWith).toHaveLength(MAX_CLAIM_ATTEMPTS);
    expect(await store.readStream(idSequenceStream('thing'))).toHaveLength(MAX_CLAIM_ATTEMPTS);
    expect(await store.readStream(slugStream('thing', 'alpha'))).toEqual([]);
  });

  it('when another thing takes the slug between the check and the reservation, then 409 SLUG_TAKEN and the claimed id is left unused: the one write a race may leave', async () => {
    await createThing('alpha');
    const renameToBeta = async () => {
      await renameThing(1, 'beta');
    };

    const refusal = await refusalOf(createThing('beta', { eventStore: racedBy(renameToBeta, 1) }));

    expect(refusal).toMatchObject({ status: 409, code: 'SLUG_TAKEN' });
    expect(await store.readStream(idSequenceStream('thing'))).toHaveLength(2);
    expect(await store.readStream('thing-2')).toEqual([]);
    await expect(createThing('gamma')).resolves.toMatchObject({ id: 3 });
  });
});
