import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { loadConfig } from '../../src/config.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createLogger } from '../../src/logger.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { leanReadCollections, startService, type StartServiceOptions } from '../../src/service.js';
import { serviceListensOn } from './recordedResponses.js';
import type { ImageDerivatives } from '../../src/media/imageDerivatives.js';
import type { Projector } from '../../src/projectionEngine/runtime.js';
import type { DestinationStream } from 'pino';
import type { Express } from 'express';

/** The admin token test apps accept unless a test asks for the generated-token path. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnop';

export interface TestApp {
  baseUrl: string;
  /** The express app the server runs (tests read its route table). */
  express: Express;
  adminToken: string;
  eventStore: EventStore;
  readStore: ReadStore;
  /** Embedded, in `dataDir` or a temporary folder removed on close. */
  blobStore: BlobStore;
  imageDerivatives: ImageDerivatives;
  projector: Projector;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /**
   * Environment on top of the test defaults (loopback, random port, known admin token, no seed, silent
   * logs; TEST_LOG_LEVEL=debug shows them). `ADMIN_TOKEN: ''` exercises the generated token file.
   */
  env?: Record<string, string>;
  clock?: () => Date;
  /** Where the service's pino lines go (JSON, one per write) instead of stdout; set `LOG_LEVEL` in `env` to see any. */
  logDestination?: DestinationStream;
  /** Keep the event store, read store and blobs in files there, so a later app on the same directory is a restart. */
  dataDir?: string;
  /** The worker role's brochure renderer (test/pdf hands in a double); none: the Chromium one, started by the first render. */
  brochureRenderer?: StartServiceOptions['brochureRenderer'];
}

/**
 * The real service wiring (src/service.ts) on 127.0.0.1 and a random port, with in-memory stores (or files in
 * `dataDir`) and the projector running.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    SEED_DEMO: 'false',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...options.env,
  });
  const blobDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'test-app-blobs-'));
  const removeBlobDir = () => {
    if (!options.dataDir) rmSync(blobDir, { recursive: true, force: true });
  };
  const service = await startService({
    config,
    logger: createLogger({ level: config.logLevel, pretty: false, destination: options.logDestination }),
    stores: {
      eventStore: createSqliteEventStore({ file: options.dataDir ? join(options.dataDir, 'events.sqlite') : ':memory:' }),
      readStore: createEmbeddedReadStore({
        leanCollections: leanReadCollections,
        ...(options.dataDir ? { file: join(options.dataDir, 'read-models.sqlite') } : {}),
      }),
    },
    blobStore: createEmbeddedBlobStore({ dataDir: blobDir }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.brochureRenderer ? { brochureRenderer: options.brochureRenderer } : {}),
  }).catch((error: unknown) => {
    removeBlobDir();
    throw error;
  });
  if (!service.url || !service.app || !service.adminToken || !service.projector)
    throw new Error('The test app runs the api and projector roles.');
  // Its answers are checked against the OpenAPI documents (recordedResponses.ts) until it closes.
  const forgetService = serviceListensOn(service.url);
  return {
    baseUrl: service.url,
    express: service.app,
    adminToken: service.adminToken,
    eventStore: service.eventStore,
    readStore: service.readStore,
    blobStore: service.blobStore,
    imageDerivatives: service.imageDerivatives,
    projector: service.projector,
    close: async () => {
      forgetService();
      await service.stop();
      removeBlobDir();
    },
  };
}
