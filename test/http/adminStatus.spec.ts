import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allProjections } from '../../projections/index.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { loadConfig } from '../../src/config.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createLogger } from '../../src/logger.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { startService } from '../../src/service.js';
import { startApiFixture, type ApiFixture } from '../support/apiFixture.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { TEST_ADMIN_TOKEN } from '../support/testApp.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: Parameters<typeof startApiFixture>[0] = {}): Promise<ApiFixture> {
  const fixture = await startApiFixture(options);
  cleanups.push(() => fixture.close());
  return fixture;
}

const status = (fixture: ApiFixture) => request(fixture.app.baseUrl, '/admin/v1/status', { token: fixture.app.adminToken });

describe('GET /admin/v1/status', () => {
  it('when asked without the admin token, then 401; with an unknown query parameter, then 422 naming it', async () => {
    const fixture = await started();
    const anonymous = await request(fixture.app.baseUrl, '/admin/v1/status');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
    const withQuery = await request(fixture.app.baseUrl, '/admin/v1/status?verbose=1', { token: fixture.app.adminToken });
    expect(withQuery.status).toBe(422);
    expect(withQuery.body.error.details.fields).toEqual({ 'query.verbose': expect.any(String) });
  });

  it('when one process runs every role, then it lists that process, every projection at the head without error, and the in-process limiter', async () => {
    const fixture = await started();
    await fixture.issue();
    await fixture.settle();
    const head = Number(await fixture.app.eventStore.headPosition());

    const answer = await status(fixture);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const data = answer.body.data;
    expect(data.processes).toEqual([
      {
        id: data.this_process,
        pid: process.pid,
        host: expect.any(String),
        roles: ['api', 'projector', 'worker'],
        started_at: expect.any(String),
        last_seen: expect.any(String),
        seconds_since_seen: expect.any(Number),
        limits: 'in-process',
        projection_errors: {},
      },
    ]);
    expect(data.this_process).toMatch(new RegExp(`:${process.pid}:[0-9a-f]{8}$`));
    expect(data.processes_complete).toBe(true);
    expect(data.roles).toEqual({ api: 1, projector: 1, worker: 1 });
    expect(data.log_head_position).toBe(head);
    expect(data.projections.map((projection: { name: string }) => projection.name)).toEqual(
      allProjections.map((projection) => projection.name),
    );
    for (const projection of data.projections) {
      expect(projection).toEqual({
        name: projection.name,
        version: expect.any(Number),
        checkpoint_position: head,
        lag_events: 0,
        lag_seconds: 0,
        last_error: null,
      });
    }
    expect(data.limits).toEqual({ mode: 'in-process', redis: 'not_configured' });
  });

  it('when a worker process shares the stores, then both are listed with their roles, and the worker no longer after it stopped', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'admin-status-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const fixture = await started({ dataDir });
    const worker = await startService({
      config: loadConfig({
        HOST: '127.0.0.1',
        PORT: '0',
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        SEED_DEMO: 'false',
        LOG_LEVEL: 'silent',
        DATA_DIR: dataDir,
      }),
      logger: createLogger({ level: 'silent', pretty: false }),
      roles: new Set(['worker']),
      stores: {
        eventStore: createSqliteEventStore({ file: join(dataDir, 'events.sqlite') }),
        readStore: createEmbeddedReadStore({ file: join(dataDir, 'read-models.sqlite') }),
      },
      blobStore: createEmbeddedBlobStore({ dataDir: join(dataDir, 'worker-blobs') }),
    });
    let workerRunning = true;
    cleanups.push(async () => {
      if (workerRunning) await worker.stop();
    });

    const both = await eventually('the status to list the worker process', async () => {
      const answer = await status(fixture);
      return answer.body.data.processes.length === 2 ? answer.body.data : undefined;
    });
    expect(both.roles).toEqual({ api: 1, projector: 1, worker: 2 });
    const other = both.processes.find((listed: { id: string }) => listed.id !== both.this_process);
    expect(other).toMatchObject({ pid: process.pid, roles: ['worker'], limits: null, projection_errors: {} });

    await worker.stop();
    workerRunning = false;
    const after = (await status(fixture)).body.data;
    expect(after.processes.map((listed: { id: string }) => listed.id)).toEqual([after.this_process]);
  });
});
