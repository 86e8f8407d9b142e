import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { projectsProjection } from '../../projections/projects.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createRedisCheckpointNotices, type CheckpointNotices } from '../../src/projectionEngine/checkpointNotices.js';
import { projectorProgress, storedCheckpointProgress, type ReadModelProgress } from '../../src/projectionEngine/readModelProgress.js';
import { startProjector } from '../../src/projectionEngine/runtime.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { appendEvents, projectCreated, referenceCatalogue } from '../support/catalogueEvents.js';
import { eventually } from '../support/eventually.js';
import { silentLogger } from '../support/projectionHarness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function readStore(): ReadStore {
  const store = createEmbeddedReadStore();
  cleanups.push(() => store.close());
  return store;
}

function closing<T extends { close(): Promise<void> }>(closable: T): T {
  cleanups.push(() => closable.close());
  return closable;
}

const CHECKPOINTS = ['projects-v1', 'developers-v1'];

const storeCheckpoints = (store: ReadStore, position: bigint, names: readonly string[] = CHECKPOINTS) =>
  store.write(
    [],
    names.map((name) => ({ name, position })),
  );

describe('read model progress beside the projector', () => {
  it('when the projector commits the position, then reached answers true; once it is stopped, a later position answers false when the time is up', async () => {
    const eventStore = closing(createSqliteEventStore({ file: ':memory:' }));
    const store = readStore();
    const projector = await startProjector({ eventStore, readStore: store, projections: [projectsProjection], logger: silentLogger() });
    cleanups.push(() => projector.stop());
    const progress = projectorProgress(projector);

    const projected = await appendEvents(eventStore, [...referenceCatalogue(), projectCreated(1)]);
    expect(await progress.reached(projected, 5_000)).toBe(true);

    await projector.stop();
    const later = await appendEvents(eventStore, [projectCreated(2)]);
    const startedAt = performance.now();
    expect(await progress.reached(later, 100)).toBe(false);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(99);
  });
});

describe('read model progress from the stored checkpoints', () => {
  it('when every checkpoint reaches the position while a request waits, then reached answers true; one checkpoint behind is not enough', async () => {
    const store = readStore();
    const progress = closing(
      storedCheckpointProgress({ readStore: store, checkpointNames: CHECKPOINTS, notices: null, logger: silentLogger() }),
    );
    let answer: boolean | undefined;
    const waiting = progress.reached(10n, 10_000).then((reached) => (answer = reached));

    await storeCheckpoints(store, 10n, ['projects-v1']);
    await storeCheckpoints(store, 9n, ['developers-v1']);
    // Several polls later, the checkpoint still behind holds the answer back.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answer).toBeUndefined();

    await storeCheckpoints(store, 12n, ['developers-v1']);
    expect(await waiting).toBe(true);
    // The slowest checkpoint is what counts.
    expect(await progress.reached(10n, 0)).toBe(true);
    expect(await progress.reached(11n, 0)).toBe(false);
  });

  it('when the checkpoints stay behind, then reached answers false once the time is up, and close ends every wait with false', async () => {
    const store = readStore();
    await storeCheckpoints(store, 3n);
    const progress = storedCheckpointProgress({ readStore: store, checkpointNames: CHECKPOINTS, notices: null, logger: silentLogger() });
    expect(await progress.reached(3n, 0)).toBe(true);
    expect(await progress.reached(4n, 50)).toBe(false);

    const cutShort = progress.reached(4n, 60_000);
    await progress.close();
    expect(await cutShort).toBe(false);
  });
});

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) console.warn('Checkpoint notices over Redis skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379).');

describe.skipIf(!redisUrl)('checkpoint notices over Redis', () => {
  const notices = (channel: string): CheckpointNotices => closing(createRedisCheckpointNotices(redisUrl!, { channel }));

  it('when a projector announces several batches in one turn, then a listener in another process hears one message with the latest of each', async () => {
    const channel = `checkpoint-notices-test-${randomBytes(4).toString('hex')}`;
    const heard: Array<ReadonlyMap<string, bigint>> = [];
    notices(channel).listen((checkpoints) => heard.push(checkpoints));
    const projector = notices(channel);
    // The listener's subscription is made in the background; announce until it hears.
    await eventually('the listener to hear a notice', async () => {
      projector.announce('projects-v1', 5n);
      projector.announce('projects-v1', 7n);
      projector.announce('developers-v1', 2n ** 63n);
      projector.announce('projects-v1', 6n);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return heard.length > 0;
    });
    expect([...heard[0]!]).toEqual([
      ['projects-v1', 7n],
      ['developers-v1', 2n ** 63n],
    ]);
  });

  it('when a notice says the checkpoints reached the position, then a waiting request is answered without waiting for the poll', async () => {
    const channel = `checkpoint-notices-test-${randomBytes(4).toString('hex')}`;
    const store = readStore();
    const progress: ReadModelProgress = closing(
      storedCheckpointProgress({
        readStore: store,
        checkpointNames: CHECKPOINTS,
        notices: notices(channel),
        logger: silentLogger(),
        pollMs: 60_000,
      }),
    );
    const projector = notices(channel);
    const waiting = progress.reached(20n, 20_000);
    // Nothing is stored: only the notices can tell, and the poll would not look again for a minute.
    await eventually('the notices to answer the waiting request', async () => {
      for (const name of CHECKPOINTS) projector.announce(name, 20n);
      return Promise.race([waiting, new Promise<false>((resolve) => setTimeout(() => resolve(false), 20))]);
    });
  });
});
