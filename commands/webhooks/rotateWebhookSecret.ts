import type { Webhook, WebhookEvent } from '../../src/webhooks/webhook.js';
import type { WebhookCommandMeta } from '../../src/webhooks/webhookReferences.js';
import { SEALED_SECRET_PATTERN } from '../../src/webhooks/webhookSecrets.js';
import { existingWebhook } from './webhookFields.js';

/**
 * The new secret, generated and sealed by the handler, and how long the replaced one keeps signing
 * deliveries (WEBHOOK_SECRET_OVERLAP_SECONDS).
 */
export interface RotateWebhookSecret {
  client_id: number;
  sealed_secret: string;
  overlap_seconds: number;
}

export function decide(command: RotateWebhookSecret, webhook: Webhook | null, meta: WebhookCommandMeta): WebhookEvent[] {
  if (!SEALED_SECRET_PATTERN.test(command.sealed_secret)) throw new Error('sealed_secret must be a sealed webhook secret.');
  if (!Number.isInteger(command.overlap_seconds) || command.overlap_seconds < 0) throw new Error('overlap_seconds must be a whole number.');
  const { client_id } = existingWebhook(command, webhook, meta.webhookId);
  const previousRetireAt = new Date(Date.parse(meta.now) + command.overlap_seconds * 1000).toISOString();
  return [
    {
      type: 'WebhookSecretRotated',
      data: {
        webhook_id: meta.webhookId,
        client_id,
        sealed_secret: command.sealed_secret,
        previous_retire_at: previousRetireAt,
        at: meta.now,
      },
    },
  ];
}
