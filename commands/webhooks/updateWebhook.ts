import { z } from 'zod';
import { Conflict } from '../../src/domain/errors.js';
import { WEBHOOK_STATUSES, type Webhook, type WebhookEvent, type WebhookFields } from '../../src/webhooks/webhook.js';
import type { WebhookCommandMeta } from '../../src/webhooks/webhookReferences.js';
import { existingWebhook, webhookEventsSchema, webhookNameSchema, webhookUrlSchema } from './webhookFields.js';

export const updateWebhookSchema = z
  .object({
    name: webhookNameSchema.optional(),
    url: webhookUrlSchema.optional(),
    events: webhookEventsSchema.optional(),
    status: z
      .enum(WEBHOOK_STATUSES)
      .optional()
      .meta({
        description:
          '`disabled` stops deliveries; `active` resumes them, also after the service disabled the webhook (its receiver answered 410 Gone, or ' +
          'deliveries failed for 5 days), but not after an administrator did (409 CONFLICT).',
      }),
  })
  .strict()
  .meta({ id: 'WebhookUpdate', description: 'Only the fields sent change.' });

export type UpdateWebhook = z.infer<typeof updateWebhookSchema> & { client_id: number };

const sameEvents = (left: readonly string[], right: readonly string[]) =>
  left.length === right.length && left.every((event, index) => event === right[index]);

/**
 * A client's partial update: the fields that differ in one WebhookRevised, a status change as
 * WebhookDisabled (reason `client`) or WebhookEnabled (by `client`). Sending what is already there emits
 * nothing, so a repeated request is safe.
 */
export function decide(command: UpdateWebhook, webhook: Webhook | null, meta: WebhookCommandMeta): WebhookEvent[] {
  const current = existingWebhook(command, webhook, meta.webhookId);
  const { client_id } = current;
  const changes: Partial<WebhookFields> = {};
  if (command.name !== undefined && command.name !== current.name) changes.name = command.name;
  if (command.url !== undefined && command.url !== current.url) changes.url = command.url;
  if (command.events !== undefined && !sameEvents(command.events, current.events)) changes.events = command.events;
  const events: WebhookEvent[] =
    Object.keys(changes).length > 0
      ? [{ type: 'WebhookRevised', data: { webhook_id: meta.webhookId, client_id, changes, at: meta.now } }]
      : [];
  if (command.status === 'disabled' && current.status === 'active') {
    events.push({ type: 'WebhookDisabled', data: { webhook_id: meta.webhookId, client_id, reason: 'client', at: meta.now } });
  }
  if (command.status === 'active' && current.status === 'disabled') {
    if (current.disabled_reason === 'admin') {
      throw new Conflict(`Webhook ${meta.webhookId} was disabled by an administrator; only an administrator can enable it again.`);
    }
    events.push({ type: 'WebhookEnabled', data: { webhook_id: meta.webhookId, client_id, by: 'client', at: meta.now } });
  }
  return events;
}
