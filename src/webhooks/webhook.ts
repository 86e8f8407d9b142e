import { randomBytes } from 'node:crypto';
import { assertNever } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';

/** The spec's event types (Events): what a webhook may subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'project.created',
  'project.updated',
  'project.status_changed',
  'project.deleted',
  'developer.updated',
  'community.updated',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** DESIGN.md: a webhook is `active` (delivered to) or `disabled` (not delivered to). */
export const WEBHOOK_STATUSES = ['active', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/**
 * Why a webhook is disabled: its client (PUT status), an administrator, its receiver answering 410 Gone, or
 * five days of failed deliveries. A client may re-enable its webhook unless an administrator disabled it.
 */
export const WEBHOOK_DISABLED_REASONS = ['client', 'admin', 'gone', 'failing'] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

/** Who re-enabled a webhook. */
export const WEBHOOK_ENABLERS = ['client', 'admin'] as const;
export type WebhookEnabler = (typeof WEBHOOK_ENABLERS)[number];

/** At most this many webhooks per client, deleted ones not counted (README, Webhooks). */
export const MAX_WEBHOOKS_PER_CLIENT = 20;

/** `wh_` and 24 lowercase hex digits (96 random bits): the public id, which is all a client ever sees. */
export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{24}$/;

export function generateWebhookId(): string {
  return `wh_${randomBytes(12).toString('hex')}`;
}

/**
 * A signing secret as events and state keep it: sealed (src/webhooks/webhookSecrets.ts), never in clear.
 * `retire_at` is null for the current secret; a replaced one still signs deliveries until then.
 */
export interface SealedWebhookSecret {
  sealed: string;
  retire_at: string | null;
}

export interface WebhookFields {
  name: string;
  url: string;
  events: WebhookEventType[];
}

export type WebhookEvent =
  | DomainEvent<'WebhookCreated', WebhookFields & { webhook_id: string; client_id: number; sealed_secret: string; at: string }>
  | DomainEvent<'WebhookRevised', { webhook_id: string; client_id: number; changes: Partial<WebhookFields>; at: string }>
  | DomainEvent<'WebhookDisabled', { webhook_id: string; client_id: number; reason: WebhookDisabledReason; at: string }>
  | DomainEvent<'WebhookEnabled', { webhook_id: string; client_id: number; by: WebhookEnabler; at: string }>
  | DomainEvent<
      'WebhookSecretRotated',
      { webhook_id: string; client_id: number; sealed_secret: string; previous_retire_at: string; at: string }
    >
  | DomainEvent<'WebhookDeleted', { webhook_id: string; client_id: number; at: string }>;

/** The folded webhook; null before WebhookCreated. */
export interface Webhook extends WebhookFields {
  id: string;
  client_id: number;
  status: WebhookStatus;
  disabled_reason: WebhookDisabledReason | null;
  /** The current secret first, then the one it replaced while that is still within its overlap. */
  secrets: SealedWebhookSecret[];
  deleted: boolean;
  created_at: string;
  updated_at: string;
}

/** `webhook-wh_...`: the category `webhook` has no dash, the public id none either. */
export const webhookStream = (webhookId: string): string => `webhook-${webhookId}`;

/**
 * The secrets after a rotation: the new one, and the one it replaces until `previousRetireAt`. A secret
 * replaced earlier and still within its own overlap ends now, so a delivery never carries more than two
 * signatures.
 */
export function rotatedSecrets(secrets: readonly SealedWebhookSecret[], sealed: string, previousRetireAt: string): SealedWebhookSecret[] {
  const current = secrets[0];
  return current
    ? [
        { sealed, retire_at: null },
        { sealed: current.sealed, retire_at: previousRetireAt },
      ]
    : [{ sealed, retire_at: null }];
}

export function evolveWebhook(webhook: Webhook | null, event: WebhookEvent): Webhook | null {
  switch (event.type) {
    case 'WebhookCreated': {
      const { webhook_id, client_id, name, url, events, sealed_secret, at } = event.data;
      return {
        id: webhook_id,
        client_id,
        name,
        url,
        events,
        status: 'active',
        disabled_reason: null,
        secrets: [{ sealed: sealed_secret, retire_at: null }],
        deleted: false,
        created_at: at,
        updated_at: at,
      };
    }
    case 'WebhookRevised':
      return webhook && { ...webhook, ...event.data.changes, updated_at: event.data.at };
    case 'WebhookDisabled':
      return webhook && { ...webhook, status: 'disabled', disabled_reason: event.data.reason, updated_at: event.data.at };
    case 'WebhookEnabled':
      return webhook && { ...webhook, status: 'active', disabled_reason: null, updated_at: event.data.at };
    case 'WebhookSecretRotated':
      return (
        webhook && {
          ...webhook,
          secrets: rotatedSecrets(webhook.secrets, event.data.sealed_secret, event.data.previous_retire_at),
          updated_at: event.data.at,
        }
      );
    case 'WebhookDeleted':
      return webhook && { ...webhook, deleted: true, updated_at: event.data.at };
    default:
      return assertNever(event);
  }
}

/**
 * The webhook aggregate. Its streams are named by the public id (webhookStream), not by an allocated number,
 * so it is not an `Aggregate` of src/domain/decider.ts; commands/webhooks/webhookHandlers.ts runs its commands.
 */
export const webhookAggregate = {
  category: 'webhook',
  initialState: (): Webhook | null => null,
  evolve: evolveWebhook,
} as const;
