import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CACHED_STREAMS } from '../../src/domain/aggregateCache.js';
import { createAggregate, loadAggregate, updateAggregate, type CommandDeps } from '../../src/domain/commandHandler.js';
import type { Aggregate } from '../../src/domain/decider.js';
import type { EventStore, NewEvent } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { forwardEventStore } from '../../src/metrics/forwardingStores.js';
import { Random } from '../../src/seed/random.js';

/** A note with a title, a list and a keyed collection: evolve copies what each event changes, as the real ones do. */
type Note = { title: string; tags: string[]; links: Record<number, { url: string }> } | null;
type NoteEvent =
  | { type: 'NoteCreated'; data: { title: string } }
  | { type: 'NoteRetitled'; data: { title: string } }
  | { type: 'TagAdded'; data: { tag: string } }
  | { type: 'TagsCleared'; data: Record<string, never> }
  | { type: 'LinkSet'; data: { link_id: number; url: string } };

const noteAggregate: Aggregate<Note, NoteEvent> = {
  category: 'note',
  streamName: (id) => `note-${id}`,
  initialState: () => null,
  evolve(note, event) {
    if (event.type === 'NoteCreated') return { title: event.data.title, tags: [], links: {} };
    if (!note) return null;
    switch (event.type) {
      case 'NoteRetitled':
        return { ...note, title: event.data.title };
      case 'TagAdded':
        return { ...note, tags: [...note.tags, event.data.tag] };
      case 'TagsCleared':
        return { ...note, tags: [] };
      case 'LinkSet':
        return { ...note, links: { ...note.links, [event.data.link_id]: { url: event.data.url } } };
    }
  },
};

const depsOn = (eventStore: EventStore): CommandDeps => ({ eventStore, clock: () => new Date('2024-05-01T10:00:00.000Z') });

const createNote = (eventStore: EventStore, title: string) =>
  createAggregate(depsOn(eventStore), {
    aggregate: noteAggregate,
    idSequence: 'note',
    actor: 'editor@test',
    decide: (): NoteEvent[] => [{ type: 'NoteCreated', data: { title } }],
  });

const changeNote = (eventStore: EventStore, id: number, events: NoteEvent[]) =>
  updateAggregate(depsOn(eventStore), { aggregate: noteAggregate, id, actor: 'editor@test', decide: () => events });

/** What loadAggregate answered before folds were kept: the whole stream folded from the start. */
async function foldedInFull(eventStore: EventStore, id: number) {
  const events = await eventStore.readStream(noteAggregate.streamName(id));
  if (events.length === 0) return null;
  const state = events.reduce((note, event) => noteAggregate.evolve(note, event as unknown as NoteEvent), noteAggregate.initialState());
  return { state, revision: events.at(-1)!.revision };
}

/** The store with every readStream call's fromRevision recorded (undefined: the whole stream). */
function recordingReads(eventStore: EventStore): { eventStore: EventStore; fromRevisions: Array<number | undefined> } {
  const fromRevisions: Array<number | undefined> = [];
  return {
    eventStore: {
      ...forwardEventStore(eventStore),
      readStream: (streamName, options) => {
        fromRevisions.push(options?.fromRevision);
        return eventStore.readStream(streamName, options);
      },
    },
    fromRevisions,
  };
}

const noteEvent = (type: NoteEvent['type'], data: object): NewEvent => ({ type, data });

let dataDir: string;
let store: EventStore;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'aggregate-cache-'));
  store = createSqliteEventStore({ file: join(dataDir, 'events.sqlite') });
});

afterEach(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('loading an aggregate from its cached fold', () => {
  it('when random commands and another writer change several notes, then every load answers what a full fold answers', async () => {
    const otherWriter = createSqliteEventStore({ file: join(dataDir, 'events.sqlite') });
    try {
      const random = new Random(14);
      const ids = [];
      for (let note = 0; note < 4; note++) ids.push((await createNote(store, `note ${note}`)).id);
      for (let step = 0; step < 300; step++) {
        const id = random.pick(ids);
        const event = random.weighted<NoteEvent>([
          [{ type: 'NoteRetitled', data: { title: `title ${step}` } }, 2],
          [{ type: 'TagAdded', data: { tag: `tag ${step}` } }, 3],
          [{ type: 'TagsCleared', data: {} }, 1],
          [{ type: 'LinkSet', data: { link_id: random.int(1, 5), url: `https://example.test/${step}` } }, 2],
        ]);
        if (random.chance(0.2)) {
          const revision = (await otherWriter.streamRevision(noteAggregate.streamName(id)))!;
          await otherWriter.appendToStream(noteAggregate.streamName(id), [event], { expectedRevision: revision });
        } else {
          await changeNote(store, id, [event]);
        }
        if (random.chance(0.5)) {
          const checked = random.pick(ids);
          expect(await loadAggregate(store, noteAggregate, checked)).toEqual(await foldedInFull(store, checked));
        }
      }
      for (const id of ids) expect(await loadAggregate(store, noteAggregate, id)).toEqual(await foldedInFull(store, id));
    } finally {
      await otherWriter.close();
    }
  });

  it('when a stream is loaded again, then it is read from the revision folded last, and its new events are folded on', async () => {
    const { eventStore, fromRevisions } = recordingReads(store);
    const { id } = await createNote(eventStore, 'first');
    await changeNote(eventStore, id, [{ type: 'TagAdded', data: { tag: 'a' } }]);
    await changeNote(eventStore, id, [
      { type: 'TagAdded', data: { tag: 'b' } },
      { type: 'NoteRetitled', data: { title: 'second' } },
    ]);
    fromRevisions.length = 0;

    const loaded = await loadAggregate(eventStore, noteAggregate, id);

    expect(fromRevisions).toEqual([1]);
    expect(loaded).toEqual({ state: { title: 'second', tags: ['a', 'b'], links: {} }, revision: 3 });
  });

  it('when another store handle appends to the stream, then the next load folds its events', async () => {
    const { id } = await createNote(store, 'first');
    expect((await loadAggregate(store, noteAggregate, id))?.revision).toBe(0);
    const otherWriter = createSqliteEventStore({ file: join(dataDir, 'events.sqlite') });
    try {
      await otherWriter.appendToStream(noteAggregate.streamName(id), [noteEvent('NoteRetitled', { title: 'by the other' })], {
        expectedRevision: 0,
      });
    } finally {
      await otherWriter.close();
    }

    expect(await loadAggregate(store, noteAggregate, id)).toEqual({ state: { title: 'by the other', tags: [], links: {} }, revision: 1 });
  });

  it('when the stream read is shorter than the fold, or another one of the same name, then it is folded in full', async () => {
    const elsewhere = createSqliteEventStore({ file: ':memory:' });
    try {
      let reads = store;
      const switchable: EventStore = {
        ...forwardEventStore(store),
        readStream: (streamName, options) => reads.readStream(streamName, options),
      };
      const stream = noteAggregate.streamName(1);
      await store.appendToStream(stream, [noteEvent('NoteCreated', { title: 'here' }), noteEvent('TagAdded', { tag: 'a' })], {
        expectedRevision: 'no_stream',
      });
      await elsewhere.appendToStream(stream, [noteEvent('NoteCreated', { title: 'elsewhere' })], { expectedRevision: 'no_stream' });
      expect((await loadAggregate(switchable, noteAggregate, 1))?.revision).toBe(1);

      reads = elsewhere;
      expect(await loadAggregate(switchable, noteAggregate, 1)).toEqual({
        state: { title: 'elsewhere', tags: [], links: {} },
        revision: 0,
      });

      await elsewhere.appendToStream(stream, [noteEvent('TagAdded', { tag: 'b' })], { expectedRevision: 0 });
      reads = store;
      expect(await loadAggregate(switchable, noteAggregate, 1)).toEqual({ state: { title: 'here', tags: ['a'], links: {} }, revision: 1 });
    } finally {
      await elsewhere.close();
    }
  });

  it('when the stream no longer exists where it is read, then the load answers null', async () => {
    const { id } = await createNote(store, 'first');
    let reads = store;
    const switchable: EventStore = {
      ...forwardEventStore(store),
      readStream: (streamName, options) => reads.readStream(streamName, options),
    };
    expect(await loadAggregate(switchable, noteAggregate, id)).not.toBeNull();
    const empty = createSqliteEventStore({ file: ':memory:' });
    try {
      reads = empty;
      expect(await loadAggregate(switchable, noteAggregate, id)).toBeNull();
    } finally {
      await empty.close();
    }
  });

  it('when a decorator changes what reads return, then it does not answer the folds of the store it decorates', async () => {
    const { id } = await createNote(store, 'first');
    await changeNote(store, id, [{ type: 'NoteRetitled', data: { title: 'second' } }]);
    expect((await loadAggregate(store, noteAggregate, id))?.revision).toBe(1);
    const asFirstCreated: EventStore = {
      ...forwardEventStore(store),
      readStream: async (streamName, options) => (await store.readStream(streamName, options)).filter((event) => event.revision === 0),
    };

    expect(await loadAggregate(asFirstCreated, noteAggregate, id)).toEqual({ state: { title: 'first', tags: [], links: {} }, revision: 0 });
  });

  it('when a decorator forwards reads, then it shares the folds of the store it decorates', async () => {
    const { eventStore, fromRevisions } = recordingReads(store);
    const { id } = await createNote(eventStore, 'first');
    await loadAggregate(eventStore, noteAggregate, id);
    fromRevisions.length = 0;

    await loadAggregate(forwardEventStore(forwardEventStore(eventStore)), noteAggregate, id);

    expect(fromRevisions).toEqual([0]);
  });

  it('when more streams than the cap have been loaded since, then the least recently loaded one is read in full again', async () => {
    const { eventStore, fromRevisions } = recordingReads(store);
    const ids = Array.from({ length: CACHED_STREAMS + 1 }, (_, index) => index + 1);
    await store.appendToStreams(
      ids.map((id) => ({
        streamName: noteAggregate.streamName(id),
        events: [noteEvent('NoteCreated', { title: `${id}` })],
        expectedRevision: 'no_stream',
      })),
    );
    for (const id of ids) await loadAggregate(eventStore, noteAggregate, id);
    fromRevisions.length = 0;

    await loadAggregate(eventStore, noteAggregate, ids.at(-1)!);
    await loadAggregate(eventStore, noteAggregate, ids[0]!);

    expect(fromRevisions).toEqual([0, undefined]);
  });

  it('when a caller writes to a loaded state, then the write throws and the next load answers the fold unchanged', async () => {
    const { id } = await createNote(store, 'first');
    await changeNote(store, id, [{ type: 'LinkSet', data: { link_id: 1, url: 'https://example.test/' } }]);
    const loaded = (await loadAggregate(store, noteAggregate, id))!;

    expect(() => loaded.state!.tags.push('written')).toThrow(TypeError);
    expect(() => {
      loaded.state!.links[1]!.url = 'https://elsewhere.test/';
    }).toThrow(TypeError);
    expect((await loadAggregate(store, noteAggregate, id))!.state).toEqual({
      title: 'first',
      tags: [],
      links: { 1: { url: 'https://example.test/' } },
    });
  });
});
