import { afterEach, describe, expect, it } from 'vitest';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { idSequenceStream } from '../../src/domain/idAllocator.js';
import { RecordImport, RecordRefused } from '../../src/import/catalogueImport.js';
import { referenceLines, storedPictures, wholeLog } from './importLines.js';

const stores: EventStore[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function openImport(): Promise<{ eventStore: EventStore; records: RecordImport }> {
  const eventStore = createSqliteEventStore({ file: ':memory:' });
  stores.push(eventStore);
  const records = await RecordImport.open(
    { eventStore, storedFiles: storedPictures, clock: () => new Date('2030-01-01T00:00:00.000Z') },
    { actor: 'seed' },
  );
  return { eventStore, records };
}

describe('records imported from memory', () => {
  it('when records are added at times of their own and written, then each record’s events carry its time and its key is bound', async () => {
    const { eventStore, records } = await openImport();
    const times = referenceLines.map((_, index) => new Date(Date.UTC(2024, 0, 1, 0, index)));

    for (const [index, line] of referenceLines.entries()) expect(await records.add(line, times[index]!)).toBe('created');
    const boundBeforeWrite = records.boundId('community', 'c-marina');
    const beforeWrite = await wholeLog(eventStore);
    await records.write();

    const recordEvents = (await wholeLog(eventStore)).filter((event) => event.metadata.at !== undefined);
    expect(beforeWrite).toEqual([]);
    expect(boundBeforeWrite).toBe(1);
    expect(records.lines).toBe(referenceLines.length);
    expect(records.events).toBe(recordEvents.length);
    expect(recordEvents.find((event) => event.streamName === 'community-1')!.metadata).toEqual({
      actor: 'seed',
      at: times[2]!.toISOString(),
    });
    expect(recordEvents.find((event) => event.streamName === 'unitType-2')!.metadata.at).toBe(times[7]!.toISOString());
  });

  it('when a record breaks a rule, then adding it throws the refusal and the batch writes only the records before it', async () => {
    const { eventStore, records } = await openImport();
    await records.add(referenceLines[0]!, new Date('2024-01-01T00:00:00.000Z'));

    const refused = records.add(
      { type: 'community', key: 'c-nowhere', data: { state: 'st-unknown', name: 'Nowhere', slug: 'nowhere' } },
      new Date('2024-01-01T00:01:00.000Z'),
    );

    await expect(refused).rejects.toBeInstanceOf(RecordRefused);
    await expect(refused).rejects.toMatchObject({
      refusal: {
        type: 'community',
        key: 'c-nowhere',
        error: { code: 'VALIDATION_FAILED', details: { fields: { 'data.state': expect.any(String) } } },
      },
    });
    await records.write();
    const streams = new Set((await wholeLog(eventStore)).map((event) => event.streamName));
    expect(streams).toContain('state-1');
    expect([...streams].some((stream) => stream.startsWith('community-'))).toBe(false);
    expect(records.lines).toBe(1);
  });

  it('when an editor takes the next id between adding records and writing them, then the write decides them again on fresh ids, at their own times', async () => {
    const { eventStore, records } = await openImport();
    const state = referenceLines[0]!;
    const at = new Date('2024-01-01T00:00:00.000Z');
    await records.add(state, at);
    await eventStore.appendToStream(idSequenceStream('state'), [{ type: 'IdAllocated', data: { resourceType: 'state' } }], {
      expectedRevision: 'any',
    });

    await records.write();

    const stateEvents = (await wholeLog(eventStore)).filter((event) => event.streamName.startsWith('state-'));
    expect(new Set(stateEvents.map((event) => event.streamName))).toEqual(new Set(['state-2']));
    expect(stateEvents[0]!.metadata).toEqual({ actor: 'seed', at: at.toISOString() });
    expect(records.boundId('state', state.key)).toBe(2);
    expect(records.events).toBe(stateEvents.length);
  });

  it('when nothing was added since the last write, then writing appends nothing', async () => {
    const { eventStore, records } = await openImport();

    await records.write();

    expect(await wholeLog(eventStore)).toEqual([]);
  });
});
