import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { eventually } from '../support/eventually.js';
import { eventStoreContract } from './eventStoreContract.js';

const tempDir = mkdtempSync(join(tmpdir(), 'sqlite-event-store-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

const aDatabaseFile = (): string => join(tempDir, `${randomUUID()}.sqlite`);

eventStoreContract('SQLite', async () => createSqliteEventStore({ file: aDatabaseFile() }), 'writes_nothing');

const anEvent = (sequence: number, id?: string) => ({ type: 'ThingHappened', data: { sequence }, ...(id ? { id } : {}) });

const adapterModule = fileURLToPath(new URL('../../src/eventStore/sqliteEventStore.ts', import.meta.url));

/**
 * A separate Node process that opens the file, reports ready, and on "go" appends one event expecting
 * revision 0, then prints whether it won or met a conflict.
 */
function aRivalProcess(file: string, streamName: string) {
  const script = `
    const { createSqliteEventStore } = await import(${JSON.stringify(adapterModule)});
    const store = createSqliteEventStore({ file: ${JSON.stringify(file)} });
    process.stdout.write('ready\\n');
    process.stdin.once('data', async () => {
      try {
        await store.appendToStream(${JSON.stringify(streamName)}, [{ type: 'ThingHappened', data: { by: process.pid } }], { expectedRevision: 0 });
        process.stdout.write('won\\n');
      } catch (error) {
        process.stdout.write(error.name === 'WrongExpectedRevisionError' ? 'conflict\\n' : 'failed ' + error.message + '\\n');
      }
      await store.close();
      process.exit(0);
    });
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  const ready = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready')) resolve();
    });
  });
  const outcome = new Promise<string>((resolve) => child.on('exit', () => resolve(output.replace('ready\n', '').trim())));
  return { ready, outcome, go: () => child.stdin.end('go\n') };
}

describe('SQLite event store', () => {
  const stores: EventStore[] = [];
  const open = (file: string): EventStore => {
    const store = createSqliteEventStore({ file });
    stores.push(store);
    return store;
  };

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  it('when opened on a file, then the file is in WAL mode', async () => {
    const file = aDatabaseFile();
    open(file);

    const inspector = new Database(file, { readonly: true });
    try {
      expect(inspector.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      inspector.close();
    }
  });

  it('when another instance appends to the same file, then a subscription picks the events up by polling', async () => {
    const file = aDatabaseFile();
    const subscriber = open(file);
    const writer = open(file);
    const delivered: RecordedEvent[] = [];
    const subscription = subscriber.subscribeToAll({
      onBatch: async (batch) => {
        delivered.push(...batch);
      },
    });

    await writer.appendToStream('thing-1', [anEvent(0), anEvent(1)], { expectedRevision: 'no_stream' });
    await writer.appendToStream('thing-2', [anEvent(2)], { expectedRevision: 'no_stream' });
    await eventually("the other instance's 3 events", () => delivered.length >= 3);
    await subscription.close();

    expect(delivered.map((event) => event.data)).toEqual([{ sequence: 0 }, { sequence: 1 }, { sequence: 2 }]);
  });

  it('when concurrent appends to one instance expect the same revision, then exactly one wins', async () => {
    const store = open(aDatabaseFile());
    await store.appendToStream('thing-1', [anEvent(0)], { expectedRevision: 'no_stream' });

    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4].map((sequence) => store.appendToStream('thing-1', [anEvent(sequence)], { expectedRevision: 0 })),
    );

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const rejections = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(rejections.every((reason) => reason instanceof WrongExpectedRevisionError)).toBe(true);
    expect((await store.readStream('thing-1')).map((event) => event.revision)).toEqual([0, 1]);
  });

  it('when processes on one file append concurrently expecting the same revision, then exactly one wins', async () => {
    const file = aDatabaseFile();
    const store = open(file);
    await store.appendToStream('thing-1', [anEvent(0)], { expectedRevision: 'no_stream' });
    const rivals = [1, 2, 3].map(() => aRivalProcess(file, 'thing-1'));

    await Promise.all(rivals.map((rival) => rival.ready));
    for (const rival of rivals) rival.go();
    const outcomes = await Promise.all(rivals.map((rival) => rival.outcome));

    expect(outcomes.sort()).toEqual(['conflict', 'conflict', 'won']);
    expect((await store.readStream('thing-1')).map((event) => event.revision)).toEqual([0, 1]);
  });

  it('when a batch reuses an event id stored in another stream, then none of its events is written', async () => {
    const store = open(aDatabaseFile());
    const takenId = randomUUID();
    await store.appendToStream('thing-1', [anEvent(0, takenId)], { expectedRevision: 'no_stream' });

    await expect(
      store.appendToStream('thing-2', [anEvent(1), anEvent(2, takenId)], { expectedRevision: 'no_stream' }),
    ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });

    expect(await store.readStream('thing-2')).toEqual([]);
    expect(await store.readAll()).toHaveLength(1);
  });

  it('when reading the log without maxCount, then a page of 1000 events is returned', async () => {
    const store = open(aDatabaseFile());
    await store.appendToStream(
      'thing-1',
      Array.from({ length: 1200 }, (_, sequence) => anEvent(sequence)),
      {
        expectedRevision: 'no_stream',
      },
    );

    const firstPage = await store.readAll();
    const secondPage = await store.readAll({ after: firstPage.at(-1)?.position });

    expect(firstPage).toHaveLength(1000);
    expect(secondPage.map((event) => event.revision)).toEqual(Array.from({ length: 200 }, (_, index) => 1000 + index));
  });

  it('when subscriptions with consumers of different speeds catch up over many pages, then each delivers every event once and in order', async () => {
    const store = open(aDatabaseFile());
    const count = 12_000;
    for (let from = 0; from < count; from += 1_000) {
      await store.appendToStream(
        'thing-1',
        Array.from({ length: 1_000 }, (_, index) => anEvent(from + index)),
        { expectedRevision: from === 0 ? 'no_stream' : from - 1 },
      );
    }
    const consumers = [0, 1, 5].map((delayMs) => {
      const delivered: number[] = [];
      const subscription = store.subscribeToAll({
        maxBatchSize: 400,
        onBatch: async (batch) => {
          for (const event of batch) delivered.push(event.revision);
          if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        },
      });
      return { delivered, subscription };
    });

    await eventually('every consumer to have every event', () => consumers.every(({ delivered }) => delivered.length >= count));
    await Promise.all(consumers.map(({ subscription }) => subscription.close()));

    for (const { delivered } of consumers) expect(delivered).toEqual(Array.from({ length: count }, (_, index) => index));
  });

  it('when the store is closed, then ping answers false', async () => {
    const store = createSqliteEventStore({ file: aDatabaseFile() });

    await store.close();

    expect(await store.ping()).toBe(false);
  });
});
