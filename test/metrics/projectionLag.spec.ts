import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createProjectionLagProbe, type ProjectionLagOptions } from '../../src/metrics/projectionLag.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';

const projections = [
  { name: 'projects', version: 1 },
  { name: 'developers', version: 3 },
];

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function storesWithEvents(count: number) {
  const eventStore = createSqliteEventStore({ file: ':memory:' });
  const readStore = createEmbeddedReadStore({});
  closers.push(
    () => eventStore.close(),
    () => readStore.close(),
  );
  for (let index = 0; index < count; index++) {
    await eventStore.appendToStream(`state-${index}`, [{ type: 'StateCreated', data: {} }], { expectedRevision: 'no_stream' });
  }
  const recordedAt = (await eventStore.readAll()).map((event) => Date.parse(event.recordedAt));
  return { eventStore, readStore, recordedAt };
}

const probeOf = (stores: Pick<ProjectionLagOptions, 'eventStore' | 'readStore'>, options: Partial<ProjectionLagOptions> = {}) =>
  createProjectionLagProbe({ ...stores, projections, positionsCountEvents: true, countUpTo: 1_000, maxAgeMs: 0, ...options });

describe('projection lag', () => {
  it('when checkpoints trail the head, then each projection is behind by the events after its versioned checkpoint, timed from the oldest of them', async () => {
    const stores = await storesWithEvents(5);
    await stores.readStore.write(
      [],
      [
        { name: 'projects', position: 5n },
        { name: 'developers@v3', position: 2n },
      ],
    );
    const now = stores.recordedAt[2]! + 30_000;
    const snapshot = await probeOf(stores, { now: () => now }).current();
    expect(snapshot).toEqual({
      head: 5n,
      projections: [
        { name: 'projects', checkpoint: 5n, eventsBehind: 0, secondsBehind: 0 },
        { name: 'developers', checkpoint: 2n, eventsBehind: 3, secondsBehind: 30 },
      ],
    });
  });

  it('when a projection has no checkpoint yet, then the whole log is behind it; an empty log has no lag', async () => {
    const empty = await storesWithEvents(0);
    expect(await probeOf(empty).current()).toEqual({
      head: null,
      projections: projections.map(({ name }) => ({ name, checkpoint: null, eventsBehind: 0, secondsBehind: 0 })),
    });
    const stores = await storesWithEvents(4);
    const lags = (await probeOf(stores).current()).projections;
    expect(lags.map((lag) => [lag.checkpoint, lag.eventsBehind])).toEqual([
      [null, 4],
      [null, 4],
    ]);
  });

  it('when positions do not count events (EventStoreDB), then the events after the checkpoint are read and counted up to the cap', async () => {
    const stores = await storesWithEvents(6);
    await stores.readStore.write([], [{ name: 'projects', position: 1n }]);
    const lags = (await probeOf(stores, { positionsCountEvents: false, countUpTo: 4 }).current()).projections;
    expect(lags.map((lag) => lag.eventsBehind)).toEqual([4, 4]);
    await stores.readStore.write([], [{ name: 'projects', position: 4n }]);
    expect((await probeOf(stores, { positionsCountEvents: false, countUpTo: 4 }).current()).projections[0]!.eventsBehind).toBe(2);
  });

  it('when asked again within maxAgeMs, then the same measurement is handed out; after it, the lag is measured afresh', async () => {
    const stores = await storesWithEvents(2);
    let now = 1_000_000;
    const probe = probeOf(stores, { maxAgeMs: 1_000, now: () => now });
    const first = await probe.current();
    await stores.readStore.write([], [{ name: 'projects', position: 2n }]);
    expect(await probe.current()).toBe(first);
    now += 1_000;
    expect((await probe.current()).projections[0]!.eventsBehind).toBe(0);
  });

  it('when the event store fails, then the measurement fails and the next call measures again', async () => {
    const stores = await storesWithEvents(1);
    let failing = true;
    const eventStore = {
      ...stores.eventStore,
      headPosition: () => (failing ? Promise.reject(new Error('down')) : stores.eventStore.headPosition()),
    };
    const probe = probeOf({ eventStore, readStore: stores.readStore }, { maxAgeMs: 60_000 });
    await expect(probe.current()).rejects.toThrow('down');
    failing = false;
    expect((await probe.current()).head).toBe(1n);
  });
});
