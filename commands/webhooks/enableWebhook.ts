import type { Webhook, WebhookEvent } from '../../src/webhooks/webhook.js';
import type { WebhookCommandMeta } from '../../src/webhooks/webhookReferences.js';
import { existingWebhook } from './webhookFields.js';

/** An administrator re-enables a disabled webhook, whatever disabled it; an active one stays as it is. */
export function decide(_command: Record<string, never>, webhook: Webhook | null, meta: WebhookCommandMeta): WebhookEvent[] {
  const current = existingWebhook({}, webhook, meta.webhookId);
  if (current.status === 'active') return [];
  return [{ type: 'WebhookEnabled', data: { webhook_id: meta.webhookId, client_id: current.client_id, by: 'admin', at: meta.now } }];
}
