import { z } from 'zod';
import { singleLineText } from '../../src/catalogue/text.js';
import { NotFound } from '../../src/domain/errors.js';
import { WEBHOOK_EVENT_TYPES, type Webhook } from '../../src/webhooks/webhook.js';

/** The fields of a webhook a client writes, checked alike by create and update. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export const webhookNameSchema = singleLineText(100, { min: 1 }).meta({
  description: 'A label for the webhook: 1 to 100 characters on one line.',
  example: 'CRM sync',
});

export const webhookUrlSchema = z
  .string()
  .max(MAX_WEBHOOK_URL_LENGTH)
  .meta({
    description:
      'Where deliveries are POSTed: an absolute `https://` URL of at most 2048 characters, without credentials or fragment, whose host resolves to ' +
      'public addresses only (no loopback, private, link-local, multicast or metadata addresses, IPv4 or IPv6). Targets inside the operator-allowed ' +
      'blocks (WEBHOOK_ALLOWED_PRIVATE_CIDRS) may be private and use `http://`. Checked at create and update, and again at every delivery.',
    example: 'https://hooks.example.com/catalogue',
  });

export const webhookEventsSchema = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1, 'must name at least one event type')
  // Checked even when an element is not a known type, so that one answer names both problems.
  .refine((events) => new Set(events).size === events.length, {
    message: 'must not name an event type twice',
    when: (payload) => Array.isArray(payload.value),
  })
  .meta({ description: 'The event types delivered: a non-empty list without repeats.', uniqueItems: true });

/** The client a command is sent for; absent for an administrator's or the delivery worker's command. */
export interface OfClient {
  client_id?: number;
}

/**
 * The webhook a command names, when it exists, is not deleted and (for a client's command) belongs to the
 * client: otherwise the one 404, so a client cannot learn that another client's webhook id exists.
 */
export function existingWebhook(command: OfClient, webhook: Webhook | null, webhookId: string): Webhook {
  if (!webhook || webhook.deleted || (command.client_id !== undefined && webhook.client_id !== command.client_id)) {
    throw new NotFound(`Webhook ${webhookId} does not exist.`);
  }
  return webhook;
}
