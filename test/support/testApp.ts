import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createLogger } from '../../src/logger.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { startService } from '../../src/service.js';
import type { Projector } from '../../src/projectionEngine/runtime.js';
import type { DestinationStream } from 'pino';

/** The admin token test apps accept unless a test asks for the generated-token path. */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnop';

export interface TestApp {
  baseUrl: string;
  adminToken: string;
  eventStore: EventStore;
  readStore: ReadStore;
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
  /** Keep the event store and read store in files there, so a later app on the same directory is a restart. */
  dataDir?: string;
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
  const service = await startService({
    config,
    logger: createLogger({ level: config.logLevel, pretty: false, destination: options.logDestination }),
    stores: {
      eventStore: createSqliteEventStore({ file: options.dataDir ? join(options.dataDir, 'events.sqlite') : ':memory:' }),
      readStore: createEmbeddedReadStore(options.dataDir ? { file: join(options.dataDir, 'read-models.sqlite') } : {}),
    },
    ...(options.clock ? { clock: options.clock } : {}),
  });
  if (!service.url || !service.adminToken || !service.projector) throw new Error('The test app runs the api and projector roles.');
  return {
    baseUrl: service.url,
    adminToken: service.adminToken,
    eventStore: service.eventStore,
    readStore: service.readStore,
    projector: service.projector,
    close: () => service.stop(),
  };
}
