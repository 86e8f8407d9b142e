import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITLEMENTS, SCOPES, type Entitlement, type Scope } from '../../src/access/accessContext.js';
import { createEventStore } from '../../src/eventStore/createEventStore.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { limitsKeys } from '../../src/limits/redisLimits.js';
import type { PlanLimits } from '../../src/limits/planLimits.js';
import { checkpointNameOf } from '../../src/projectionEngine/projection.js';
import { createReadStore } from '../../src/readStore/createReadStore.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { changeFeedProjection, PROJECT_CHANGES, type ProjectChangeDoc } from '../../projections/changeFeed.js';
import { allProjections } from '../../projections/index.js';
import { UNLIMITED_FOR_TESTS } from '../support/apiFixture.js';
import { eventually } from '../support/eventually.js';
import { request, type Answer } from '../support/http.js';
import { killNpmStart, npmStart, NPM_START_PATIENCE_MS, type NpmStart } from '../support/npmStart.js';
import { killRoleProcess, startRoleProcess, type RoleProcess } from '../support/roleProcess.js';

/*
 * The roles as an operator splits them (README: Other commands), each its own `npm start` process on one
 * embedded DATA_DIR and the real Redis: two `--role api` replicas (A seeds the demo catalogue, B does not),
 * one `--role projector`, one `--role worker`. What one replica is told reaches the other through the shared
 * stores alone: edits (through the projector and the read store), limits, signing nonces and evaluation
 * counts (Redis), key and evaluation states (the access read model). Killing the projector stops projection,
 * not the API; a new projector catches up from the checkpoints without losing or repeating an edit.
 */

const redisUrl = process.env.REDIS_URL;
if (!redisUrl)
  console.warn('Multi-process roles skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run the replicas on a shared Redis.');

/** Enough for the 50-project sample an evaluation needs once the seed's unpublished ones are left out. */
const SEED_PROJECTS = 80;
/** The daily quota of the limits test: small, so a handful of requests spends it. */
const DAILY_LIMIT = 5;
/** How long an edit, key or control may take to reach both replicas through the projector on a loaded machine. */
const PROPAGATION_MS = 30_000;
/**
 * How long projection is watched to stay stopped after the projector is killed: a running projector polls the
 * event log every 150 ms (src/eventStore/sqliteEventStore.ts), so this is many of its turns.
 */
const STOPPED_WINDOW_MS = 2_000;

/** Every process of this file uses one run's prefix, so parallel runs sharing the Redis keep their queues apart. */
const JOB_QUEUE_PREFIX = `multi-process-${randomBytes(4).toString('hex')}`;

interface IssuedKey {
  key: string;
  clientId: number;
  keyId: number;
}

interface Grants {
  scopes?: readonly Scope[];
  entitlements?: readonly Entitlement[];
  limits?: PlanLimits;
  environment?: 'live' | 'test';
}

/** Signing as Request signing in the README describes it, for a GET without a body. */
function signedHeaders(key: string, target: string, nonce: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1_000));
  const emptyBodySha256 = createHash('sha256').update('').digest('hex');
  const signature = createHmac('sha256', key).update([timestamp, nonce, 'GET', target, emptyBodySha256].join('\n')).digest('hex');
  return { 'X-API-Timestamp': timestamp, 'X-API-Nonce': nonce, 'X-API-Signature': `v1=${signature}` };
}

function expectError(answer: Answer, status: number, code: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.error).toMatchObject({ code, message: expect.any(String) });
  expect(answer.body.meta).toMatchObject({ request_id: expect.any(String) });
}

/** Holds for the whole window: for what must not happen (an edit projected), not for what is awaited. */
async function throughout(what: string, windowMs: number, check: () => Promise<void>): Promise<void> {
  const until = performance.now() + windowMs;
  let checks = 0;
  do {
    await check().catch((error: unknown) => {
      throw new Error(`${what}: broken after ${checks} checks`, { cause: error });
    });
    checks += 1;
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (performance.now() < until);
}

describe.skipIf(!redisUrl)('roles as separate processes on one DATA_DIR and Redis', () => {
  let dataDir: string;
  const sharedEnv = { REDIS_URL: redisUrl ?? '', JOB_QUEUE_PREFIX, SEED_DEMO: 'false' };
  let replicaA: NpmStart | undefined;
  let replicaB: NpmStart | undefined;
  const roleProcesses: RoleProcess[] = [];
  let projector: RoleProcess;
  let worker: RoleProcess;
  let eventStore: EventStore | undefined;
  let readStore: ReadStore | undefined;
  let adminToken: string;
  let reader: IssuedKey;
  let planSequence = 0;

  const replicas = () => [replicaA!, replicaB!];
  const startProjector = async () => {
    const started = await startRoleProcess(dataDir, 'projector', {
      env: { ...sharedEnv, LOG_LEVEL: 'info' },
      startedMessage: 'projector started',
      label: 'projector',
    });
    roleProcesses.push(started);
    return started;
  };

  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await request(replicaA!.origin, `/admin/v1${path}`, {
      method,
      token: adminToken,
      ...(body === undefined ? {} : { body }),
    });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  };

  /** A key of a fresh client on a fresh plan, issued through replica A. */
  const issue = async (grants: Grants = {}): Promise<IssuedKey> => {
    planSequence += 1;
    const plan = `multi-process-${planSequence}`;
    await admin('POST', '/plans', {
      key: plan,
      name: `Multi-process plan ${planSequence}`,
      scopes: grants.scopes ?? SCOPES,
      entitlements: grants.entitlements ?? ENTITLEMENTS,
      limits: grants.limits ?? UNLIMITED_FOR_TESTS,
    });
    const client = await admin('POST', '/clients', { name: `Multi-process client ${planSequence}`, plan });
    const issued = await admin('POST', `/clients/${client.id}/keys`, { environment: grants.environment ?? 'live' });
    return { key: issued.key as string, clientId: client.id as number, keyId: issued.id as number };
  };

  /** Waits until `check` passes against each replica in turn. */
  const onBothReplicas = async (what: string, check: (origin: string) => Promise<void>) => {
    for (const replica of replicas()) {
      await eventually(`${what} on ${replica.origin}`, async () => (await check(replica.origin), true), { timeoutMs: PROPAGATION_MS });
    }
  };

  /** Waits until every projection's checkpoint has reached the log's head; answers that head. */
  const readModelsCaughtUp = async (timeoutMs = PROPAGATION_MS): Promise<bigint> => {
    const head = (await eventStore!.headPosition())!;
    await eventually(
      `every read model at position ${head}`,
      async () => {
        const checkpoints = await Promise.all(allProjections.map((projection) => readStore!.getCheckpoint(checkpointNameOf(projection))));
        return checkpoints.every((checkpoint) => checkpoint !== null && checkpoint >= head);
      },
      { timeoutMs },
    );
    return head;
  };

  const projectOn = (origin: string, id: number) => request(origin, `/v1/projects/${id}`, { token: reader.key });
  const projectTotalOn = async (origin: string) => {
    const answer = await request(origin, '/v1/projects?per_page=1', { token: reader.key });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.meta.pagination.total as number;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'catalogue-multi-process-'));
    // In parallel, as an operator's supervisor starts them: only A seeds, so the first start seeds once.
    const [a, b, startedProjector, startedWorker] = await Promise.allSettled([
      npmStart(dataDir, { ...sharedEnv, SEED_DEMO: 'true', SEED_PROJECTS: String(SEED_PROJECTS), LOG_LEVEL: 'warn' }, ['--role', 'api']),
      npmStart(dataDir, { ...sharedEnv, LOG_LEVEL: 'warn' }, ['--role', 'api']),
      startProjector(),
      startRoleProcess(dataDir, 'worker', {
        env: { ...sharedEnv, LOG_LEVEL: 'info' },
        startedMessage: 'webhook delivery started',
        label: 'worker',
      }),
    ]);
    if (a.status === 'fulfilled') replicaA = a.value;
    if (b.status === 'fulfilled') replicaB = b.value;
    if (startedWorker.status === 'fulfilled') roleProcesses.push((worker = startedWorker.value));
    for (const started of [a, b, startedProjector, startedWorker]) if (started.status === 'rejected') throw started.reason;
    projector = (startedProjector as PromiseFulfilledResult<RoleProcess>).value;

    adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    eventStore = createEventStore({ dataDir });
    readStore = createReadStore({ dataDir });
    await readModelsCaughtUp(NPM_START_PATIENCE_MS);
    reader = await issue();
    await onBothReplicas('the reader key accepted', async (origin) => {
      expect((await request(origin, '/v1/projects?per_page=1', { token: reader.key })).status).toBe(200);
    });
  }, NPM_START_PATIENCE_MS * 2);

  afterAll(async () => {
    for (const replica of [replicaA, replicaB]) if (replica) killNpmStart(replica);
    for (const started of roleProcesses) killRoleProcess(started);
    await eventStore?.close();
    await readStore?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    // The run's queues; limits, nonces and evaluation counts expire by themselves.
    const redis = new Redis(redisUrl!);
    try {
      const keys = await redis.keys(`${JOB_QUEUE_PREFIX}:*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });

  it('when an editor renames a project through replica A, then replica B serves the new name', async () => {
    const listed = await request(replicaB!.origin, '/v1/projects?per_page=1&sort=name', { token: reader.key });
    const projectId = listed.body.data[0].id as number;
    const name = `Renamed through A ${randomBytes(3).toString('hex')}`;
    await admin('PATCH', `/projects/${projectId}`, { name });
    await eventually(
      'replica B to serve the new name',
      async () => (await projectOn(replicaB!.origin, projectId)).body.data?.name === name,
      { timeoutMs: PROPAGATION_MS },
    );
    expect((await projectOn(replicaA!.origin, projectId)).body.data.name).toBe(name);
  });

  it(`when requests of a client with a daily quota of ${DAILY_LIMIT} hit both replicas at once, then exactly ${DAILY_LIMIT} succeed and the rest get 429 DAILY_LIMIT_EXCEEDED`, async () => {
    const limited = await issue({ scopes: ['projects:read'], entitlements: [], limits: { ...UNLIMITED_FOR_TESTS, daily: DAILY_LIMIT } });
    // A request refused for its scope proves the key known there without spending any of its quota.
    await onBothReplicas('the limited key known', async (origin) => {
      expectError(await request(origin, '/v1/developers', { token: limited.key }), 403, 'INSUFFICIENT_SCOPE');
    });
    // Client ids restart at 1 in every fresh event store, and an earlier run's counters of this client id
    // may still be in the shared Redis today.
    const redis = new Redis(redisUrl!);
    try {
      const keys = limitsKeys(limited.clientId, 'live', new Date());
      await redis.del(keys.window, keys.quota);
    } finally {
      redis.disconnect();
    }

    const perReplica = DAILY_LIMIT + 1;
    const answers = await Promise.all(
      replicas().flatMap((replica) =>
        Array.from({ length: perReplica }, () => request(replica.origin, '/v1/projects?per_page=1', { token: limited.key })),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.filter((status) => status === 200),
      JSON.stringify(statuses),
    ).toHaveLength(DAILY_LIMIT);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(2 * perReplica - DAILY_LIMIT);
    for (const answer of refused) {
      expectError(answer, 429, 'DAILY_LIMIT_EXCEEDED');
      expect(answer.body.error.details).toEqual({
        reset_at: expect.any(String),
        retry_after_seconds: expect.any(Number),
        daily: { limit: DAILY_LIMIT, used: DAILY_LIMIT, remaining: 0 },
        monthly: { limit: UNLIMITED_FOR_TESTS.monthly, used: DAILY_LIMIT, remaining: UNLIMITED_FOR_TESTS.monthly! - DAILY_LIMIT },
      });
      expect(answer.headers.get('retry-after')).toBe(String(answer.body.error.details.retry_after_seconds));
    }
  });

  it('when a signed request is answered by replica A, then its nonce sent again to replica B is refused with NONCE_REUSED', async () => {
    const signer = await issue();
    const noControls = { domain: null, ip_allow: [], ip_deny: [] };
    await admin('PUT', `/clients/${signer.clientId}/controls`, {
      request_signing: true,
      environments: { live: noControls, test: noControls },
    });
    const target = '/v1/projects?per_page=1';
    await onBothReplicas('signing required', async (origin) => {
      expectError(await request(origin, target, { token: signer.key }), 401, 'SIGNATURE_REQUIRED');
    });

    const headers = signedHeaders(signer.key, target, randomBytes(16).toString('hex'));
    const first = await request(replicaA!.origin, target, { token: signer.key, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expectError(await request(replicaB!.origin, target, { token: signer.key, headers }), 401, 'NONCE_REUSED');
    const fresh = signedHeaders(signer.key, target, randomBytes(16).toString('hex'));
    expect((await request(replicaB!.origin, target, { token: signer.key, headers: fresh })).status).toBe(200);
  });

  it('when an evaluation is paused through replica A, then both replicas refuse its key with EVALUATION_ACCESS_PAUSED', async () => {
    const evaluator = await issue({ environment: 'test' });
    await admin('POST', `/clients/${evaluator.clientId}/evaluation`, { sample_size: 50 });
    await onBothReplicas('the evaluation in force', async (origin) => {
      const answer = await request(origin, '/v1/projects?per_page=1', { token: evaluator.key });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.headers.get('x-access-mode')).toBe('evaluation');
    });

    await admin('POST', `/clients/${evaluator.clientId}/evaluation/pause`, {});
    await onBothReplicas('the evaluation paused', async (origin) => {
      expectError(await request(origin, '/v1/projects?per_page=1', { token: evaluator.key }), 403, 'EVALUATION_ACCESS_PAUSED');
    });
  });

  it('when a key is revoked through replica A, then both replicas refuse it with API_KEY_REVOKED', async () => {
    const revoked = await issue();
    await onBothReplicas('the key accepted', async (origin) => {
      expect((await request(origin, '/v1/projects?per_page=1', { token: revoked.key })).status).toBe(200);
    });

    await admin('POST', `/clients/${revoked.clientId}/keys/${revoked.keyId}/revoke`);
    await onBothReplicas('the key refused', async (origin) => {
      expectError(await request(origin, '/v1/projects?per_page=1', { token: revoked.key }), 403, 'API_KEY_REVOKED');
    });
  });

  it(
    'when the projector is killed, then edits stop reaching the read models while both replicas serve; a new projector then projects each edit exactly once',
    async () => {
      const projectedHead = await readModelsCaughtUp();
      const totalBefore = await projectTotalOn(replicaA!.origin);
      const listed = await request(replicaA!.origin, '/v1/projects?per_page=1&sort=-name', { token: reader.key });
      const edited = listed.body.data[0] as {
        id: number;
        name: string;
        developer: { id: number };
        state: { id: number };
        community: { id: number };
      };
      const since = new Date().toISOString();

      process.kill(projector.servicePid(), 'SIGKILL');
      await projector.exited;

      const suffix = randomBytes(3).toString('hex');
      await admin('PATCH', `/projects/${edited.id}`, { name: `While projection stopped ${suffix}` });
      const created = await admin('POST', '/projects', {
        name: `Created while projection stopped ${suffix}`,
        slug: `created-while-projection-stopped-${suffix}`,
        developer_id: edited.developer.id,
        state_id: edited.state.id,
        community_id: edited.community.id,
        nature: 'off_plan',
      });
      await admin('POST', `/projects/${created.id}/publish`);
      const finalName = `After the projector restarted ${suffix}`;
      await admin('PATCH', `/projects/${edited.id}`, { name: finalName });
      const logHead = (await eventStore!.headPosition())!;

      await throughout('projection stopped while the replicas serve', STOPPED_WINDOW_MS, async () => {
        for (const name of allProjections.map(checkpointNameOf)) {
          expect(await readStore!.getCheckpoint(name), name).toBe(projectedHead);
        }
        for (const replica of replicas()) {
          expect((await request(replica.origin, '/v1/health')).status).toBe(200);
          const served = await projectOn(replica.origin, edited.id);
          expect(served.status).toBe(200);
          expect(served.body.data.name).toBe(edited.name);
          expectError(await projectOn(replica.origin, created.id as number), 404, 'NOT_FOUND');
        }
      });

      projector = await startProjector();
      await readModelsCaughtUp(NPM_START_PATIENCE_MS);
      expect(await eventStore!.headPosition()).toBe(logHead);

      for (const replica of replicas()) {
        expect((await projectOn(replica.origin, edited.id)).body.data.name).toBe(finalName);
        expect((await projectOn(replica.origin, created.id as number)).status).toBe(200);
        expect(await projectTotalOn(replica.origin)).toBe(totalBefore + 1);
        const feed = await request(replica.origin, `/v1/projects/changes?updated_since=${encodeURIComponent(since)}&per_page=100`, {
          token: reader.key,
        });
        expect(feed.status, JSON.stringify(feed.body)).toBe(200);
        expect(feed.body.data.map((entry: { project_id: number; changes: string[] }) => [entry.project_id, entry.changes])).toEqual([
          [edited.id, ['project']],
          [created.id, ['project']],
        ]);
      }

      // The change feed keeps one entry per reported event, keyed by its position: exactly the log's.
      const logged = (await eventStore!.readAll({ after: projectedHead })).filter((event) =>
        (changeFeedProjection.handles as readonly string[]).includes(event.type),
      );
      expect(logged.map((event) => event.type)).toEqual(['ProjectRevised', 'ProjectCreated', 'ProjectPublished', 'ProjectRevised']);
      const { items: entries } = await readStore!.find<ProjectChangeDoc>(PROJECT_CHANGES, {
        filter: { position: { $gt: Number(projectedHead) } },
        sort: [['position', 1]],
      });
      expect(entries.map((entry) => [entry.position, entry.event_type])).toEqual(
        logged.map((event) => [Number(event.position), event.type]),
      );

      expect(worker.child.exitCode, 'the worker kept running').toBeNull();
    },
    NPM_START_PATIENCE_MS + 60_000,
  );
});
