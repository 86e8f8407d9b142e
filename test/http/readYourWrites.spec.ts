import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { loadConfig } from '../../src/config.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createLogger } from '../../src/logger.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { startService, type RunningService } from '../../src/service.js';
import { startApiFixture, type ApiFixture } from '../support/apiFixture.js';
import { request, type Answer } from '../support/http.js';
import { resolveIn } from '../support/openApiRules.js';
import { startTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../support/testApp.js';

/*
 * Read your own writes over HTTP: every admin write answers the log position of its last event, and a GET
 * that sends it back as X-Consistent-After sees that write, or answers 503 PROJECTION_BEHIND once
 * CONSISTENCY_WAIT_MS has passed.
 */

const CONSISTENT_AFTER = 'X-Consistent-After';

/** The position a write answered, after checking that its header and its body agree. */
function positionOf(answer: Answer): string {
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  const position = answer.body.meta.position as string;
  expect(position).toMatch(/^[1-9]\d*$/);
  expect(answer.headers.get('x-log-position')).toBe(position);
  return position;
}

let developerSequence = 0;

/** A published developer, created and published through the admin API; answers its id and the publish's position. */
async function publishedDeveloper(fixture: ApiFixture, slug: string): Promise<{ id: number; position: string }> {
  developerSequence += 1;
  const created = await fixture.admin('POST', '/developers', { name: `Developer ${developerSequence}`, slug });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const published = await fixture.admin('POST', `/developers/${created.body.data.id}/publish`);
  return { id: created.body.data.id, position: positionOf(published) };
}

/**
 * A process with the api role only, on the DATA_DIR of a process that also projects: it learns the
 * projector's progress from the stored checkpoints (and, with REDIS_URL, from the projector's notices).
 */
async function startApiOnlyBeside(dataDir: string, env: Record<string, string>): Promise<RunningService> {
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    SEED_DEMO: 'false',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: dataDir,
    ...env,
  });
  return startService({
    config,
    roles: new Set(['api']),
    logger: createLogger({ level: config.logLevel, pretty: false }),
    stores: {
      eventStore: createSqliteEventStore({ file: join(dataDir, 'events.sqlite') }),
      readStore: createEmbeddedReadStore({ file: join(dataDir, 'read-models.sqlite') }),
    },
    blobStore: createEmbeddedBlobStore({ dataDir }),
  });
}

describe('read your own writes', () => {
  let fixture: ApiFixture;
  let key: string;
  beforeAll(async () => {
    fixture = await startApiFixture();
    key = await fixture.key();
  });
  afterAll(() => fixture.close());

  it('when an admin write appends events, then meta.position and X-Log-Position name the position of its last event', async () => {
    const created = await fixture.admin('POST', '/developers', { name: 'Positioned', slug: 'positioned' });
    expect(created.status).toBe(201);
    const position = positionOf(created);
    const log = await fixture.app.eventStore.readAll({ after: BigInt(position) - 1n });
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ type: 'DeveloperCreated', streamName: `developer-${created.body.data.id}` });

    const revised = await fixture.admin('PATCH', `/developers/${created.body.data.id}`, { name: 'Positioned again' });
    const after = positionOf(revised);
    expect(BigInt(after)).toBeGreaterThan(BigInt(position));
    expect((await fixture.app.eventStore.readAll({ after: BigInt(after) - 1n }))[0]).toMatchObject({ type: 'DeveloperRevised' });
  });

  it('when a write changes nothing, then it answers the head of the log as it was after the command', async () => {
    const { id, position } = await publishedDeveloper(fixture, 'published-twice');
    await fixture.admin('POST', '/developers', { name: 'Written after', slug: 'written-after' });
    const head = await fixture.app.eventStore.headPosition();
    expect(head).toBeGreaterThan(BigInt(position));

    const repeated = await fixture.admin('POST', `/developers/${id}/publish`);
    expect(repeated.body.data.revision).toBe(1);
    expect(positionOf(repeated)).toBe(String(head));
  });

  it('when a write is followed at once by a read with X-Consistent-After, then the read sees it, 1,000 times in a row while other writers keep the projector busy', async () => {
    const target = await publishedDeveloper(fixture, 'ryw-target');
    const other = await publishedDeveloper(fixture, 'ryw-other');
    let stopWriters = false;
    let appendedByOthers = 0;
    // Two writers beside the checked one: one creates developers (three events each: id, slug, creation),
    // one revises another developer; each event goes through every projection.
    const writers = [
      (async () => {
        for (let index = 0; !stopWriters; index++) {
          const created = await fixture.admin('POST', '/developers', { name: `Busy ${index}`, slug: `busy-${index}` });
          expect(created.status).toBe(201);
          appendedByOthers += 3;
        }
      })(),
      (async () => {
        for (let index = 0; !stopWriters; index++) {
          expect((await fixture.admin('PATCH', `/developers/${other.id}`, { description: `Busy ${index}` })).status).toBe(200);
          appendedByOthers += 1;
        }
      })(),
    ];
    try {
      for (let round = 1; round <= 1_000; round++) {
        const name = `Target ${round}`;
        const written = await fixture.admin('PATCH', `/developers/${target.id}`, { name });
        const headers = { [CONSISTENT_AFTER]: positionOf(written) };
        // Alternately the public detail (developers read model) and the admin list (admin catalogue read model).
        if (round % 2 === 0) {
          const read = await fixture.get(`/developers/${target.id}`, key, { headers });
          expect(read.status, JSON.stringify(read.body)).toBe(200);
          expect(read.body.data.name, `round ${round}`).toBe(name);
        } else {
          const read = await request(fixture.app.baseUrl, '/admin/v1/developers?q=ryw-target', { token: fixture.app.adminToken, headers });
          expect(read.status, JSON.stringify(read.body)).toBe(200);
          expect(read.body.data, `round ${round}`).toEqual([expect.objectContaining({ name, revision: written.body.data.revision })]);
        }
      }
    } finally {
      stopWriters = true;
      await Promise.all(writers);
    }
    // The other writers really were at work throughout: far more of their events than rounds.
    expect(appendedByOthers).toBeGreaterThan(1_000);
  }, 300_000);

  it('when X-Consistent-After names a position already projected, or 0, then the read is answered at once as usual', async () => {
    const { id, position } = await publishedDeveloper(fixture, 'already-projected');
    await fixture.settle();
    for (const value of [position, '0']) {
      const read = await fixture.get(`/developers/${id}`, key, { headers: { [CONSISTENT_AFTER]: value } });
      expect(read.status).toBe(200);
      expect(read.body.data.id).toBe(id);
    }
  });

  it('when X-Consistent-After is not a position, or is past the end of the log, then 422 VALIDATION_FAILED names header.X-Consistent-After', async () => {
    const head = (await fixture.app.eventStore.headPosition())!;
    const refused = ['abc', '-1', '1.5', '007', '1e3', ' 12 3', '18446744073709551616', '1'.repeat(25), String(head + 1_000n)];
    for (const value of refused) {
      for (const read of [
        () => fixture.get('/developers', key, { headers: { [CONSISTENT_AFTER]: value } }),
        () =>
          request(fixture.app.baseUrl, '/admin/v1/developers', { token: fixture.app.adminToken, headers: { [CONSISTENT_AFTER]: value } }),
      ]) {
        const answer = await read();
        expect(answer.status, `${value}: ${JSON.stringify(answer.body)}`).toBe(422);
        expect(answer.body.error.code).toBe('VALIDATION_FAILED');
        expect(Object.keys(answer.body.error.details.fields)).toEqual(['header.X-Consistent-After']);
      }
    }
  });
});

describe('read your own writes, when no projector runs', () => {
  const WAIT_MS = 300;
  let dataDir: string;
  let apiOnly: RunningService;
  let key: string;
  let developerId: number;
  beforeAll(async () => {
    // The catalogue and a key are made while a projector runs; then it stops, and only the API is started again.
    dataDir = mkdtempSync(join(tmpdir(), 'read-your-writes-stopped-'));
    const projecting = await startApiFixture({ dataDir });
    key = await projecting.key();
    developerId = (await publishedDeveloper(projecting, 'stopped-projector')).id;
    await projecting.settle();
    await projecting.close();
    apiOnly = await startApiOnlyBeside(dataDir, { CONSISTENCY_WAIT_MS: String(WAIT_MS) });
  });
  afterAll(async () => {
    await apiOnly?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when a read asks for a position not projected, then after CONSISTENCY_WAIT_MS it answers 503 PROJECTION_BEHIND with Retry-After', async () => {
    const baseUrl = apiOnly.url!;
    const written = await request(baseUrl, `/admin/v1/developers/${developerId}`, {
      method: 'PATCH',
      token: TEST_ADMIN_TOKEN,
      body: { name: 'Never projected' },
    });
    const position = positionOf(written);
    const headers = { [CONSISTENT_AFTER]: position };
    for (const path of [`/v1/developers/${developerId}`, '/admin/v1/developers']) {
      const startedAt = performance.now();
      const answer = await request(baseUrl, path, { token: path.startsWith('/v1') ? key : TEST_ADMIN_TOKEN, headers });
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(WAIT_MS);
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.body.error).toEqual({
        code: 'PROJECTION_BEHIND',
        message: expect.any(String),
        details: { position, waited_ms: WAIT_MS, retry_after_seconds: 1 },
      });
      expect(answer.body.meta.request_id).toEqual(expect.any(String));
    }
    // Without the header the same read is answered, from the read model as it stands.
    const stale = await request(baseUrl, `/v1/developers/${developerId}`, { token: key });
    expect(stale.status).toBe(200);
    expect(stale.body.data.name).not.toBe('Never projected');
  });
});

const resolve = resolveIn;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operationsOf(document: any): Array<{ method: string; path: string; operation: any }> {
  return Object.entries(document.paths).flatMap(([path, item]: [string, any]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

/** The GETs of a document that do not take X-Consistent-After or do not document 503 PROJECTION_BEHIND. */
function getsWithoutConsistentAfter(document: any, operations: Array<{ method: string; path: string; operation: any }>): string[] {
  return operations
    .filter(({ method }) => method === 'get')
    .filter(({ operation }) => {
      const headers = (operation.parameters ?? []).map((parameter: unknown) => resolve(document, parameter).name);
      const behind = resolve(document, operation.responses['503']);
      const codes =
        behind && resolve(document, resolve(document, behind.content['application/json'].schema).properties.error).properties.code.enum;
      return !headers.includes(CONSISTENT_AFTER) || !codes?.includes('PROJECTION_BEHIND');
    })
    .map(({ path }) => path);
}

describe('the OpenAPI documents on reading your own writes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('when the admin document is read, then every GET takes X-Consistent-After and may answer 503, and every write answers X-Log-Position and meta.position', async () => {
    const document = parse((await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken })).body);
    const operations = operationsOf(document);
    expect(operations.filter(({ method }) => method === 'get').length).toBeGreaterThan(10);
    expect(getsWithoutConsistentAfter(document, operations)).toEqual([]);
    const writesWithoutPosition = operations
      .filter(({ method }) => method !== 'get')
      .filter(({ operation }) => {
        const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'))![1] as any;
        const meta = resolve(document, success.content['application/json'].schema).properties.meta;
        return !Object.keys(success.headers).includes('X-Log-Position') || resolve(document, meta).properties.position?.type !== 'string';
      })
      .map(({ method, path }) => `${method} ${path}`);
    expect(writesWithoutPosition).toEqual([]);
  });

  it('when the /v1 document is read, then every GET behind a key takes X-Consistent-After and may answer 503', async () => {
    const document = parse((await request(app.baseUrl, '/v1/openapi.yaml')).body);
    // Answered before authentication, where the header is not read.
    const keyless = (path: string) => ['/health', '/openapi.yaml'].includes(path) || /^\/(media|documents)\//.test(path);
    const operations = operationsOf(document).filter(({ path }) => !keyless(path));
    expect(operations.filter(({ method }) => method === 'get').length).toBeGreaterThan(10);
    expect(getsWithoutConsistentAfter(document, operations)).toEqual([]);
  });
});

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) console.warn('Read your own writes through Redis notices skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379).');

const apiOnlyCases = [
  { name: 'by reading the stored checkpoints', env: {} as Record<string, string>, runs: true },
  {
    name: "by the projector's notices over Redis",
    env: { REDIS_URL: redisUrl ?? '', JOB_QUEUE_PREFIX: `read-your-writes-${randomBytes(4).toString('hex')}` },
    runs: redisUrl !== undefined,
  },
];

for (const { name, env, runs } of apiOnlyCases) {
  describe.skipIf(!runs)(`read your own writes on a process without the projector, ${name}`, () => {
    let dataDir: string;
    let projecting: TestApp;
    let apiOnly: RunningService;
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'read-your-writes-'));
      projecting = await startTestApp({ dataDir, env });
      apiOnly = await startApiOnlyBeside(dataDir, env);
    });
    afterAll(async () => {
      await apiOnly?.stop();
      await projecting?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('when a write on the projecting process is read at once on the other with X-Consistent-After, then the read sees it, 100 times in a row', async () => {
      expect(apiOnly.projector).toBeNull();
      const admin = (baseUrl: string, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
        request(baseUrl, `/admin/v1${path}`, { method, token: TEST_ADMIN_TOKEN, ...options });
      const created = await admin(projecting.baseUrl, 'POST', '/developers', { body: { name: 'Elsewhere', slug: 'elsewhere' } });
      expect(created.status).toBe(201);
      for (let round = 1; round <= 100; round++) {
        const name = `Elsewhere ${round}`;
        const written = await admin(projecting.baseUrl, 'PATCH', `/developers/${created.body.data.id}`, { body: { name } });
        const read = await admin(apiOnly.url!, 'GET', '/developers?q=elsewhere', { headers: { [CONSISTENT_AFTER]: positionOf(written) } });
        expect(read.status, JSON.stringify(read.body)).toBe(200);
        expect(read.body.data, `round ${round}`).toEqual([expect.objectContaining({ name })]);
      }
    }, 120_000);
  });
}
