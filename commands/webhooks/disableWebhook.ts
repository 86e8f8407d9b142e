import { z } from 'zod';
import { WEBHOOK_DISABLED_REASONS, type Webhook, type WebhookEvent } from '../../src/webhooks/webhook.js';
import type { WebhookCommandMeta } from '../../src/webhooks/webhookReferences.js';
import { existingWebhook } from './webhookFields.js';

/** Sent by an administrator (`admin`) or the delivery worker (`gone`, `failing`); a client disables through updateWebhook. */
export const disableWebhookSchema = z.object({ reason: z.enum(WEBHOOK_DISABLED_REASONS) }).strict();

export type DisableWebhook = z.infer<typeof disableWebhookSchema>;

/**
 * Stops deliveries. A disabled webhook stays as it is (its first reason kept), except that an administrator's
 * disable takes over any other reason, so that its client can no longer enable it.
 */
export function decide(command: DisableWebhook, webhook: Webhook | null, meta: WebhookCommandMeta): WebhookEvent[] {
  const current = existingWebhook({}, webhook, meta.webhookId);
  const takesOver = current.status === 'active' || (command.reason === 'admin' && current.disabled_reason !== 'admin');
  if (!takesOver) return [];
  return [
    { type: 'WebhookDisabled', data: { webhook_id: meta.webhookId, client_id: current.client_id, reason: command.reason, at: meta.now } },
  ];
}
