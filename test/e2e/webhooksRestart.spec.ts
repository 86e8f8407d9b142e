import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { killNpmStart, npmRun, npmStart, NPM_START_PATIENCE_MS, type NpmStart } from '../support/npmStart.js';
import { startLoopbackReceiver, type LoopbackReceiver } from '../webhooks/loopbackReceiver.js';

/*
 * The service as the README starts it (`npm start`: every role in one process, embedded stores and the
 * SQLite job queue in DATA_DIR) with a real loopback receiver:
 * - kill -9 while a delivery is in flight (the receiver holds it unanswered), then a restart on the same
 *   DATA_DIR: the delivery is made again with the same event id, and every event is delivered;
 * - `npm run replay` (a blue/green rebuild of every read model) between two starts sends nothing.
 */

const ENV = {
  SEED_DEMO: 'false',
  WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8',
  RATE_LIMITS: 'off',
  LOG_LEVEL: 'warn',
  JOB_LEASE_SECONDS: '5',
};

describe('webhooks across kill -9, restarts and replays (npm start)', () => {
  let dataDir: string;
  let receiver: LoopbackReceiver;
  let service: NpmStart | null = null;
  let secret: string;
  let projectId: number;
  let key: string;

  const admin = async (method: string, path: string, body?: unknown) => {
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const answer = await request(service!.origin, `/admin/v1${path}`, { method, token, ...(body === undefined ? {} : { body }) });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  };
  const eventIds = () => receiver.received.map((delivery) => String(delivery.headers['x-service-event-id']));
  const received = (count: number) =>
    eventually(`${count} deliveries`, () => receiver.received.length >= count, { timeoutMs: NPM_START_PATIENCE_MS });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'webhooks-restart-'));
    receiver = await startLoopbackReceiver();
    service = await npmStart(dataDir, ENV);
    const state = await admin('POST', '/states', { name: 'Dubai', slug: 'dubai', country_code: 'AE' });
    await admin('POST', `/states/${state.id}/publish`);
    const community = await admin('POST', '/communities', { state_id: state.id, name: 'Marina', slug: 'marina' });
    await admin('POST', `/communities/${community.id}/publish`);
    const developer = await admin('POST', '/developers', { name: 'Builder', slug: 'builder' });
    await admin('POST', `/developers/${developer.id}/publish`);
    await admin('POST', '/plans', {
      key: 'hooks',
      name: 'Hooks',
      scopes: ['webhooks:manage', 'projects:read'],
      entitlements: ['webhooks'],
    });
    const client = await admin('POST', '/clients', { name: 'Receiver Ltd', plan: 'hooks' });
    key = (await admin('POST', `/clients/${client.id}/keys`, { environment: 'live' })).key as string;
    const webhook = await eventually('the webhook created once the key is projected', async () => {
      const answer = await request(service!.origin, '/v1/webhooks', {
        method: 'POST',
        token: key,
        body: { name: 'Receiver', url: receiver.url, events: ['project.created', 'project.updated'] },
      });
      return answer.status === 201 && (answer.body.data as { secret: string });
    });
    secret = webhook.secret;
    const project = await admin('POST', '/projects', {
      name: 'Tower',
      slug: 'tower',
      developer_id: developer.id,
      state_id: state.id,
      community_id: community.id,
      nature: 'off_plan',
    });
    projectId = project.id as number;
  }, NPM_START_PATIENCE_MS * 2);

  afterAll(async () => {
    if (service) killNpmStart(service);
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'when the worker is killed with a delivery in flight, then after a restart it is delivered with the same id, and so is every later event',
    async () => {
      let holding = true;
      receiver.answer = () => (holding ? 'hang' : 204);
      await admin('POST', `/projects/${projectId}/publish`);
      await received(1);
      const inFlight = eventIds()[0]!;
      process.kill(service!.servicePid(), 'SIGKILL');
      await service!.exited;
      holding = false;
      service = await npmStart(dataDir, ENV);
      await eventually(
        'the delivery made again and acknowledged',
        () => receiver.received.some((delivery, index) => index > 0 && delivery.headers['x-service-event-id'] === inFlight),
        { timeoutMs: NPM_START_PATIENCE_MS },
      );
      await admin('PATCH', `/projects/${projectId}`, { name: 'Tower Two' });
      await eventually('the later event delivered', () => new Set(eventIds()).size === 2, { timeoutMs: NPM_START_PATIENCE_MS });
      const events = receiver.verified(secret);
      expect(events.map((event) => event.type)).toContain('project.updated');
      expect(events.filter((event) => event.id === inFlight).every((event) => event.type === 'project.created')).toBe(true);
    },
    NPM_START_PATIENCE_MS * 3,
  );

  it(
    'when every read model is replayed between two starts, then nothing is sent again',
    async () => {
      const before = receiver.received.length;
      const stopped = service!.exited;
      service!.child.kill('SIGTERM');
      expect((await stopped).code).toBe(0);
      service = null;
      const replay = await npmRun(dataDir, 'replay');
      expect(replay.code, replay.stderr).toBe(0);
      service = await npmStart(dataDir, ENV);
      await admin('PATCH', `/projects/${projectId}`, { name: 'Tower Three' });
      await received(before + 1);
      // The new edit arrived; a replay's re-sent history would have come before it.
      expect(receiver.received.length).toBe(before + 1);
      expect(JSON.parse(receiver.received.at(-1)!.body).data.name).toBe('Tower Three');
      receiver.verified(secret);
    },
    NPM_START_PATIENCE_MS * 3,
  );
});
