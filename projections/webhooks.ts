import { assertNever } from '../src/domain/decider.js';
import {
  alreadyApplied,
  everyEventType,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type Recorded,
} from '../src/projectionEngine/projection.js';
import {
  rotatedSecrets,
  type SealedWebhookSecret,
  type WebhookDisabledReason,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookStatus,
} from '../src/webhooks/webhook.js';

export const WEBHOOKS = 'webhooks';

/**
 * One webhook, deleted ones included (`deleted: true`, kept for the deliveries that name them). `secrets`
 * are sealed and never served: the current one first, then the one it replaced until its `retire_at`.
 */
export interface WebhookDoc extends PositionedDoc {
  _id: string;
  id: string;
  client_id: number;
  name: string;
  url: string;
  events: WebhookEventType[];
  status: WebhookStatus;
  disabled_reason: WebhookDisabledReason | null;
  secrets: SealedWebhookSecret[];
  created_at: string;
  updated_at: string;
  deleted: boolean;
  /** Revision of the webhook's stream. */
  revision: number;
}

function nextWebhook(current: WebhookDoc | null, event: Recorded<WebhookEvent>): WebhookDoc | null {
  const stamp = { revision: event.revision, _position: positionNumber(event) };
  switch (event.type) {
    case 'WebhookCreated': {
      const { webhook_id, client_id, name, url, events, sealed_secret, at } = event.data;
      return {
        _id: webhook_id,
        id: webhook_id,
        client_id,
        name,
        url,
        events,
        status: 'active',
        disabled_reason: null,
        secrets: [{ sealed: sealed_secret, retire_at: null }],
        created_at: at,
        updated_at: at,
        deleted: false,
        ...stamp,
      };
    }
    case 'WebhookRevised':
      return current && { ...current, ...event.data.changes, updated_at: event.data.at, ...stamp };
    case 'WebhookDisabled':
      return current && { ...current, status: 'disabled', disabled_reason: event.data.reason, updated_at: event.data.at, ...stamp };
    case 'WebhookEnabled':
      return current && { ...current, status: 'active', disabled_reason: null, updated_at: event.data.at, ...stamp };
    case 'WebhookSecretRotated': {
      const { sealed_secret, previous_retire_at, at } = event.data;
      return (
        current && { ...current, secrets: rotatedSecrets(current.secrets, sealed_secret, previous_retire_at), updated_at: at, ...stamp }
      );
    }
    case 'WebhookDeleted':
      return current && { ...current, deleted: true, updated_at: event.data.at, ...stamp };
    default:
      return assertNever(event);
  }
}

/** GET /v1/webhooks, the admin webhook list, the per-client cap, and the webhooks a delivery is addressed to. */
export const webhooksProjection: Projection<WebhookEvent> = {
  name: 'webhooks',
  version: 1,
  collections: [WEBHOOKS],
  indexes: {
    [WEBHOOKS]: [
      {
        keys: [
          ['client_id', 1],
          ['created_at', 1],
        ],
      },
      { keys: [['status', 1]] },
    ],
  },
  handles: everyEventType<WebhookEvent>({
    WebhookCreated: true,
    WebhookRevised: true,
    WebhookDisabled: true,
    WebhookEnabled: true,
    WebhookSecretRotated: true,
    WebhookDeleted: true,
  }),
  async apply(event, ctx) {
    const current = await ctx.get<WebhookDoc>(WEBHOOKS, event.data.webhook_id);
    if (alreadyApplied(current, event)) return;
    const next = nextWebhook(current, event);
    if (next) ctx.put(WEBHOOKS, next);
  },
};
