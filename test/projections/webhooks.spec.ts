import { describe, expect, it } from 'vitest';
import { WEBHOOKS, webhooksProjection } from '../../projections/webhooks.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { webhookStream, type WebhookEvent } from '../../src/webhooks/webhook.js';
import { minute, type StreamEvent } from '../support/catalogueEvents.js';
import { projectInBatches, readModelOf, recorded } from '../support/projectionHarness.js';

const FIRST = 'wh_00000000000000000000000a';
const SECOND = 'wh_00000000000000000000000b';

const webhookEvent = (event: WebhookEvent): StreamEvent => ({ stream: webhookStream(event.data.webhook_id), event });

const createdEvent = (webhookId: string, clientId: number, at = minute(0)): StreamEvent =>
  webhookEvent({
    type: 'WebhookCreated',
    data: {
      webhook_id: webhookId,
      client_id: clientId,
      name: `Hook ${webhookId.slice(-1)}`,
      url: `https://hooks.example.com/${webhookId}`,
      events: ['project.created'],
      sealed_secret: `v1:${'A'.repeat(60)}`,
      at,
    },
  });

/** Two webhooks of two clients; the first goes through every event type. */
const history = (): StreamEvent[] => [
  createdEvent(FIRST, 1),
  createdEvent(SECOND, 2, minute(1)),
  webhookEvent({
    type: 'WebhookRevised',
    data: { webhook_id: FIRST, client_id: 1, changes: { name: 'CRM', events: ['project.updated', 'developer.updated'] }, at: minute(2) },
  }),
  webhookEvent({ type: 'WebhookDisabled', data: { webhook_id: FIRST, client_id: 1, reason: 'gone', at: minute(3) } }),
  webhookEvent({ type: 'WebhookEnabled', data: { webhook_id: FIRST, client_id: 1, by: 'client', at: minute(4) } }),
  webhookEvent({
    type: 'WebhookSecretRotated',
    data: { webhook_id: FIRST, client_id: 1, sealed_secret: `v1:${'B'.repeat(60)}`, previous_retire_at: minute(1445), at: minute(5) },
  }),
  webhookEvent({ type: 'WebhookDisabled', data: { webhook_id: FIRST, client_id: 1, reason: 'admin', at: minute(6) } }),
  webhookEvent({ type: 'WebhookDeleted', data: { webhook_id: SECOND, client_id: 2, at: minute(7) } }),
];

async function projected(batchSize: number, events: StreamEvent[] = history()) {
  const readStore = createEmbeddedReadStore();
  await projectInBatches(readStore, webhooksProjection, await recorded(events), batchSize);
  return readStore;
}

describe('webhooks read model', () => {
  it('when a webhook is created, revised, disabled, enabled, rotated and disabled again, then its document holds the plan’s shape', async () => {
    const readStore = await projected(3);
    expect(await readStore.get(WEBHOOKS, FIRST)).toEqual({
      _id: FIRST,
      id: FIRST,
      client_id: 1,
      name: 'CRM',
      url: `https://hooks.example.com/${FIRST}`,
      events: ['project.updated', 'developer.updated'],
      status: 'disabled',
      disabled_reason: 'admin',
      secrets: [
        { sealed: `v1:${'B'.repeat(60)}`, retire_at: null },
        { sealed: `v1:${'A'.repeat(60)}`, retire_at: minute(1445) },
      ],
      created_at: minute(0),
      updated_at: minute(6),
      deleted: false,
      revision: 5,
      _position: expect.any(Number),
    });
  });

  it('when a webhook is deleted, then its document stays, marked deleted, and the client count leaves it out', async () => {
    const readStore = await projected(2);
    expect(await readStore.get(WEBHOOKS, SECOND)).toMatchObject({ deleted: true, updated_at: minute(7), revision: 1 });
    expect((await readStore.find(WEBHOOKS, { filter: { client_id: 2, deleted: false } })).total).toBe(0);
    expect((await readStore.find(WEBHOOKS, { filter: { client_id: 1, deleted: false } })).total).toBe(1);
  });

  it('when the same events are applied twice, in one batch or again after it, then the read model is as after once', async () => {
    const events = await recorded(history());
    const once = createEmbeddedReadStore();
    await projectInBatches(once, webhooksProjection, events, 4);
    const model = await readModelOf(once, [webhooksProjection]);

    const again = createEmbeddedReadStore();
    await projectInBatches(again, webhooksProjection, events, 3);
    await projectInBatches(again, webhooksProjection, events, 5);
    const doubled = createEmbeddedReadStore();
    await projectInBatches(
      doubled,
      webhooksProjection,
      events.flatMap((event) => [event, event]),
      6,
    );
    expect(await readModelOf(again, [webhooksProjection])).toEqual(model);
    expect(await readModelOf(doubled, [webhooksProjection])).toEqual(model);
  });
});
