import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { allProjections } from '../../projections/index.js';
import { loadConfig } from '../../src/config.js';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { checkpointNameOf } from '../../src/projectionEngine/projection.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { seedDemoCatalogue } from '../../src/seed/demoCatalogue.js';
import { seedDemoClient } from '../../src/seed/demoClient.js';
import { seedThroughStaging } from '../../src/seed/stagedSeed.js';
import { startService } from '../../src/service.js';
import { blobStoredFiles } from '../../src/uploads/blobStoredFiles.js';
import { capturingLogger, readWholeLog, silentLogger } from '../support/projectionHarness.js';
import { TEST_ADMIN_TOKEN } from '../support/testApp.js';

const SEEDED_PROJECTS = 10;
const PRESENT = () => new Date('2030-01-01T00:00:00.000Z');

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'staged-seed-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An event store in a file, as the service opens it on a first start. */
function fileEventStore(dir: string): EventStore {
  const eventStore = createSqliteEventStore({ file: join(dir, 'events.sqlite') });
  cleanups.push(() => eventStore.close());
  return eventStore;
}

/** What a copy keeps of an event: all but the time the store recorded it. */
function copiedFields({ id, type, data, metadata, streamName, revision, position }: RecordedEvent) {
  return { id, type, data, metadata, streamName, revision, position };
}

/** A blob store in `dir` that fails the put after `workingPuts` successful ones. */
function blobStoreFailingAfter(dir: string, workingPuts: number): BlobStore {
  const blobStore = createEmbeddedBlobStore({ dataDir: dir });
  let puts = 0;
  return {
    put: (source, options) => {
      puts += 1;
      return puts > workingPuts ? Promise.reject(new Error('disk full')) : blobStore.put(source, options);
    },
    stat: (sha256) => blobStore.stat(sha256),
    open: (sha256, range) => blobStore.open(sha256, range),
    linkVariant: (source, variant, derived) => blobStore.linkVariant(source, variant, derived),
    findVariant: (source, variant) => blobStore.findVariant(source, variant),
    list: () => blobStore.list(),
    delete: (sha256) => blobStore.delete(sha256),
    close: () => blobStore.close(),
  };
}

/** A service's config for a first start on `dataDir` that seeds `projects` demo projects. */
function firstStartConfig(dataDir: string, projects: number) {
  return loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    DATA_DIR: dataDir,
    SEED_DEMO: 'true',
    SEED_PROJECTS: String(projects),
  });
}

describe('first-start seed through an in-memory staging store', () => {
  it('when the demo catalogue and client are staged and copied into an empty store, then it holds the staged log event for event at the same positions', async () => {
    const dir = temporaryDir();
    const target = fileEventStore(dir);
    const readStore = createEmbeddedReadStore();
    const blobStore = createEmbeddedBlobStore({ dataDir: dir });
    cleanups.push(
      () => readStore.close(),
      () => blobStore.close(),
    );
    let staged: RecordedEvent[] = [];

    await seedThroughStaging({ staging: createSqliteEventStore({ file: ':memory:' }), target }, async (eventStore) => {
      await seedDemoCatalogue({ eventStore, readStore, blobStore, clock: PRESENT }, { projects: SEEDED_PROJECTS });
      await seedDemoClient({ eventStore, readStore, blobStore, clock: PRESENT, storedFiles: blobStoredFiles(blobStore) });
      staged = await readWholeLog(eventStore);
    });

    const copied = await readWholeLog(target);
    expect(staged.filter((event) => event.type === 'ProjectCreated')).toHaveLength(SEEDED_PROJECTS);
    expect(staged.filter((event) => event.type === 'ClientRegistered')).toHaveLength(1);
    expect(copied.map(copiedFields)).toEqual(staged.map(copiedFields));
    expect(copied[0]!.position).toBe(1n);
  });

  it('when the seed fails after writing to the staging store, then the target stays empty and the failure reaches the caller', async () => {
    const target = fileEventStore(temporaryDir());

    const seeding = seedThroughStaging({ staging: createSqliteEventStore({ file: ':memory:' }), target }, async (eventStore) => {
      await eventStore.appendToStream('state-1', [{ type: 'StateCreated', data: { state_id: 1 } }], { expectedRevision: 'no_stream' });
      throw new Error('seed data does not pass its schema');
    });

    await expect(seeding).rejects.toThrow('seed data does not pass its schema');
    expect(await target.headPosition()).toBeNull();
  });

  it('when the copy is refused at a stream the target already holds, then the target keeps none of the staged events', async () => {
    const target = fileEventStore(temporaryDir());
    await target.appendToStream('state-2', [{ type: 'StateCreated', data: { state_id: 2 } }], { expectedRevision: 'no_stream' });
    const before = await readWholeLog(target);

    const seeding = seedThroughStaging({ staging: createSqliteEventStore({ file: ':memory:' }), target }, async (eventStore) => {
      for (const stateId of [1, 2, 3]) {
        await eventStore.appendToStream(`state-${stateId}`, [{ type: 'StateCreated', data: { state_id: stateId } }], {
          expectedRevision: 'no_stream',
        });
      }
    });

    await expect(seeding).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await readWholeLog(target)).toEqual(before);
  });

  it('when the first start fails midway through the seed, then the event store stays empty and the next start seeds the demo', async () => {
    const dataDir = temporaryDir();
    const config = firstStartConfig(dataDir, 0);

    const failedStart = startService({ config, logger: silentLogger(), blobStore: blobStoreFailingAfter(dataDir, 5) });
    await expect(failedStart).rejects.toThrow('disk full');
    const leftBehind = fileEventStore(dataDir);
    expect(await leftBehind.headPosition()).toBeNull();
    await leftBehind.close();

    const service = await startService({ config, logger: silentLogger() });
    cleanups.push(() => service.stop());
    const log = await readWholeLog(service.eventStore);
    expect(log.filter((event) => event.type === 'StateCreated').length).toBeGreaterThan(0);
    expect(log.filter((event) => event.type === 'ClientRegistered')).toHaveLength(1);
  });

  it('when the first start seeds the demo, then one rebuild projects the whole seeded log before the start returns', async () => {
    const dataDir = temporaryDir();
    const config = firstStartConfig(dataDir, 3);

    const { logger, lines } = capturingLogger();
    const service = await startService({ config, logger });
    cleanups.push(() => service.stop());

    const head = await service.eventStore.headPosition();
    expect(head).not.toBeNull();
    for (const projection of allProjections) {
      expect({ projection: projection.name, checkpoint: await service.readStore.getCheckpoint(checkpointNameOf(projection)) }).toEqual({
        projection: projection.name,
        checkpoint: head,
      });
    }
    expect(lines.filter((line) => line.msg === 'seeded catalogue projected').map((line) => line.events)).toEqual([Number(head)]);
    const response = await fetch(`${service.url}/v1/health`);
    expect(response.status).toBe(200);
  });
});
