import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allProjections } from '../../projections/index.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { loadConfig } from '../../src/config.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createLogger } from '../../src/logger.js';
import { startProjector, type Projector } from '../../src/projectionEngine/runtime.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { startService, type RunningService } from '../../src/service.js';
import { appendEvents, referenceCatalogue, stateCreated } from '../support/catalogueEvents.js';
import { eventually } from '../support/eventually.js';
import { freePort, request } from '../support/http.js';
import { TEST_ADMIN_TOKEN } from '../support/testApp.js';

const silent = () => createLogger({ level: 'silent', pretty: false });

interface ApiOnly {
  service: RunningService;
  baseUrl: string;
  /** A projector on the same stores, as a `--role projector` process elsewhere would run it. */
  startProjector(): Promise<Projector>;
}

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
});

/** The api role alone (no projector) on in-memory stores: nothing projects what is appended until a projector starts. */
async function startApiOnly(env: Record<string, string> = {}): Promise<ApiOnly> {
  const stores = { eventStore: createSqliteEventStore({ file: ':memory:' }), readStore: createEmbeddedReadStore({}) };
  const blobDir = mkdtempSync(join(tmpdir(), 'readiness-blobs-'));
  const service = await startService({
    config: loadConfig({ HOST: '127.0.0.1', PORT: '0', ADMIN_TOKEN: TEST_ADMIN_TOKEN, SEED_DEMO: 'false', LOG_LEVEL: 'silent', ...env }),
    logger: silent(),
    roles: new Set(['api']),
    stores,
    blobStore: createEmbeddedBlobStore({ dataDir: blobDir }),
  });
  running.push(async () => {
    await service.stop();
    rmSync(blobDir, { recursive: true, force: true });
  });
  return {
    service,
    baseUrl: service.url!,
    async startProjector() {
      const projector = await startProjector({ ...stores, projections: allProjections, logger: silent() });
      // Stopped before the service closes the stores under it.
      running.push(() => projector.stop());
      return projector;
    },
  };
}

describe('GET /livez', () => {
  it('when the process runs, then 200 alive without any credential, never cached, even while not ready', async () => {
    const { baseUrl, service } = await startApiOnly({ READY_MAX_LAG_EVENTS: '1' });
    await appendEvents(service.eventStore, referenceCatalogue());
    const answer = await request(baseUrl, '/livez');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      data: { status: 'alive' },
      meta: { request_id: answer.headers.get('x-request-id'), generated_at: expect.any(String) },
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await request(baseUrl, '/readyz')).status).toBe(503);
  });

  it('when a query parameter is sent, then 422 VALIDATION_FAILED names it', async () => {
    const { baseUrl } = await startApiOnly();
    const answer = await request(baseUrl, '/livez?verbose=1');
    expect(answer.status).toBe(422);
    expect(answer.body.error).toEqual({
      code: 'VALIDATION_FAILED',
      message: expect.any(String),
      details: { fields: { 'query.verbose': expect.any(String) } },
    });
  });
});

describe('GET /readyz', () => {
  it('when the log is empty, then 200 ready with every check true', async () => {
    const { baseUrl } = await startApiOnly();
    const answer = await request(baseUrl, '/readyz');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      status: 'ready',
      checks: { event_store: true, read_store: true, projections: true },
      lagging: [],
      bounds: { max_lag_events: 1000, max_lag_seconds: 60 },
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('when more events than READY_MAX_LAG_EVENTS are not projected, then 503 NOT_READY names the projections; once a projector catches up, 200', async () => {
    const api = await startApiOnly({ READY_MAX_LAG_EVENTS: '3' });
    const events = referenceCatalogue();
    expect(events.length).toBeGreaterThan(3);
    const head = await appendEvents(api.service.eventStore, events);

    const refused = await request(api.baseUrl, '/readyz');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.body.error.code).toBe('NOT_READY');
    expect(refused.body.error.message).toMatch(/read models are behind/);
    const { details } = refused.body.error;
    expect(details.failed_checks).toEqual(['projections']);
    expect(details.checks).toEqual({ event_store: true, read_store: true, projections: false });
    expect(details.bounds).toEqual({ max_lag_events: 3, max_lag_seconds: 60 });
    expect(details.lagging.map((lagging: { projection: string }) => lagging.projection).sort()).toEqual(
      allProjections.map((projection) => projection.name).sort(),
    );
    expect(details.lagging.every((lagging: { events_behind: number }) => lagging.events_behind === Number(head))).toBe(true);
    expect(refused.body.meta.request_id).toBe(refused.headers.get('x-request-id'));

    const projector = await api.startProjector();
    await projector.waitForPosition(head);
    await eventually(
      '/readyz to answer 200 once the projector caught up',
      async () => (await request(api.baseUrl, '/readyz')).status === 200,
    );
  });

  it('when the oldest event not projected is older than READY_MAX_LAG_SECONDS, then 503 although few events are behind', async () => {
    const api = await startApiOnly({ READY_MAX_LAG_SECONDS: '1' });
    await appendEvents(api.service.eventStore, [stateCreated(1, { name: 'Dubai', slug: 'dubai' })]);
    const refused = await eventually('/readyz to refuse once the event is over a second old', async () => {
      const answer = await request(api.baseUrl, '/readyz');
      return answer.status === 503 ? answer : undefined;
    });
    const [lagging] = refused.body.error.details.lagging;
    expect(lagging.events_behind).toBe(1);
    expect(lagging.seconds_behind).toBeGreaterThanOrEqual(1);
  });

  it('when the read store is down, then 503 naming read_store (and the lag it cannot read), while /livez still answers 200', async () => {
    const { baseUrl, service } = await startApiOnly();
    await service.readStore.close();
    const answer = await request(baseUrl, '/readyz');
    expect(answer.status).toBe(503);
    expect(answer.body.error.details.failed_checks).toEqual(['read_store', 'projections']);
    expect((await request(baseUrl, '/livez')).status).toBe(200);
  });

  it('when REDIS_URL names a port nothing listens on, then 503 naming redis, promptly', async () => {
    const { baseUrl } = await startApiOnly({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    const startedAt = performance.now();
    const answer = await request(baseUrl, '/readyz');
    expect(performance.now() - startedAt).toBeLessThan(2_500);
    expect(answer.status).toBe(503);
    expect(answer.body.error.details.failed_checks).toEqual(['redis']);
    expect(answer.body.error.details.checks).toEqual({ event_store: true, read_store: true, redis: false, projections: true });
  });

  const redisUrl = process.env.REDIS_URL;
  if (!redisUrl) console.warn('Skipping /readyz against a live Redis: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it.');
  it.skipIf(!redisUrl)('when REDIS_URL points at a live Redis, then checks.redis is true', async () => {
    const { baseUrl } = await startApiOnly({ REDIS_URL: redisUrl!, JOB_QUEUE_PREFIX: `readiness-${process.pid}` });
    const answer = await request(baseUrl, '/readyz');
    expect(answer.status).toBe(200);
    expect(answer.body.data.checks).toEqual({ event_store: true, read_store: true, redis: true, projections: true });
  });
});
