import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';
import { eventually } from '../support/eventually.js';
import { startLoopbackReceiver, type LoopbackReceiver, type ReceiverAnswer } from '../webhooks/loopbackReceiver.js';

/*
 * The whole path with a real loopback receiver: the service (all roles: API, projector, the webhook
 * dispatcher and delivery) on a random port, a webhook created through /v1, catalogue edits through
 * /admin/v1, and every delivery the receiver gets verified with the receivers' verifier. The clock is
 * injected (the commands', the deliveries' and the queue's), so hours of retries pass in moments.
 */

const ALL_TYPES = [
  'project.created',
  'project.updated',
  'project.status_changed',
  'project.deleted',
  'developer.updated',
  'community.updated',
];

describe('webhook delivery end to end', () => {
  let api: ApiFixture;
  let receiver: LoopbackReceiver;
  let dataDir: string;
  let now: Date;
  let key: string;
  let slugSequence = 0;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'webhooks-e2e-'));
    now = new Date('2025-06-01T08:00:00.000Z');
    receiver = await startLoopbackReceiver(
      () => 204,
      () => now.getTime(),
    );
    api = await startApiFixture({
      // Above the deliveries a test has in flight at once: a delivery put off for a busy endpoint waits for the injected clock.
      env: { DATA_DIR: dataDir, WEBHOOK_ALLOWED_PRIVATE_CIDRS: '127.0.0.0/8', RATE_LIMITS: 'off', WEBHOOK_ENDPOINT_CONCURRENCY: '8' },
      clock: () => now,
    });
    await api.given(publishedReferenceCatalogue());
    key = await api.key();
  });
  afterEach(async () => {
    await api.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const advance = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };

  async function createWebhook(events: readonly string[] = ALL_TYPES): Promise<{ id: string; secret: string }> {
    const answer = await api.get('/webhooks', key, { method: 'POST', body: { name: 'Receiver', url: receiver.url, events } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body.data as { id: string; secret: string };
  }

  async function publishedProject(): Promise<number> {
    slugSequence += 1;
    const created = await api.admin('POST', '/projects', {
      name: `Harbour ${slugSequence}`,
      slug: `harbour-${slugSequence}`,
      developer_id: 1,
      state_id: 1,
      community_id: 1,
      nature: 'off_plan',
    });
    expect(created.status).toBe(201);
    expect((await api.admin('POST', `/projects/${created.body.data.id}/publish`)).status).toBe(200);
    return created.body.data.id as number;
  }

  const received = (count: number) =>
    eventually(`${count} deliveries`, () => receiver.received.length >= count && receiver.received, { timeoutMs: 20_000 });

  const deliveriesOf = async (webhookId: string) => {
    const answer = await api.get(`/webhooks/${webhookId}/deliveries?per_page=100`, key);
    expect(answer.status).toBe(200);
    return answer.body.data as Array<Record<string, any>>;
  };

  /**
   * Waits for `count` attempts to be received and logged: an attempt's next time is reckoned from the clock
   * when its answer is in, so the clock may only move on once it is recorded.
   */
  const attempted = async (webhookId: string, count: number) => {
    await received(count);
    await eventually(`${count} attempts logged`, async () => (await deliveriesOf(webhookId)).length >= count, { timeoutMs: 20_000 });
  };

  it('when a project is published and revised through /admin/v1, then the receiver gets both events, signed and verifiable, in order', async () => {
    const webhook = await createWebhook();
    const projectId = await publishedProject();
    expect((await api.admin('PATCH', `/projects/${projectId}`, { name: 'Harbour Views' })).status).toBe(200);
    await attempted(webhook.id, 2);
    const events = receiver.verified(webhook.secret);
    expect(events.map((event) => event.type)).toEqual(['project.created', 'project.updated']);
    expect(events[1]!.data).toMatchObject({ id: projectId, name: 'Harbour Views' });
    expect(Number(events[1]!.data.sequence)).toBeGreaterThan(Number(events[0]!.data.sequence));
    expect(receiver.received[0]!.headers['user-agent']).toMatch(/PropertyCatalogueAPI/);
    const log = await deliveriesOf(webhook.id);
    expect(log.map((attempt) => attempt.outcome)).toEqual(['succeeded', 'succeeded']);
  });

  it('when the receiver fails, then retries follow the schedule with the same event id until it answers 2xx', async () => {
    const webhook = await createWebhook();
    const answers: ReceiverAnswer[] = [500, 503, 500];
    receiver.answer = () => answers.shift() ?? 204;
    await publishedProject();
    await attempted(webhook.id, 1);
    // Attempt 2 comes "immediately" (within a second), attempt 3 after about 5 s, attempt 4 after about 5 min.
    for (const [count, waitMs] of [
      [2, 1_000],
      [3, 6_000],
      [4, 6 * 60_000],
    ] as const) {
      advance(waitMs);
      await attempted(webhook.id, count);
    }
    const ids = receiver.received.map((delivery) => delivery.headers['x-service-event-id']);
    expect(new Set(ids).size).toBe(1);
    expect(new Set(receiver.received.map((delivery) => delivery.body)).size).toBe(1);
    receiver.verified(webhook.secret);
    const log = await eventually('the last attempt logged', async () => {
      const attempts = await deliveriesOf(webhook.id);
      return attempts.length === 4 && attempts;
    });
    expect(log.map((attempt) => [attempt.attempt, attempt.status_code, attempt.outcome])).toEqual([
      [4, 204, 'succeeded'],
      [3, 500, 'retrying'],
      [2, 503, 'retrying'],
      [1, 500, 'retrying'],
    ]);
  });

  it('when the receiver answers 410, then the webhook is disabled (gone) and nothing more is sent', async () => {
    const webhook = await createWebhook();
    receiver.answer = () => 410;
    await publishedProject();
    await received(1);
    const disabled = await eventually('the webhook disabled', async () => {
      const answer = await api.get(`/webhooks/${webhook.id}`, key);
      return answer.body.data.status === 'disabled' && answer.body.data;
    });
    expect(disabled.disabled_reason).toBe('gone');
    await publishedProject();
    await api.settle();
    advance(60_000);
    expect(receiver.received).toHaveLength(1);
  });

  it('when a delivery has failed for good, then an administrator retries it with the same event id', async () => {
    const webhook = await createWebhook();
    receiver.answer = () => 500;
    await publishedProject();
    // Through the whole schedule: nine attempts, the last about 28 hours after the first.
    for (let attempt = 1; attempt <= 9; attempt += 1) {
      await attempted(webhook.id, attempt);
      advance(13 * 3_600_000);
    }
    const [failed] = await eventually('the delivery failed', async () => {
      const attempts = await deliveriesOf(webhook.id);
      return attempts[0]?.outcome === 'failed' && attempts;
    });
    receiver.answer = () => 204;
    const retried = await api.admin('POST', `/webhooks/${webhook.id}/deliveries/${failed!.delivery_id}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    await received(10);
    expect(new Set(receiver.received.map((delivery) => delivery.headers['x-service-event-id'])).size).toBe(1);
    expect((await api.admin('POST', `/webhooks/${webhook.id}/deliveries/${failed!.delivery_id}/retry`)).status).toBe(409);
  });

  it('when the secret was rotated, then deliveries during the overlap carry both signatures and verify with either', async () => {
    const webhook = await createWebhook();
    const rotated = await api.get(`/webhooks/${webhook.id}/rotate-secret`, key, { method: 'POST' });
    expect(rotated.status).toBe(200);
    await api.settle();
    await publishedProject();
    const [delivery] = await received(1);
    expect(delivery!.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64} v1=[0-9a-f]{64}$/);
    receiver.verified(webhook.secret);
    receiver.verified(rotated.body.data.secret as string);
  });

  it('when the test endpoint is called, then a signed webhook.test event arrives and is logged', async () => {
    const webhook = await createWebhook(['developer.updated']);
    const queued = await api.get(`/webhooks/${webhook.id}/test`, key, { method: 'POST' });
    expect(queued.status).toBe(202);
    await received(1);
    const [event] = receiver.verified(webhook.secret);
    expect(event).toMatchObject({ id: queued.body.data.event_id, type: 'webhook.test', data: { webhook_id: webhook.id } });
    const other = await api.key();
    expect((await api.get(`/webhooks/${webhook.id}/deliveries`, other)).status).toBe(404);
    expect((await api.get(`/webhooks/${webhook.id}/test`, other, { method: 'POST' })).status).toBe(404);
  });

  it('when the receiver is down for hours, then every event arrives afterwards, each id once per successful attempt', async () => {
    const webhook = await createWebhook();
    let down = true;
    receiver.answer = () => (down ? 503 : 204);
    const projects = [await publishedProject(), await publishedProject(), await publishedProject()];
    for (const projectId of projects) {
      expect((await api.admin('PATCH', `/projects/${projectId}`, { name: `Renamed ${projectId}` })).status).toBe(200);
    }
    await attempted(webhook.id, 6);
    // About three hours down: each step passes the next wait of the schedule, and all six events are tried again.
    const waits = [1_000, 6_000, 6 * 60_000, 36 * 60_000, 144 * 60_000];
    for (const [index, waitMs] of waits.entries()) {
      advance(waitMs);
      await attempted(webhook.id, 6 * (index + 2));
    }
    down = false;
    advance(6 * 3_600_000);
    const successes = await eventually(
      'all six delivered',
      () => {
        const ok = receiver.received.filter((delivery) => delivery.answered === 204);
        return ok.length >= 6 && ok;
      },
      { timeoutMs: 20_000 },
    );
    const ids = successes.map((delivery) => delivery.headers['x-service-event-id']);
    expect(new Set(ids).size).toBe(6);
    expect(ids).toHaveLength(6);
    expect(new Set(receiver.received.map((delivery) => delivery.headers['x-service-event-id'])).size).toBe(6);
    receiver.verified(webhook.secret);
  });
});
