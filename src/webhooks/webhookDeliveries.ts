import { z } from 'zod';
import type { IndexSpec } from '../readStore/readStore.js';

/**
 * What the dispatcher (workers/webhooks/webhookDispatcher.ts), the delivery worker
 * (workers/webhooks/webhookDelivery.ts) and the routes that read the delivery log or enqueue a test event
 * share: the queued job, its id, and the delivery log in the read store.
 */

/** The test event `POST /v1/webhooks/{id}/test` sends; never a subscription type. */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';

/**
 * One (event, webhook) delivery as it waits in the queue. The body is built once, when the event is
 * dispatched, and frozen here: every attempt sends the same bytes with the same event id.
 */
export const webhookDeliveryJobSchema = z
  .object({
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    /** The raw JSON body `{ id, type, created_at, data }`, exactly as it is sent and signed. */
    body: z.string(),
  })
  .strict();
export type WebhookDeliveryJob = z.infer<typeof webhookDeliveryJobSchema>;

/**
 * The delivery's id, also its job id: deterministic, so a dispatcher that enqueues an event again (a crash
 * between enqueue and checkpoint) re-adds an id the queue already holds. No `:` (BullMQ refuses a custom id
 * with one), so the two public ids are joined by `.`, which neither contains.
 */
export const deliveryIdOf = (eventId: string, webhookId: string): string => `${eventId}.${webhookId}`;

export const DELIVERY_ID_PATTERN = /^evt_[0-9a-f]{32}\.wh_[0-9a-f]{24}$/;

/** The public event id of a catalogue event: `evt_` and the stored event's uuid without dashes. */
export const publicEventIdOf = (storedEventId: string): string => `evt_${storedEventId.replaceAll('-', '').toLowerCase()}`;

/** Every attempt of every delivery, written by the delivery worker, read by `GET /v1/webhooks/{id}/deliveries`. */
export const WEBHOOK_DELIVERIES = 'webhook_deliveries';

/** How long attempts are kept in the log; older ones are pruned by the delivery worker. */
export const DELIVERY_LOG_RETENTION_DAYS = 30;

/**
 * What became of an attempt: `succeeded` (2xx), `retrying` (failed, `next_attempt_at` says when again),
 * `failed` (failed and final: the last attempt, a 410, or the webhook disabled for failing),
 * `skipped` (the webhook was disabled or deleted by then: nothing was sent).
 */
export const DELIVERY_OUTCOMES = ['succeeded', 'retrying', 'failed', 'skipped'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

export type WebhookDeliveryAttemptDoc = {
  /** `{delivery_id}#{attempt}`: an attempt run again after a crash rewrites its own entry. */
  _id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  webhook_id: string;
  attempt: number;
  attempted_at: string;
  /** The receiver's status; null when it did not answer. */
  status_code: number | null;
  /** Why there was no answer (`timeout`, `connection`, `tls`, `aborted`, `target_refused`), or null. */
  error: string | null;
  /** Human detail of the error (the refused target's reason, the connection error); null otherwise. */
  error_message: string | null;
  latency_ms: number;
  next_attempt_at: string | null;
  outcome: DeliveryOutcome;
};

export const deliveryAttemptIdOf = (deliveryId: string, attempt: number): string => `${deliveryId}#${attempt}`;

export const webhookDeliveriesIndexes: IndexSpec[] = [
  {
    keys: [
      ['webhook_id', 1],
      ['attempted_at', -1],
    ],
  },
  { keys: [['delivery_id', 1]] },
  { keys: [['attempted_at', 1]] },
];
