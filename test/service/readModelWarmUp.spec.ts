import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allProjections } from '../../projections/index.js';
import { v1CollectionsReadById, v1ReadOrderings } from '../../queries/v1ReadOrderings.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { loadConfig } from '../../src/config.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createLogger } from '../../src/logger.js';
import { forwardReadStore } from '../../src/metrics/forwardingStores.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { Doc, DocId, Filter, FindOptions, ReadStore } from '../../src/readStore/readStore.js';
import { startService, type Role } from '../../src/service.js';
import { freePort, request } from '../support/http.js';
import { TEST_ADMIN_TOKEN } from '../support/testApp.js';

/*
 * The embedded read store loads a collection into memory on its first search of it, which at 20,000 projects
 * took the first change-feed request after a start 25 s (npm run bench:scale). The service searches every read
 * model's collection before it listens, so that no client's request, and no readiness probe, comes first; but
 * for the collections the /v1 reads only read by id, which it leaves in the embedded store's table.
 */

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** Whether something accepts connections on the loopback port now. */
function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const sortedRead = (collection: string, sort: FindOptions['sort']) => `${collection} ${JSON.stringify(sort)}`;

/**
 * A read store that notes, at the first read of each collection and the first sorted read of each collection
 * in each sort (`sortedRead`), whether either port accepted connections then.
 */
function watchingFirstReads(inner: ReadStore, ports: readonly number[]): { store: ReadStore; firstReads: Map<string, boolean> } {
  const firstReads = new Map<string, boolean>();
  const noted = async (read: string) => {
    if (firstReads.has(read)) return;
    firstReads.set(read, false);
    const listening = await Promise.all(ports.map(accepting));
    firstReads.set(read, listening.includes(true));
  };
  const store: ReadStore = {
    ...forwardReadStore(inner),
    async find<T extends Doc = Doc>(collection: string, options?: FindOptions) {
      await noted(collection);
      if (options?.sort) await noted(sortedRead(collection, options.sort));
      return inner.find<T>(collection, options);
    },
    async get<T extends Doc = Doc>(collection: string, id: DocId) {
      await noted(collection);
      return inner.get<T>(collection, id);
    },
    async getMany<T extends Doc = Doc>(collection: string, ids: DocId[]) {
      await noted(collection);
      return inner.getMany<T>(collection, ids);
    },
    async findOne<T extends Doc = Doc>(collection: string, filter: Filter) {
      await noted(collection);
      return inner.findOne<T>(collection, filter);
    },
  };
  return { store, firstReads };
}

async function startWatched(roles: readonly Role[]) {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const readStore = createEmbeddedReadStore();
  const watched = watchingFirstReads(readStore, [port, metricsPort]);
  const blobDir = mkdtempSync(join(tmpdir(), 'warm-up-blobs-'));
  const service = await startService({
    config: loadConfig({
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'silent',
    }),
    logger: createLogger({ level: 'silent', pretty: false }),
    roles: new Set(roles),
    stores: { eventStore: createSqliteEventStore({ file: ':memory:' }), readStore: watched.store },
    blobStore: createEmbeddedBlobStore({ dataDir: blobDir }),
  });
  stops.push(async () => {
    await service.stop();
    rmSync(blobDir, { recursive: true, force: true });
  });
  return { service, firstReads: watched.firstReads, metricsPort };
}

const everyCollection = allProjections.flatMap((projection) => projection.collections);

describe('read models loaded at start', () => {
  it('when a service with the api role starts, then it has searched every read model collection but those read by id before either port accepts a connection', async () => {
    const { service, firstReads, metricsPort } = await startWatched(['api', 'projector']);

    for (const collection of everyCollection) {
      expect(firstReads.get(collection), collection).toBe(v1CollectionsReadById.includes(collection) ? undefined : false);
    }
    // The ports the reads were checked against are the ones it serves /v1/health and /readyz on.
    expect((await request(service.url!, '/v1/health')).status).toBe(200);
    expect((await request(`http://127.0.0.1:${metricsPort}`, '/readyz')).status).toBe(200);
  });

  it('when a service with the api role starts, then it has read every collection in each sorted order the /v1 reads walk before either port accepts a connection', async () => {
    const { firstReads } = await startWatched(['api', 'projector']);

    for (const { collection, sort } of v1ReadOrderings)
      expect(firstReads.get(sortedRead(collection, sort)), sortedRead(collection, sort)).toBe(false);
  });

  it('when a process without the api role starts on an empty log, then it reads no read model ahead', async () => {
    const { firstReads } = await startWatched(['projector']);

    expect([...firstReads.keys()].filter((collection) => everyCollection.includes(collection))).toEqual([]);
  });
});
