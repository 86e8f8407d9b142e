import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allProjections } from '../../projections/index.js';
import { checkpointNameOf, type Projection } from '../../src/projectionEngine/projection.js';
import { PROJECTS, projectsProjection, type ProjectDoc } from '../../projections/projects.js';
import { rebuildProjections, type RebuildProgress } from '../../src/projectionEngine/rebuild.js';
import { startProjector } from '../../src/projectionEngine/runtime.js';
import type { EventStore, RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { appendEvents, catalogueHistory, projectCreated, projectEvent, referenceCatalogue } from '../support/catalogueEvents.js';
import { readModelOf, recordedFields, silentLogger } from '../support/projectionHarness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function stores() {
  const eventStore = createSqliteEventStore({ file: ':memory:' });
  const readStore = createEmbeddedReadStore();
  cleanups.push(
    () => eventStore.close(),
    () => readStore.close(),
  );
  return { eventStore, readStore };
}

/** An event store and a read store on files of a fresh folder (the event store is then read ahead on a thread). */
function fileStores(folderPrefix: string) {
  const dataDir = mkdtempSync(join(tmpdir(), folderPrefix));
  const eventStore = createSqliteEventStore({ file: join(dataDir, 'events.sqlite') });
  const rebuilt = createEmbeddedReadStore({ file: join(dataDir, 'readmodels.sqlite') });
  cleanups.push(
    async () => rmSync(dataDir, { recursive: true, force: true }),
    () => eventStore.close(),
    () => rebuilt.close(),
  );
  return { eventStore, rebuilt };
}

/** Projects the whole log with the live runtime in small batches, then stops. */
async function projectIncrementally(
  eventStore: ReturnType<typeof stores>['eventStore'],
  readStore: ReturnType<typeof stores>['readStore'],
) {
  const projector = await startProjector({ eventStore, readStore, projections: allProjections, logger: silentLogger(), batchSize: 7 });
  await projector.waitForPosition((await eventStore.headPosition())!, 20_000);
  await projector.stop();
}

describe('rebuild', () => {
  it('when every projection is rebuilt from the log, then the documents are identical to incremental projection', async () => {
    const { eventStore, readStore: incremental } = stores();
    const head = await appendEvents(eventStore, catalogueHistory({ projects: 40, seed: 11 }));
    await projectIncrementally(eventStore, incremental);

    const rebuilt = createEmbeddedReadStore();
    cleanups.push(() => rebuilt.close());
    const progress: RebuildProgress[] = [];
    const result = await rebuildProjections({
      eventStore,
      readStore: rebuilt,
      projections: allProjections,
      batchSize: 250,
      onProgress: (update) => progress.push(update),
    });

    expect(result.events).toBe(Number(head));
    expect(progress.at(-1)).toMatchObject({ processed: Number(head), total: Number(head) });
    expect(progress.map((update) => update.total).every((total) => total === Number(head))).toBe(true);
    expect(await readModelOf(rebuilt, allProjections)).toEqual(await readModelOf(incremental, allProjections));
    for (const projection of allProjections) expect(await rebuilt.getCheckpoint(checkpointNameOf(projection))).toBe(head);
  });

  it('when every projection is rebuilt into a database file, then its documents (to the byte) and checkpoints equal incremental projection', async () => {
    const { eventStore, readStore: incremental } = stores();
    const head = await appendEvents(eventStore, catalogueHistory({ projects: 40, seed: 13 }));
    await projectIncrementally(eventStore, incremental);
    const dataDir = mkdtempSync(join(tmpdir(), 'rebuild-file-'));
    const rebuilt = createEmbeddedReadStore({ file: join(dataDir, 'readmodels.sqlite') });
    cleanups.push(
      async () => rmSync(dataDir, { recursive: true, force: true }),
      () => rebuilt.close(),
    );

    await rebuildProjections({ eventStore, readStore: rebuilt, projections: allProjections, batchSize: 100 });

    // As text, so that the order of keys counts too.
    expect(JSON.stringify(await readModelOf(rebuilt, allProjections))).toBe(JSON.stringify(await readModelOf(incremental, allProjections)));
    for (const projection of allProjections) expect(await rebuilt.getCheckpoint(checkpointNameOf(projection))).toBe(head);
  });

  it('when the event store is a database file, then the rebuild reads it ahead on another thread and equals incremental projection', async () => {
    const { eventStore: memoryEvents, readStore: incremental } = stores();
    const history = catalogueHistory({ projects: 30, seed: 17 });
    const head = await appendEvents(memoryEvents, history);
    await projectIncrementally(memoryEvents, incremental);
    const { eventStore, rebuilt } = fileStores('rebuild-events-file-');
    expect(await appendEvents(eventStore, history)).toBe(head);

    const result = await rebuildProjections({ eventStore, readStore: rebuilt, projections: allProjections, batchSize: 64 });

    expect(result.events).toBe(Number(head));
    expect(JSON.stringify(await readModelOf(rebuilt, allProjections))).toBe(JSON.stringify(await readModelOf(incremental, allProjections)));
    for (const projection of allProjections) expect(await rebuilt.getCheckpoint(checkpointNameOf(projection))).toBe(head);
  });

  it('when the event store cannot read ahead, then the rebuild pages with readAll, asking for the next page before projecting this one', async () => {
    const { eventStore: store, readStore: incremental } = stores();
    const head = await appendEvents(store, catalogueHistory({ projects: 10, seed: 29 }));
    await projectIncrementally(store, incremental);
    const reads: Array<bigint | undefined> = [];
    const eventStore: EventStore = {
      appendToStream: (...args) => store.appendToStream(...args),
      appendToStreams: (appends) => store.appendToStreams(appends),
      readStream: (...args) => store.readStream(...args),
      streamRevision: (streamName) => store.streamRevision(streamName),
      readAll: (options) => {
        reads.push(options?.after);
        return store.readAll(options);
      },
      headPosition: () => store.headPosition(),
      subscribeToAll: (options) => store.subscribeToAll(options),
      ping: () => store.ping(),
      close: () => store.close(),
    };
    const rebuilt = createEmbeddedReadStore();
    cleanups.push(() => rebuilt.close());
    const readsWhenFirstApplied: number[] = [];
    const observer: Projection = {
      name: 'observer',
      version: 1,
      collections: ['observed'],
      indexes: {},
      handles: ['ProjectCreated'],
      async apply() {
        if (readsWhenFirstApplied.length === 0) readsWhenFirstApplied.push(reads.length);
      },
    };

    const result = await rebuildProjections({ eventStore, readStore: rebuilt, projections: [...allProjections, observer], batchSize: 50 });

    expect(result.events).toBe(Number(head));
    expect(readsWhenFirstApplied).toEqual([2]);
    expect(reads.at(-1)).toBe(head);
    expect(JSON.stringify(await readModelOf(rebuilt, allProjections))).toBe(JSON.stringify(await readModelOf(incremental, allProjections)));
  });

  it('when a database file is read ahead, then its pages hold the events readAll gives, in order, and end with an empty page', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'read-ahead-'));
    const eventStore = createSqliteEventStore({ file: join(dataDir, 'events.sqlite') });
    cleanups.push(
      async () => rmSync(dataDir, { recursive: true, force: true }),
      () => eventStore.close(),
    );
    await appendEvents(eventStore, catalogueHistory({ projects: 5, seed: 19 }));
    await eventStore.appendToStream(
      'unicode-1',
      [{ type: 'Noted', data: { text: 'Studio – 1 Bedroom, Dubaï 😀' }, metadata: { actor: 'é' } }],
      {
        expectedRevision: 'no_stream',
      },
    );
    const after = 3n;

    const pages: RecordedEvent[][] = [];
    for await (const page of eventStore.readAllAhead({ after, pageSize: 10 })) pages.push(page.events);

    expect(pages.at(-1)).toEqual([]);
    expect(pages.slice(0, -1).every((page) => page.length > 0 && page.length <= 10)).toBe(true);
    expect(pages.flat().map(recordedFields)).toEqual((await eventStore.readAll({ after, maxCount: 1_000_000 })).map(recordedFields));
  });

  it('when reading ahead is stopped before the end, then the reader ends and the store still closes', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'read-ahead-stop-'));
    const eventStore = createSqliteEventStore({ file: join(dataDir, 'events.sqlite') });
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    await appendEvents(eventStore, catalogueHistory({ projects: 5, seed: 23 }));

    const pages = eventStore.readAllAhead({ pageSize: 2 });
    const first = await pages.next();
    await pages.return();

    expect(first.value?.events).toHaveLength(2);
    expect(await pages.next()).toEqual({ done: true, value: undefined });
    await eventStore.close();
  });

  it('when a page gets through only in halves (a slug handed over, then its giver edited), then the rebuild equals incremental projection', async () => {
    const { eventStore, readStore: incremental } = stores();
    const firstPage = [
      ...referenceCatalogue(),
      projectCreated(1, { slug: 'marina-heights' }),
      projectCreated(2, { slug: 'marina-heights-2' }),
    ];
    const head = await appendEvents(eventStore, [
      ...firstPage,
      projectEvent('ProjectRevised', 1, { changes: { slug: 'marina-heights-old' } }),
      projectEvent('ProjectRevised', 2, { changes: { slug: 'marina-heights' } }),
      projectEvent('ProjectPublished', 1, {}),
    ]);
    await projectIncrementally(eventStore, incremental);
    const rebuiltStore = createEmbeddedReadStore();
    cleanups.push(() => rebuiltStore.close());
    const refused: unknown[] = [];
    const counting: ReadStore = {
      ...rebuiltStore,
      async beginGeneration(collections) {
        const generation = await rebuiltStore.beginGeneration(collections);
        return {
          ...generation,
          write: (ops, checkpoints) =>
            generation.write(ops, checkpoints).catch((error: unknown) => Promise.reject(refused.push(error) && error)),
        };
      },
    };

    await rebuildProjections({ eventStore, readStore: counting, projections: allProjections, batchSize: firstPage.length });

    expect(refused).toEqual([expect.objectContaining({ code: 'DUPLICATE_KEY' })]);
    expect(JSON.stringify(await readModelOf(rebuiltStore, allProjections))).toBe(
      JSON.stringify(await readModelOf(incremental, allProjections)),
    );
    for (const projection of allProjections) expect(await rebuiltStore.getCheckpoint(checkpointNameOf(projection))).toBe(head);
  });

  it('when the log read ahead ends with events no projection handles, then every checkpoint is the head, and a live projector after the promote applies each later event once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rebuild-unhandled-tail-'));
    const eventStore = createSqliteEventStore({ file: join(dataDir, 'events.sqlite') });
    const readStore = createEmbeddedReadStore();
    const incremental = createEmbeddedReadStore();
    cleanups.push(
      async () => rmSync(dataDir, { recursive: true, force: true }),
      () => eventStore.close(),
      () => readStore.close(),
      () => incremental.close(),
    );
    const unhandledTail = async () => {
      await eventStore.appendToStream('ids-project', [{ type: 'IdAllocated', data: { resourceType: 'project' } }], {
        expectedRevision: 'any',
      });
      await eventStore.appendToStream('slugs-project-late', [{ type: 'SlugReserved', data: { slug: 'late' } }], {
        expectedRevision: 'any',
      });
      return (await eventStore.headPosition())!;
    };
    const applied: bigint[] = [];
    const counter: Projection = {
      name: 'counter',
      version: 1,
      collections: ['counted'],
      indexes: {},
      handles: ['ProjectCreated', 'ProjectRevised'],
      async apply(event) {
        applied.push(event.position);
      },
    };
    const projections = [...allProjections, counter];
    const handled = new Set(projections.flatMap((projection) => projection.handles));
    expect(handled.has('IdAllocated') || handled.has('SlugReserved')).toBe(false);
    await appendEvents(eventStore, catalogueHistory({ projects: 12, seed: 37 }));
    const head = await unhandledTail();

    const result = await rebuildProjections({ eventStore, readStore, projections, batchSize: 40 });

    const log = await eventStore.readAll({ maxCount: 1_000_000 });
    expect(result.events).toBe(Number(head));
    expect(result.projected).toBe(log.filter((event) => handled.has(event.type)).length);
    expect(result.projected).toBeLessThan(result.events);
    for (const projection of projections) expect(await readStore.getCheckpoint(checkpointNameOf(projection))).toBe(head);

    const projector = await startProjector({ eventStore, readStore, projections, logger: silentLogger(), batchSize: 7 });
    cleanups.push(() => projector.stop());
    await projector.waitForPosition(head, 1_000);
    await appendEvents(eventStore, [projectEvent('ProjectRevised', 3, { changes: { name: 'Renamed after the rebuild' } })]);
    const newHead = await unhandledTail();
    await projector.waitForPosition(newHead, 20_000);
    await projectIncrementally(eventStore, incremental);

    const loggedAfter = await eventStore.readAll({ maxCount: 1_000_000 });
    expect(applied).toEqual(loggedAfter.filter((event) => counter.handles.includes(event.type)).map((event) => event.position));
    for (const projection of projections) expect(await readStore.getCheckpoint(checkpointNameOf(projection))).toBe(newHead);
    expect((await readStore.get<ProjectDoc>(PROJECTS, 3))?.name).toBe('Renamed after the rebuild');
    expect(JSON.stringify(await readModelOf(readStore, allProjections))).toBe(
      JSON.stringify(await readModelOf(incremental, allProjections)),
    );
  });

  it('when a rebuild runs, then the old generation keeps serving until the new one is promoted', async () => {
    const { eventStore, readStore } = stores();
    await appendEvents(eventStore, catalogueHistory({ projects: 10, seed: 5 }));
    await projectIncrementally(eventStore, readStore);
    const servedBefore = await readModelOf(readStore, allProjections);
    const checkpointBefore = await readStore.getCheckpoint(checkpointNameOf(projectsProjection));

    const head = await appendEvents(eventStore, [projectEvent('ProjectRevised', 3, { changes: { name: 'Renamed during the outage' } })]);
    // The embedded store answers at the moment of the call, so reads started from onProgress show what
    // the API serves while the rebuild is under way.
    const servedDuringRebuild: Array<Promise<[ProjectDoc | null, bigint | null]>> = [];
    await rebuildProjections({
      eventStore,
      readStore,
      projections: allProjections,
      batchSize: 50,
      onProgress: () => {
        servedDuringRebuild.push(
          Promise.all([readStore.get<ProjectDoc>(PROJECTS, 3), readStore.getCheckpoint(checkpointNameOf(projectsProjection))]),
        );
      },
    });

    expect(servedDuringRebuild.length).toBeGreaterThan(1);
    for (const [project, checkpoint] of await Promise.all(servedDuringRebuild)) {
      expect(project).toEqual(servedBefore[PROJECTS]!.find((doc) => doc._id === 3));
      expect(checkpoint).toBe(checkpointBefore);
    }
    expect((await readStore.get<ProjectDoc>(PROJECTS, 3))?.name).toBe('Renamed during the outage');
    expect(await readStore.getCheckpoint(checkpointNameOf(projectsProjection))).toBe(head);
  });

  it('when the rebuild follows a log that grows while it runs, then it reads on as it grows and, once told the appending finished, promotes documents equal to incremental projection at the final head', async () => {
    const { eventStore: memoryEvents, readStore: incremental } = stores();
    const history = catalogueHistory({ projects: 30, seed: 23 });
    const head = await appendEvents(memoryEvents, history);
    await projectIncrementally(memoryEvents, incremental);
    const { eventStore, rebuilt } = fileStores('rebuild-follow-');
    const thirds = [0, 1, 2, 3].map((third) => Math.round((history.length * third) / 3));
    const firstThirdHead = await appendEvents(eventStore, history.slice(0, thirds[1]));
    let appendingFinished!: () => void;
    const finished = new Promise<void>((resolve) => (appendingFinished = resolve));
    const processed: number[] = [];
    const rebuild = rebuildProjections({
      eventStore,
      readStore: rebuilt,
      projections: allProjections,
      batchSize: 64,
      follow: { finished, readOnAfter: 100 },
      onProgress: (update) => processed.push(update.processed),
    });
    const caughtUpWith = async (position: bigint) => {
      for (let waited = 0; processed.at(-1) !== Number(position); waited += 20) {
        if (waited > 10_000) throw new Error(`the rebuild did not read to ${position}: ${processed.at(-1)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    await caughtUpWith(firstThirdHead);
    const secondThirdHead = await appendEvents(eventStore, history.slice(thirds[1], thirds[2]));
    await caughtUpWith(secondThirdHead);
    expect(await appendEvents(eventStore, history.slice(thirds[2]))).toBe(head);
    appendingFinished();
    const result = await rebuild;

    expect(result.events).toBe(Number(head));
    expect(JSON.stringify(await readModelOf(rebuilt, allProjections))).toBe(JSON.stringify(await readModelOf(incremental, allProjections)));
    for (const projection of allProjections) expect(await rebuilt.getCheckpoint(checkpointNameOf(projection))).toBe(head);
  });

  it('when a following rebuild is aborted while it waits for the log to grow, then it rejects and the live models stay as they were', async () => {
    const { eventStore, readStore } = stores();
    await appendEvents(eventStore, catalogueHistory({ projects: 6, seed: 31 }));
    await projectIncrementally(eventStore, readStore);
    const served = await readModelOf(readStore, allProjections);
    const abandoned = new AbortController();
    let pages = 0;

    const rebuild = rebuildProjections({
      eventStore,
      readStore,
      projections: allProjections,
      follow: { finished: new Promise<void>(() => undefined) },
      signal: abandoned.signal,
      onProgress: () => (pages += 1),
    });
    rebuild.catch(() => undefined);
    for (let waited = 0; pages === 0 && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    abandoned.abort(new Error('the import appended nothing'));

    await expect(rebuild).rejects.toThrow('the import appended nothing');
    expect(await readModelOf(readStore, allProjections)).toEqual(served);
  });

  it('when a projection fails during the rebuild, then the rebuild rejects and the live models stay as they were', async () => {
    const { eventStore, readStore } = stores();
    await appendEvents(eventStore, catalogueHistory({ projects: 6, seed: 9 }));
    await projectIncrementally(eventStore, readStore);
    const served = await readModelOf(readStore, allProjections);
    const failing: Projection = {
      name: 'failing',
      version: 1,
      collections: ['failing_docs'],
      indexes: {},
      handles: ['ProjectRevised'],
      async apply() {
        throw new Error('broken projection');
      },
    };
    await expect(rebuildProjections({ eventStore, readStore, projections: [...allProjections, failing] })).rejects.toThrow(
      'broken projection',
    );
    expect(await readModelOf(readStore, allProjections)).toEqual(served);
    expect((await readStore.find('failing_docs')).total).toBe(0);
  });
});
