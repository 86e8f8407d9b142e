import { createHmac } from 'node:crypto';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WEBHOOKS, type WebhookDoc } from '../../projections/webhooks.js';
import type { Job, JobOutcome } from '../../src/jobQueue/jobQueue.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { verifyWebhook } from '../../src/webhooks/receiver/verifyWebhook.js';
import { RETRY_DELAYS_SECONDS } from '../../src/webhooks/retrySchedule.js';
import {
  deliveryIdOf,
  WEBHOOK_DELIVERIES,
  type WebhookDeliveryAttemptDoc,
  type WebhookDeliveryJob,
} from '../../src/webhooks/webhookDeliveries.js';
import { createWebhookSecretBox } from '../../src/webhooks/webhookSecrets.js';
import { createDeliveryHandler, DISABLE_FAILING_AFTER_MS, WEBHOOK_USER_AGENT } from '../../workers/webhooks/webhookDelivery.js';
import { silentLogger, webhookIdOf } from './dispatcherHarness.js';

const RECEIVER = 'https://receiver.example.com';
const PUBLIC_ADDRESS = '93.184.216.34';
const SECRET = 'whsec_current-secret-0123456789abcdefghijklmnopqrstu';
const OLD_SECRET = 'whsec_previous-secret-0123456789abcdefghijklmnopqrs';
const NOW = new Date('2025-03-01T12:00:00.000Z');

const secretBox = createWebhookSecretBox(Buffer.alloc(32, 9));

function webhookDoc(n: number, overrides: Partial<WebhookDoc> = {}): WebhookDoc {
  const id = webhookIdOf(n);
  return {
    _id: id,
    id,
    client_id: 1,
    name: `Hook ${n}`,
    url: `${RECEIVER}/hooks/${n}`,
    events: ['project.updated'],
    status: 'active',
    disabled_reason: null,
    secrets: [{ sealed: secretBox.seal(id, SECRET), retire_at: null }],
    created_at: NOW.toISOString(),
    updated_at: NOW.toISOString(),
    deleted: false,
    revision: 0,
    _position: 1,
    ...overrides,
  };
}

let eventCounter = 0;
function deliveryJob(webhookId: string, attempt = 1): Job {
  eventCounter += 1;
  const eventId = `evt_${eventCounter.toString(16).padStart(32, '0')}`;
  const body = JSON.stringify({ id: eventId, type: 'project.updated', created_at: NOW.toISOString(), data: { id: 7, sequence: 3 } });
  const data: WebhookDeliveryJob = { webhook_id: webhookId, event_id: eventId, event_type: 'project.updated', body };
  return { id: deliveryIdOf(eventId, webhookId), data, attempt };
}

describe('webhook delivery', () => {
  let readStore: ReadStore;
  let now: Date;
  let disabled: Array<[string, string]>;
  let handle: (job: Job) => Promise<JobOutcome>;
  const makeHandler = (endpointConcurrency = 4) =>
    createDeliveryHandler({
      queue: undefined as never,
      readStore,
      secretBox,
      targetPolicy: { allowedPrivateCidrs: [] },
      resolve: async (hostname) =>
        hostname === 'receiver.example.com' ? [{ address: PUBLIC_ADDRESS, family: 4 }] : [{ address: '10.0.0.7', family: 4 }],
      disableWebhook: async (webhookId, reason) => {
        disabled.push([webhookId, reason]);
      },
      concurrency: 8,
      endpointConcurrency,
      timeoutMs: 15_000,
      maxResponseBytes: 1024,
      logger: silentLogger,
      clock: () => now,
      random: () => 0.5,
    });

  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
  });
  afterAll(() => {
    nock.enableNetConnect();
  });
  beforeEach(async () => {
    readStore = createEmbeddedReadStore();
    now = NOW;
    disabled = [];
    handle = makeHandler();
    await readStore.write([1, 2, 3].map((n) => ({ op: 'put', collection: WEBHOOKS, doc: webhookDoc(n) })));
  });
  afterEach(async () => {
    nock.cleanAll();
    await readStore.close();
  });

  const attemptsOf = async (webhookId: string) =>
    (await readStore.find<WebhookDeliveryAttemptDoc>(WEBHOOK_DELIVERIES, { filter: { webhook_id: webhookId }, sort: [['attempt', 1]] }))
      .items;

  it('when the receiver answers 204, then the body is posted signed with the spec headers, verifies, and the attempt is logged as succeeded', async () => {
    let received: { headers: Record<string, string>; body: string } | null = null;
    nock(RECEIVER)
      .post('/hooks/1')
      .reply(function (_uri, body) {
        received = { headers: this.req.headers as Record<string, string>, body: typeof body === 'string' ? body : JSON.stringify(body) };
        return [204, ''];
      });
    const job = deliveryJob(webhookIdOf(1));
    expect(await handle(job)).toEqual({ status: 'completed' });
    const { headers, body } = received!;
    const delivery = job.data as WebhookDeliveryJob;
    expect(body).toBe(delivery.body);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': WEBHOOK_USER_AGENT,
      'x-service-event': 'project.updated',
      'x-service-event-id': delivery.event_id,
      'x-service-timestamp': String(NOW.getTime() / 1000),
    });
    const event = verifyWebhook(body, headers, SECRET, { now: () => NOW.getTime() });
    expect(event.id).toBe(delivery.event_id);
    // Independently of the verifier: HMAC-SHA256 over timestamp.event_id.raw_body, as the spec says.
    const expected = createHmac('sha256', SECRET)
      .update(`${NOW.getTime() / 1000}.${delivery.event_id}.${body}`)
      .digest('hex');
    expect(headers['x-service-signature']).toBe(`v1=${expected}`);
    expect(await attemptsOf(webhookIdOf(1))).toMatchObject([{ attempt: 1, status_code: 204, outcome: 'succeeded', next_attempt_at: null }]);
  });

  it('when the receiver answers 500, then the delivery is retried on the schedule with jitter and the attempt logs when', async () => {
    nock(RECEIVER).post('/hooks/1').reply(500, 'oops');
    const outcome = await handle(deliveryJob(webhookIdOf(1)));
    expect(outcome.status).toBe('retry');
    const runAt = (outcome as { runAt: Date }).runAt.getTime();
    const delay = (runAt - NOW.getTime()) / 1000;
    // The first retry follows at once, spread over a second (random() = 0.5 here).
    expect(delay).toBeGreaterThan(0);
    expect(delay).toBeLessThanOrEqual(1);
    expect(await attemptsOf(webhookIdOf(1))).toMatchObject([
      { attempt: 1, status_code: 500, outcome: 'retrying', next_attempt_at: new Date(runAt).toISOString() },
    ]);
  });

  it('when the last attempt fails, then the delivery is failed', async () => {
    // The first attempt and one retry per entry of the schedule.
    const attempts = RETRY_DELAYS_SECONDS.length + 1;
    nock(RECEIVER).post('/hooks/1').times(attempts).reply(503);
    const job = deliveryJob(webhookIdOf(1));
    const outcomes: string[] = [];
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      outcomes.push((await handle({ ...job, attempt })).status);
    }
    expect(outcomes).toEqual([...Array<string>(attempts - 1).fill('retry'), 'failed']);
    const logged = await attemptsOf(webhookIdOf(1));
    expect(logged.map((attempt) => attempt.attempt)).toEqual(Array.from({ length: attempts }, (_, index) => index + 1));
    expect(logged.at(-1)).toMatchObject({ outcome: 'failed', next_attempt_at: null });
  });

  it('when the receiver answers 410, then the webhook is disabled (gone) at once and the delivery fails', async () => {
    nock(RECEIVER).post('/hooks/2').reply(410);
    expect(await handle(deliveryJob(webhookIdOf(2)))).toMatchObject({ status: 'failed' });
    expect(disabled).toEqual([[webhookIdOf(2), 'gone']]);
  });

  it('when a secret was rotated within its overlap, then both signatures are sent and a receiver holding either verifies', async () => {
    const id = webhookIdOf(3);
    const secrets = [
      { sealed: secretBox.seal(id, SECRET), retire_at: null },
      { sealed: secretBox.seal(id, OLD_SECRET), retire_at: new Date(NOW.getTime() + 3_600_000).toISOString() },
    ];
    await readStore.write([{ op: 'put', collection: WEBHOOKS, doc: webhookDoc(3, { secrets }) }]);
    const seen: Array<{ headers: Record<string, string>; body: string }> = [];
    nock(RECEIVER)
      .post('/hooks/3')
      .twice()
      .reply(function (_uri, body) {
        seen.push({ headers: this.req.headers as Record<string, string>, body: typeof body === 'string' ? body : JSON.stringify(body) });
        return [200, 'ok'];
      });
    await handle(deliveryJob(id));
    const { headers, body } = seen[0]!;
    expect(headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64} v1=[0-9a-f]{64}$/);
    for (const secret of [SECRET, OLD_SECRET])
      expect(() => verifyWebhook(body, headers, secret, { now: () => NOW.getTime() })).not.toThrow();
    // Past the overlap only the current secret signs.
    now = new Date(NOW.getTime() + 7_200_000);
    await handle(deliveryJob(id));
    expect(seen[1]!.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
  });

  it('when the webhook is disabled or deleted by the attempt, then nothing is sent and the delivery completes as skipped', async () => {
    await readStore.write([
      { op: 'put', collection: WEBHOOKS, doc: webhookDoc(1, { status: 'disabled', disabled_reason: 'client' }) },
      { op: 'put', collection: WEBHOOKS, doc: webhookDoc(2, { deleted: true }) },
    ]);
    expect(await handle(deliveryJob(webhookIdOf(1)))).toEqual({ status: 'completed' });
    expect(await handle(deliveryJob(webhookIdOf(2)))).toEqual({ status: 'completed' });
    expect((await attemptsOf(webhookIdOf(1)))[0]).toMatchObject({ outcome: 'skipped', status_code: null });
  });

  it('when the target now resolves to a private address, then nothing is sent and the attempt fails as refused', async () => {
    await readStore.write([{ op: 'put', collection: WEBHOOKS, doc: webhookDoc(1, { url: 'https://moved.example.com/hooks' }) }]);
    const outcome = await handle(deliveryJob(webhookIdOf(1)));
    expect(outcome.status).toBe('retry');
    expect((await attemptsOf(webhookIdOf(1)))[0]).toMatchObject({ error: 'target_refused', status_code: null, outcome: 'retrying' });
  });

  it('when an endpoint has failed continuously for 5 days, then it is disabled (failing) and the delivery fails', async () => {
    nock(RECEIVER).post('/hooks/1').times(2).reply(500);
    await handle(deliveryJob(webhookIdOf(1)));
    now = new Date(NOW.getTime() + DISABLE_FAILING_AFTER_MS);
    expect(await handle(deliveryJob(webhookIdOf(1)))).toMatchObject({ status: 'failed' });
    expect(disabled).toEqual([[webhookIdOf(1), 'failing']]);
    // Enabled again later, it gets 5 days afresh although no delivery has succeeded since.
    await readStore.write([{ op: 'put', collection: WEBHOOKS, doc: webhookDoc(1, { updated_at: now.toISOString() }) }]);
    now = new Date(now.getTime() + 3_600_000);
    nock(RECEIVER).post('/hooks/1').reply(500);
    expect(await handle(deliveryJob(webhookIdOf(1)))).toMatchObject({ status: 'retry' });
    expect(disabled).toHaveLength(1);
  });

  it('when an endpoint has its cap of deliveries in flight, then another for it waits without an attempt while other endpoints are served', async () => {
    handle = makeHandler(1);
    nock(RECEIVER).post('/hooks/1').delay(300).reply(204);
    nock(RECEIVER).post('/hooks/2').reply(204);
    const slow = handle(deliveryJob(webhookIdOf(1)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const waiting = deliveryJob(webhookIdOf(1));
    expect(await handle(waiting)).toMatchObject({ status: 'retry' });
    expect(await handle(deliveryJob(webhookIdOf(2)))).toEqual({ status: 'completed' });
    expect(await slow).toEqual({ status: 'completed' });
    // Its later run is its first attempt: the wait was not one.
    nock(RECEIVER).post('/hooks/1').reply(204);
    expect(await handle({ ...waiting, attempt: 2 })).toEqual({ status: 'completed' });
    expect((await attemptsOf(webhookIdOf(1))).map((attempt) => attempt.attempt)).toEqual([1, 1]);
  });
});
