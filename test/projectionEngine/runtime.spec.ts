import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_CHANGES, changeFeedProjection } from '../../projections/changeFeed.js';
import { allProjections } from '../../projections/index.js';
import {
  alreadyApplied,
  checkpointNameOf,
  positionNumber,
  type PositionedDoc,
  type Projection,
} from '../../src/projectionEngine/projection.js';
import { PROJECTS, projectsProjection } from '../../projections/projects.js';
import { rebuildProjections } from '../../src/projectionEngine/rebuild.js';
import { startProjector, type Projector } from '../../src/projectionEngine/runtime.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { sequenceId, type ReadStore, type WriteOp } from '../../src/readStore/readStore.js';
import { appendEvents, catalogueHistory, minute, projectCreated, projectEvent, referenceCatalogue } from '../support/catalogueEvents.js';
import { eventually } from '../support/eventually.js';
import {
  capturingLogger,
  projectInBatches,
  readModelOf,
  readWholeLog,
  recordingWrites,
  silentLogger,
} from '../support/projectionHarness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function stores(): { eventStore: EventStore; readStore: ReadStore } {
  const eventStore = createSqliteEventStore({ file: ':memory:' });
  const readStore = createEmbeddedReadStore();
  cleanups.push(
    () => eventStore.close(),
    () => readStore.close(),
  );
  return { eventStore, readStore };
}

async function started(options: Parameters<typeof startProjector>[0]): Promise<Projector> {
  const projector = await startProjector(options);
  cleanups.push(() => projector.stop());
  return projector;
}

const putIds = (ops: WriteOp[]) => ops.flatMap((op) => (op.op === 'put' ? [op.doc._id] : []));
/** The change feed's entries, one per reported event (its publication documents left aside). */
const feedEntries = (ops: WriteOp[]) => ops.filter((op) => op.collection === PROJECT_CHANGES);

describe('projector runtime', () => {
  it('when events are appended while it runs, then waitForPosition resolves once they are in the read model', async () => {
    const { eventStore, readStore } = stores();
    const projector = await started({ eventStore, readStore, projections: [projectsProjection], logger: silentLogger() });
    const position = await appendEvents(eventStore, [...referenceCatalogue(), projectCreated(1, { name: 'Live One' })]);
    await projector.waitForPosition(position, 5_000);
    expect(await readStore.get(PROJECTS, 1)).toMatchObject({ name: 'Live One' });
    expect(await readStore.getCheckpoint(checkpointNameOf(projectsProjection))).toBe(position);
  });

  it('when a position is never reached, then waitForPosition rejects after its timeout naming the projections behind', async () => {
    const { eventStore, readStore } = stores();
    const projector = await started({ eventStore, readStore, projections: [projectsProjection], logger: silentLogger() });
    await expect(projector.waitForPosition(10_000n, 100)).rejects.toThrow(/projects did not reach position 10000/);
  });

  it('when it is restarted after more events were appended, then it resumes after its checkpoint and applies only the new ones', async () => {
    const { eventStore, readStore } = stores();
    const first = await startProjector({ eventStore, readStore, projections: [changeFeedProjection], logger: silentLogger() });
    const firstHead = await appendEvents(eventStore, [...referenceCatalogue(), projectCreated(1), projectEvent('ProjectPublished', 1, {})]);
    await first.waitForPosition(firstHead, 5_000);
    await first.stop();

    const later = await appendEvents(eventStore, [projectCreated(2), projectEvent('ProjectPublished', 2, {})]);
    const recording = recordingWrites(readStore);
    const second = await started({
      eventStore,
      readStore: recording.readStore,
      projections: [changeFeedProjection],
      logger: silentLogger(),
    });
    await second.waitForPosition(later, 5_000);

    expect(recording.writes.flatMap((write) => putIds(feedEntries(write.ops)))).toEqual([
      sequenceId(Number(firstHead + 1n)),
      sequenceId(Number(later)),
    ]);
    expect((await readStore.find(PROJECT_CHANGES)).total).toBe(4);
  });

  it('when a backlog is projected, then each batch is one write that carries its checkpoint', async () => {
    const { eventStore, readStore } = stores();
    const events = [
      projectCreated(1),
      ...Array.from({ length: 9 }, (_, index) =>
        projectEvent('ProjectRevised', 1, { changes: { name: `Name ${index}` } }, minute(index + 1)),
      ),
    ];
    for (const event of events) await appendEvents(eventStore, [event]);
    const recording = recordingWrites(readStore);
    const projector = await started({
      eventStore,
      readStore: recording.readStore,
      projections: [changeFeedProjection],
      logger: silentLogger(),
      batchSize: 4,
    });
    await projector.waitForPosition(10n, 5_000);
    expect(recording.writes.map((write) => [feedEntries(write.ops).length, write.checkpoints])).toEqual([
      [4, [`${checkpointNameOf(changeFeedProjection)}@4`]],
      [4, [`${checkpointNameOf(changeFeedProjection)}@8`]],
      [2, [`${checkpointNameOf(changeFeedProjection)}@10`]],
    ]);
  });

  it('when the read models were built by an earlier version of a projection, then the projector rebuilds them before projecting live', async () => {
    const { eventStore, readStore } = stores();
    const { logger, lines } = capturingLogger();
    const shapes = (version: number, shape: string): Projection => ({
      name: 'shapes',
      version,
      collections: ['shapes'],
      indexes: {},
      handles: ['ProjectCreated', 'ProjectRevised'],
      async apply(event, ctx) {
        const id = (event.data as { project_id: number }).project_id;
        if (alreadyApplied(await ctx.get<PositionedDoc>('shapes', id), event)) return;
        ctx.put('shapes', { _id: id, shape, _position: positionNumber(event) });
      },
    });
    const first = await startProjector({ eventStore, readStore, projections: [shapes(1, 'old')], logger: silentLogger() });
    const head = await appendEvents(eventStore, [
      projectCreated(1),
      projectCreated(2),
      projectEvent('ProjectRevised', 1, { changes: { name: 'Revised' } }),
    ]);
    await first.waitForPosition(head, 5_000);
    await first.stop();
    expect((await readStore.find('shapes')).items.map((doc) => doc.shape)).toEqual(['old', 'old']);

    // Live projection alone would leave both documents as they are: each already carries its last event.
    const projector = await started({ eventStore, readStore, projections: [shapes(2, 'new')], logger });
    expect((await readStore.find('shapes')).items.map((doc) => doc.shape)).toEqual(['new', 'new']);
    expect(await readStore.getCheckpoint('shapes@v2')).toBe(head);
    expect(lines.map((line) => line.msg)).toContain(
      'read models built by an earlier version of their projection: rebuilding them from the log',
    );

    const next = await appendEvents(eventStore, [projectCreated(3)]);
    await projector.waitForPosition(next, 5_000);
    expect(await readStore.get('shapes', 3)).toMatchObject({ shape: 'new' });
  });

  it('when a store was never projected, then the projector projects it live without a rebuild', async () => {
    const { eventStore, readStore } = stores();
    const { logger, lines } = capturingLogger();
    const head = await appendEvents(eventStore, [...referenceCatalogue(), projectCreated(1)]);
    const projector = await started({ eventStore, readStore, projections: [projectsProjection], logger });
    await projector.waitForPosition(head, 5_000);
    expect(lines.map((line) => line.msg)).not.toContain(
      'read models built by an earlier version of their projection: rebuilding them from the log',
    );
    expect(await readStore.getCheckpoint(checkpointNameOf(projectsProjection))).toBe(head);
  });

  it('when a projection keeps failing, then it logs, backs off, keeps its checkpoint before the failing event and catches up once fixed', async () => {
    const { eventStore, readStore } = stores();
    const { logger, lines } = capturingLogger();
    let broken = true;
    const flaky: Projection = {
      name: 'flaky',
      version: 1,
      collections: ['flaky_published'],
      indexes: {},
      handles: ['ProjectPublished'],
      async apply(event, ctx) {
        if (broken) throw new Error('cannot project a publication');
        ctx.put('flaky_published', { _id: String(event.position) });
      },
    };
    const projector = await started({
      eventStore,
      readStore,
      projections: [flaky],
      logger,
      batchSize: 50,
      retry: { initialMs: 20, maxMs: 1_000 },
    });
    const created = await appendEvents(eventStore, [projectCreated(1)]);
    const published = await appendEvents(eventStore, [projectEvent('ProjectPublished', 1, {})]);
    await appendEvents(eventStore, [projectEvent('ProjectRevised', 1, { changes: { name: 'After' } })]);

    const startedWaiting = Date.now();
    const failures = await eventually('three logged failures', () => {
      const logged = lines.filter((line) => line.level === 50);
      return logged.length >= 3 && logged.slice(0, 3);
    });
    expect(failures.map((line) => line.retryInMs)).toEqual([20, 40, 80]);
    expect(failures[0]).toMatchObject({
      projection: 'flaky',
      msg: expect.stringMatching(/failed/),
      err: { message: 'cannot project a publication' },
    });
    // Three failures took at least the 20 + 40 ms of backoff between them: no hot loop.
    expect(Date.now() - startedWaiting).toBeGreaterThanOrEqual(60);
    const checkpoint = await readStore.getCheckpoint('flaky');
    expect(checkpoint === null || checkpoint < published).toBe(true);
    expect(checkpoint === null || checkpoint >= created).toBe(true);

    broken = false;
    await projector.waitForPosition(published + 1n, 5_000);
    expect(await readStore.get('flaky_published', String(published))).not.toBeNull();
  });

  it('when stopped during a batch, then it finishes that batch and its checkpoint before stop resolves', async () => {
    const { eventStore, readStore } = stores();
    let enter!: () => void;
    const entered = new Promise<void>((resolve) => (enter = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow: Projection = {
      name: 'slow',
      version: 1,
      collections: ['slow_projects'],
      indexes: {},
      handles: ['ProjectCreated'],
      async apply(event, ctx) {
        enter();
        await released;
        ctx.put('slow_projects', { _id: String(event.position) });
      },
    };
    const projector = await startProjector({ eventStore, readStore, projections: [slow], logger: silentLogger() });
    const position = await appendEvents(eventStore, [projectCreated(1)]);
    await entered;

    let stopped = false;
    const stopping = projector.stop().then(() => (stopped = true));
    // A window for stop to resolve early if it did not wait for the batch: nothing to poll for, the point is that it does not happen.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await readStore.getCheckpoint('slow')).toBe(position);
    expect(await readStore.get('slow_projects', String(position))).not.toBeNull();
  });

  it('when another process promotes a rebuilt generation behind this projector, then it resubscribes from the promoted checkpoint and misses nothing', async () => {
    const { eventStore, readStore } = stores();
    const projector = await started({ eventStore, readStore, projections: allProjections, logger: silentLogger(), batchSize: 20 });
    const history = catalogueHistory({ projects: 12, seed: 3 });
    const head = await appendEvents(eventStore, history);
    await projector.waitForPosition(head, 10_000);

    // A replay elsewhere built its generations only up to an earlier position, then promoted them: the
    // live checkpoints move backwards and the events after that position are missing from the new models.
    const log = await readWholeLog(eventStore);
    const replayedUpTo = log.slice(0, Math.floor(log.length / 2));
    for (const projection of allProjections) {
      const generation = await readStore.beginGeneration(projection.collections);
      await projectInBatches(generation, projection, replayedUpTo, 100);
      await generation.promote();
    }
    expect(await readStore.getCheckpoint(checkpointNameOf(projectsProjection))).toBe(replayedUpTo.at(-1)!.position);

    const last = await appendEvents(eventStore, [projectEvent('ProjectRevised', 2, { changes: { name: 'After the promotion' } })]);
    await projector.waitForPosition(last, 10_000);

    const clean = createEmbeddedReadStore();
    cleanups.push(() => clean.close());
    await rebuildProjections({ eventStore, readStore: clean, projections: allProjections });
    expect(await readModelOf(readStore, allProjections)).toEqual(await readModelOf(clean, allProjections));
  });
});
