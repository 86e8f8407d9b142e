import type { Webhook, WebhookEvent } from '../../src/webhooks/webhook.js';
import type { WebhookCommandMeta } from '../../src/webhooks/webhookReferences.js';
import { existingWebhook } from './webhookFields.js';

export interface DeleteWebhook {
  client_id: number;
}

/** A deleted webhook is gone for its client (404 from then on) and no longer counts toward the cap. */
export function decide(command: DeleteWebhook, webhook: Webhook | null, meta: WebhookCommandMeta): WebhookEvent[] {
  const { client_id } = existingWebhook(command, webhook, meta.webhookId);
  return [{ type: 'WebhookDeleted', data: { webhook_id: meta.webhookId, client_id, at: meta.now } }];
}
