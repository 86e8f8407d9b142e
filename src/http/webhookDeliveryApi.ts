import { hash, randomUUID } from 'node:crypto';
import { Router, type Response } from 'express';
import { z } from 'zod';
import { WEBHOOKS, type WebhookDoc } from '../../projections/webhooks.js';
import type { AccessContext } from '../access/accessContext.js';
import { ApiError, NotFound, ValidationFailed } from '../domain/errors.js';
import type { JobQueue } from '../jobQueue/jobQueue.js';
import type { Limits } from '../limits/limits.js';
import type { ReadStore } from '../readStore/readStore.js';
import {
  deliveryIdOf,
  DELIVERY_LOG_RETENTION_DAYS,
  DELIVERY_OUTCOMES,
  WEBHOOK_DELIVERIES,
  WEBHOOK_TEST_EVENT_TYPE,
  type WebhookDeliveryAttemptDoc,
  type WebhookDeliveryJob,
} from '../webhooks/webhookDeliveries.js';
import { accessOf, requireGrants } from './apiAuth.js';
import { consumeRequestLimits } from './limitResponses.js';
import { rejectOtherMethods } from './methodNotAllowed.js';
import { jsonBodyOf } from './rawBody.js';
import { ifNoneMatchMatches, sendData } from './responses.js';
import { issuesToFields } from './validation.js';
import { WEBHOOK_ENTITLEMENTS, WEBHOOK_SCOPES, webhookIdSchema } from './webhookApi.js';
import { DEFAULT_PER_PAGE, pageParameter, perPageParameter, pagination } from './pagination.js';

/*
 * `/v1/webhooks/{id}/deliveries` and `/v1/webhooks/{id}/test`, beside the management routes of
 * src/http/webhookApi.ts and behind the same authentication, grants and limits: the delivery log the worker
 * writes (src/webhooks/webhookDeliveries.ts), and a signed test event queued for the caller's webhook.
 */

export interface WebhookDeliveryApiDeps {
  readStore: ReadStore;
  /** The webhook deliveries queue, where a test event goes. */
  queue: JobQueue;
  clock: () => Date;
  limits: Limits | null;
}

const timestamp = z.iso.datetime({ offset: true });

export const deliveryAttemptSchema = z
  .object({
    delivery_id: z
      .string()
      .meta({ description: 'The delivery: one event to one webhook, `{event_id}.{webhook_id}`; the same on every attempt.' }),
    event_id: z.string().meta({ description: 'The event id the receiver saw (`X-Service-Event-Id`, body `id`).' }),
    event_type: z.string().meta({ description: 'One of the six event types, or `webhook.test`.' }),
    attempt: z.number().int().min(1),
    attempted_at: timestamp,
    status_code: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null when it did not answer." }),
    error: z
      .enum(['timeout', 'connection', 'tls', 'aborted', 'target_refused'])
      .nullable()
      .meta({
        description:
          'Why there was no answer: no response head within 15 s, the connection failed or was reset, TLS failed, the worker was stopping, ' +
          'or the URL now resolves to an address webhooks may not reach (nothing was sent). Null when answered.',
      }),
    latency_ms: z.number().int().min(0),
    next_attempt_at: timestamp.nullable().meta({ description: 'When the delivery is tried again; null when this attempt was its last.' }),
    outcome: z.enum(DELIVERY_OUTCOMES).meta({
      description:
        '`succeeded` (2xx), `retrying` (failed; see next_attempt_at), `failed` (failed and final: the last attempt, a 410, or the webhook disabled ' +
        'for failing; an administrator can retry it), `skipped` (the webhook was disabled or deleted by then; nothing was sent).',
    }),
  })
  .meta({ id: 'WebhookDeliveryAttempt', description: 'One attempt to deliver one event to one webhook.' });

export const testEventSchema = z
  .object({
    delivery_id: z.string(),
    event_id: z.string(),
    type: z.literal(WEBHOOK_TEST_EVENT_TYPE),
  })
  .meta({ id: 'WebhookTestQueued', description: 'The test event queued; its attempts appear under /deliveries.' });

export const deliveriesQuery = z
  .object({
    page: pageParameter,
    per_page: perPageParameter,
  })
  .strict();
export const noQuery = z.object({}).strict();
export const webhookParams = z.object({ id: webhookIdSchema }).strict();
const NO_BODY = z.object({}).strict().optional();

export const deliveriesDescription =
  `The webhook's delivery attempts, newest first, kept ${DELIVERY_LOG_RETENTION_DAYS} days. Each attempt is written by the worker once it has its ` +
  "outcome, so an attempt in progress is not listed yet. Another client's webhook, a deleted one and an unknown id are 404 NOT_FOUND.";
export const testDescription =
  'Queues a `webhook.test` event for this webhook, signed and delivered like every other event (same headers, retries and log); ' +
  '`data` holds `webhook_id` and a `message`. A disabled webhook is 409 CONFLICT.';

function responseAttempt(doc: WebhookDeliveryAttemptDoc): z.input<typeof deliveryAttemptSchema> {
  const { delivery_id, event_id, event_type, attempt, attempted_at, status_code, error, latency_ms, next_attempt_at, outcome } = doc;
  return {
    delivery_id,
    event_id,
    event_type,
    attempt,
    attempted_at,
    status_code,
    error: error as z.infer<typeof deliveryAttemptSchema>['error'],
    latency_ms,
    next_attempt_at,
    outcome,
  };
}

/** The caller's webhook from the read model, or the one 404 (another client's, deleted, unknown). */
async function callersWebhook(readStore: ReadStore, access: AccessContext, webhookId: string): Promise<WebhookDoc> {
  const webhook = await readStore.get<WebhookDoc>(WEBHOOKS, webhookId);
  if (!webhook || webhook.deleted || webhook.client_id !== access.clientId) throw new NotFound();
  return webhook;
}

function parse<T extends z.ZodType>(part: 'params' | 'query' | 'body', schema: T, value: unknown, fields: Record<string, string>) {
  const parsed = schema.safeParse(value);
  if (!parsed.success) issuesToFields(part, parsed.error.issues, fields);
  return parsed.data as z.infer<T>;
}

/** The test event's job: a body like every event's, frozen, under a fresh event id. */
export function testDeliveryJob(webhookId: string, now: Date): { id: string; data: WebhookDeliveryJob } {
  const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
  const body = JSON.stringify({
    id: eventId,
    type: WEBHOOK_TEST_EVENT_TYPE,
    created_at: now.toISOString(),
    data: { webhook_id: webhookId, message: 'A test event: your endpoint is reachable and verifies our signature.' },
  });
  return {
    id: deliveryIdOf(eventId, webhookId),
    data: { webhook_id: webhookId, event_id: eventId, event_type: WEBHOOK_TEST_EVENT_TYPE, body },
  };
}

export function createWebhookDeliveryApiRouter(deps: WebhookDeliveryApiDeps): Router {
  const router = Router();

  router.get('/webhooks/:id/deliveries', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const access = accessOf(res);
    requireGrants(access, WEBHOOK_SCOPES, WEBHOOK_ENTITLEMENTS);
    const fields: Record<string, string> = {};
    const params = parse('params', webhookParams, { ...req.params }, fields);
    const query = parse('query', deliveriesQuery, { ...req.query }, fields);
    if (Object.keys(fields).length > 0) throw new ValidationFailed(fields);
    await callersWebhook(deps.readStore, access, params.id);
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const { items, total } = await deps.readStore.find<WebhookDeliveryAttemptDoc>(WEBHOOK_DELIVERIES, {
      filter: { webhook_id: params.id },
      sort: [['attempted_at', -1]],
      skip: (page - 1) * perPage,
      limit: perPage,
    });
    const data = items.map(responseAttempt);
    const meta = { pagination: pagination(page, perPage, total) };
    const etag = `"${hash('sha1', JSON.stringify([data, meta]), 'base64url')}"`;
    const notModified = ifNoneMatchMatches(req.get('if-none-match'), etag);
    await consumeRequestLimits(res, access, deps.limits, { units: 1, chargesQuota: !notModified });
    res.setHeader('ETag', etag);
    if (notModified) {
      res.status(304).end();
      return;
    }
    sendData(res, data, { meta });
  });

  router.post('/webhooks/:id/test', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const access = accessOf(res);
    requireGrants(access, WEBHOOK_SCOPES, WEBHOOK_ENTITLEMENTS);
    const received = await jsonBodyOf(req);
    const fields: Record<string, string> = {};
    const params = parse('params', webhookParams, { ...req.params }, fields);
    parse('query', noQuery, { ...req.query }, fields);
    parse('body', NO_BODY, received, fields);
    if (Object.keys(fields).length > 0) throw new ValidationFailed(fields);
    const webhook = await callersWebhook(deps.readStore, access, params.id);
    if (webhook.status !== 'active') throw new ApiError(409, 'CONFLICT', 'The webhook is disabled: enable it to send a test event.');
    await consumeRequestLimits(res, access, deps.limits, { units: 1, chargesQuota: true });
    const job = testDeliveryJob(webhook.id, deps.clock());
    await deps.queue.add([job]);
    sendData(res, { delivery_id: job.id, event_id: job.data.event_id, type: WEBHOOK_TEST_EVENT_TYPE }, { status: 202 });
  });

  rejectOtherMethods(router, [
    { method: 'get', path: '/webhooks/:id/deliveries' },
    { method: 'post', path: '/webhooks/:id/test' },
  ]);
  return router;
}
