import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandDeps } from '../../src/domain/commandHandler.js';
import {
  createWithSlice,
  putWithSlice,
  startWithSlice,
  updateWithSlice,
  type CommandSlice,
  type FactsReader,
} from '../../src/domain/commandSlice.js';
import type { Aggregate, CommandMeta } from '../../src/domain/decider.js';
import { ApiError, NotFound, ValidationFailed } from '../../src/domain/errors.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';

/** A note that names a colour; the colours that exist are outside its aggregate, learnt through a port. */
type Note = { colour: string } | null;
type NoteEvent = { type: 'NoteColoured'; data: { note_id: number; colour: string } };
type Lookup = { colours: string[] };
type Facts = { known: string[] };

const noteAggregate: Aggregate<Note, NoteEvent> = {
  category: 'note',
  streamName: (id) => `note-${id}`,
  initialState: () => null,
  evolve: (_state, event) => ({ colour: event.data.colour }),
};

/** Refuses a colour the port does not know, and a missing note when it is not creating one. */
const colourNote = (creates: boolean): CommandSlice<{ colour: string }, Note, NoteEvent, Lookup, Facts> => ({
  references: (command) => ({ colours: [command.colour] }),
  decide(command, note, meta: CommandMeta & { id: number; references: Facts }) {
    if (!meta.references.known.includes(command.colour)) throw new ValidationFailed({ 'body.colour': `no colour ${command.colour}` });
    if (!note && !creates) throw new NotFound(`Note ${meta.id} is not there.`);
    if (note?.colour === command.colour) return [];
    return [{ type: 'NoteColoured', data: { note_id: meta.id, colour: command.colour } }];
  },
});

let store: EventStore;
let lookups: Lookup[];
/** Runs before the facts are answered: lets a test write concurrently between read and append. */
let duringRead: () => Promise<void>;

const deps = (): CommandDeps => ({ eventStore: store, clock: () => new Date('2024-05-01T10:00:00.000Z') });
const colours: FactsReader<Lookup, Facts> = {
  async read(lookup) {
    lookups.push(lookup);
    await duringRead();
    return { known: lookup.colours.filter((colour) => colour !== 'ultraviolet') };
  },
  none: { known: [] },
};
const command = (colour: string) => ({ aggregate: noteAggregate, actor: 'editor@test', command: { colour } });
const onNote = (colour: string, id: number, expectedRevision?: number) => ({
  ...command(colour),
  id,
  ...(expectedRevision === undefined ? {} : { expectedRevision }),
});
const head = () => store.headPosition();

beforeEach(() => {
  store = createSqliteEventStore({ file: ':memory:' });
  lookups = [];
  duringRead = async () => {};
});

afterEach(async () => {
  await store.close();
});

describe('command slices', () => {
  it('when a slice names references, then decide is given what the port answered for them', async () => {
    const created = await createWithSlice(deps(), colours, { ...command('teal'), slice: colourNote(true) });
    expect(created.events).toEqual([{ type: 'NoteColoured', data: { note_id: created.id, colour: 'teal' } }]);
    expect(lookups).toEqual([{ colours: ['teal'] }]);
  });

  it('when the port does not know the reference, then the decider refuses and nothing is appended', async () => {
    const before = await head();
    await expect(createWithSlice(deps(), colours, { ...command('ultraviolet'), slice: colourNote(true) })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect(await head()).toBe(before);
  });

  it('when the aggregate does not exist, then the decider refuses in its own words, references first', async () => {
    await expect(updateWithSlice(deps(), colours, { ...onNote('teal', 5), slice: colourNote(false) })).rejects.toThrow(
      'Note 5 is not there.',
    );
    await expect(updateWithSlice(deps(), colours, { ...onNote('ultraviolet', 5), slice: colourNote(false) })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('when the aggregate changes while its references are read, then 409 CONFLICT and the change is not appended', async () => {
    const { id } = await createWithSlice(deps(), colours, { ...command('teal'), slice: colourNote(true) });
    duringRead = async () => {
      duringRead = async () => {};
      await updateWithSlice(deps(), colours, { ...onNote('amber', id), slice: colourNote(false) });
    };
    const error = await updateWithSlice(deps(), colours, { ...onNote('coral', id), slice: colourNote(false) }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('CONFLICT');
    expect((await store.readStream(noteAggregate.streamName(id))).map((event) => event.data)).toEqual([
      { note_id: id, colour: 'teal' },
      { note_id: id, colour: 'amber' },
    ]);
  });

  it('when a start names an If-Match, then a refusing decider answers first, else 409 for the missing stream', async () => {
    await expect(startWithSlice(deps(), colours, { ...onNote('ultraviolet', 3, 0), slice: colourNote(true) })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(startWithSlice(deps(), colours, { ...onNote('teal', 3, 0), slice: colourNote(true) })).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    expect(await store.readStream(noteAggregate.streamName(3))).toEqual([]);
  });

  it('when a PUT names an aggregate without a stream, then it is started; the next PUT updates it', async () => {
    const started = await putWithSlice(deps(), colours, { ...onNote('teal', 3), slice: colourNote(true) });
    const updated = await putWithSlice(deps(), colours, { ...onNote('amber', 3), slice: colourNote(true) });
    expect([started.revision, updated.revision]).toEqual([0, 1]);
    expect(updated.state).toEqual({ colour: 'amber' });
  });
});
