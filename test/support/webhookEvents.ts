import { webhookStream, type WebhookEvent } from '../../src/webhooks/webhook.js';
import { minute, type StreamEvent } from './catalogueEvents.js';

/** Sealed-looking text: the read model stores what the event carries and never opens it. */
export const sealedSecret = (letter: string): string => `v1:${letter.repeat(60)}`;

export function webhookEvent(event: WebhookEvent): StreamEvent {
  return { stream: webhookStream(event.data.webhook_id), event };
}

export function webhookCreated(webhookId: string, clientId: number, at = minute(0)): StreamEvent {
  return webhookEvent({
    type: 'WebhookCreated',
    data: {
      webhook_id: webhookId,
      client_id: clientId,
      name: `Hook ${webhookId.slice(-1)}`,
      url: `https://hooks.example.com/${webhookId}`,
      events: ['project.created'],
      sealed_secret: sealedSecret('A'),
      at,
    },
  });
}

export const FIRST_WEBHOOK = 'wh_00000000000000000000000a';
export const SECOND_WEBHOOK = 'wh_00000000000000000000000b';

/** Two webhooks of two clients; the first goes through every event type, the second is deleted. */
export function webhookHistory(): StreamEvent[] {
  const [first, second] = [FIRST_WEBHOOK, SECOND_WEBHOOK];
  return [
    webhookCreated(first, 1),
    webhookCreated(second, 2, minute(1)),
    webhookEvent({
      type: 'WebhookRevised',
      data: { webhook_id: first, client_id: 1, changes: { name: 'CRM', events: ['project.updated', 'developer.updated'] }, at: minute(2) },
    }),
    webhookEvent({ type: 'WebhookDisabled', data: { webhook_id: first, client_id: 1, reason: 'gone', at: minute(3) } }),
    webhookEvent({ type: 'WebhookEnabled', data: { webhook_id: first, client_id: 1, by: 'client', at: minute(4) } }),
    webhookEvent({
      type: 'WebhookSecretRotated',
      data: { webhook_id: first, client_id: 1, sealed_secret: sealedSecret('B'), previous_retire_at: minute(1445), at: minute(5) },
    }),
    webhookEvent({ type: 'WebhookDisabled', data: { webhook_id: first, client_id: 1, reason: 'admin', at: minute(6) } }),
    webhookEvent({ type: 'WebhookDeleted', data: { webhook_id: second, client_id: 2, at: minute(7) } }),
  ];
}
