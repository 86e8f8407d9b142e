import { z } from 'zod';
import { CommandRejected, Conflict } from '../../src/domain/errors.js';
import { MAX_WEBHOOKS_PER_CLIENT, type Webhook, type WebhookEvent } from '../../src/webhooks/webhook.js';
import type { WebhookCommandMeta, WebhookLookup } from '../../src/webhooks/webhookReferences.js';
import { SEALED_SECRET_PATTERN } from '../../src/webhooks/webhookSecrets.js';
import { webhookEventsSchema, webhookNameSchema, webhookUrlSchema } from './webhookFields.js';

export const createWebhookSchema = z
  .object({ name: webhookNameSchema, url: webhookUrlSchema, events: webhookEventsSchema })
  .strict()
  .meta({ id: 'NewWebhook' });

/**
 * What the handler adds to the body: the calling client and the secret it generated, sealed. The secret is
 * random, so it is made outside the decider, which never sees it in clear.
 */
export type CreateWebhook = z.infer<typeof createWebhookSchema> & { client_id: number; sealed_secret: string };

/** How many webhooks the client has, for the cap. */
export function references(command: CreateWebhook): WebhookLookup {
  return { webhookCountOf: command.client_id };
}

export class WebhookLimitReached extends CommandRejected {
  constructor() {
    super('WEBHOOK_LIMIT_REACHED', `A client may have at most ${MAX_WEBHOOKS_PER_CLIENT} webhooks; delete one to create another.`, {
      limit: MAX_WEBHOOKS_PER_CLIENT,
    });
  }
}

export function decide(command: CreateWebhook, webhook: Webhook | null, meta: WebhookCommandMeta): WebhookEvent[] {
  // Not an input error but a bug of the caller: a secret in clear would be stored for good.
  if (!SEALED_SECRET_PATTERN.test(command.sealed_secret)) throw new Error('sealed_secret must be a sealed webhook secret.');
  if (webhook) throw new Conflict(`Webhook ${meta.webhookId} already exists.`);
  const { webhookCount } = meta.references;
  if (webhookCount === null) throw new Error("The client's webhooks were not counted (see references).");
  if (webhookCount >= MAX_WEBHOOKS_PER_CLIENT) throw new WebhookLimitReached();
  const { client_id, name, url, events, sealed_secret } = command;
  return [{ type: 'WebhookCreated', data: { webhook_id: meta.webhookId, client_id, name, url, events, sealed_secret, at: meta.now } }];
}
