import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { errorResponse, meta, requestIdHeader, requestIdParameter } from '../src/http/openApiCommon.js';
import { WEBHOOK_ENTITLEMENTS, WEBHOOK_SCOPES } from '../src/http/webhookApi.js';
import {
  deliveriesDescription,
  deliveriesQuery,
  deliveryAttemptSchema,
  noQuery,
  testDescription,
  testEventSchema,
  webhookParams,
} from '../src/http/webhookDeliveryApi.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../src/webhooks/webhook.js';
import { WEBHOOK_TEST_EVENT_TYPE } from '../src/webhooks/webhookDeliveries.js';
import { communitySchema, developerSchema, projectSummarySchema } from './representations.js';

/*
 * The OpenAPI side of webhook deliveries: the two /v1 operations of src/http/webhookDeliveryApi.ts, and the
 * document's `webhooks` section (OpenAPI 3.1), which describes what the service sends to a receiver: each
 * event type's body and `data`, the headers, the signature, and what the answer means.
 */

const grants = `\n\nScope: ${WEBHOOK_SCOPES.join(', ')}.\n\nEntitlement: ${WEBHOOK_ENTITLEMENTS.join(', ')}.`;

const notFound = errorResponse('WebhookDeliveriesNotFound', 'Not one of your webhooks.', ['NOT_FOUND'], 'NOT_FOUND.');
const unprocessable = errorResponse(
  'WebhookDeliveriesValidationFailed',
  'A parameter or the body is not valid.',
  ['VALIDATION_FAILED'],
  'VALIDATION_FAILED: details.fields names each offending input (`params.id`, `query.page`, `query.per_page`, `body`).',
);
const conflict = errorResponse('WebhookTestConflict', 'The webhook is disabled.', ['CONFLICT'], 'CONFLICT.');
const pagination = z.object({
  pagination: z.object({
    page: z.number().int(),
    per_page: z.number().int(),
    total: z.number().int(),
    total_pages: z.number().int(),
  }),
});

const listDeliveries: ZodOpenApiOperationObject = {
  operationId: 'listWebhookDeliveries',
  summary: "A webhook's recent delivery attempts",
  description: deliveriesDescription + grants,
  tags: ['Webhooks'],
  requestParams: { path: webhookParams, query: deliveriesQuery, header: z.object({ 'X-Request-Id': requestIdParameter }) },
  responses: {
    '200': {
      description: 'OK.',
      headers: z.object({ 'X-Request-Id': requestIdHeader }),
      content: { 'application/json': { schema: z.object({ data: z.array(deliveryAttemptSchema), meta: meta.extend(pagination.shape) }) } },
    },
    '304': { description: 'Not modified: If-None-Match matched the current ETag. Costs no quota.' },
    '404': notFound,
    '422': unprocessable,
  },
};

const sendTestEvent: ZodOpenApiOperationObject = {
  operationId: 'sendWebhookTestEvent',
  summary: 'Send a signed test event to a webhook',
  description: testDescription + grants,
  tags: ['Webhooks'],
  requestParams: { path: webhookParams, query: noQuery, header: z.object({ 'X-Request-Id': requestIdParameter }) },
  responses: {
    '202': {
      description: 'Queued.',
      headers: z.object({ 'X-Request-Id': requestIdHeader }),
      content: { 'application/json': { schema: z.object({ data: testEventSchema, meta }) } },
    },
    '404': notFound,
    '409': conflict,
    '422': unprocessable,
  },
};

export const webhookDeliveryPaths: ZodOpenApiPathsObject = {
  '/webhooks/{id}/deliveries': { get: listDeliveries },
  '/webhooks/{id}/test': { post: sendTestEvent },
};

// The `webhooks` section: what a receiver gets.

const sequence = z
  .number()
  .int()
  .min(0)
  .meta({
    description:
      "The record's stream revision at this change: increases with every change of that project (or developer, or community). Deliveries may " +
      'arrive out of order (retries, concurrent deliveries); order them by it and ignore one older than what you hold.',
  });

const projectData = projectSummarySchema.extend({ sequence }).meta({
  id: 'WebhookProjectData',
  description:
    'The project as GET /v1/projects lists it to your client (the summary representation), as it stands when the event is dispatched, plus sequence.',
});
const removedProjectData = z
  .object({ id: z.number().int(), slug: z.string(), sequence })
  .meta({ id: 'WebhookRemovedProjectData', description: 'A project you can no longer see: its id and slug only.' });

const body = (type: string, data: z.ZodType, id: string) =>
  z
    .object({
      id: z.string().meta({
        description: 'The event id, `evt_` and 32 hex digits: the same on every retry of this delivery. Store it and ignore repeats.',
      }),
      type: z.literal(type),
      created_at: z.iso.datetime({ offset: true }).meta({ description: 'When the change was made.' }),
      data,
    })
    .meta({ id });

const EVENT_DOCS: Record<WebhookEventType, { summary: string; data: z.ZodType }> = {
  'project.created': {
    summary:
      'A project became visible to your client: first published, published again, or moved into a community your client sees. Never sent for an unpublished project.',
    data: projectData,
  },
  'project.updated': {
    summary:
      "A visible project changed: its own fields, or the related edits the change feed reports (payment plans, gallery, floor plans, amenities, FAQs). Image-only changes and other collections' edits are not sent.",
    data: projectData,
  },
  'project.status_changed': { summary: "A visible project's construction or sales status changed.", data: projectData },
  'project.deleted': {
    summary:
      'A project your client saw is gone from its view: unpublished, deleted, or moved to a community outside your restriction. data is its id and slug.',
    data: removedProjectData,
  },
  'developer.updated': {
    summary: 'A published developer your client sees was revised or published.',
    data: developerSchema.extend({ sequence }).meta({ id: 'WebhookDeveloperData' }),
  },
  'community.updated': {
    summary: 'A published community your client sees was revised or published.',
    data: communitySchema.extend({ sequence }).meta({ id: 'WebhookCommunityData' }),
  },
};

const headerParameter = (description: string, example?: string) =>
  z.string().meta({ description, ...(example === undefined ? {} : { example }) });

const deliveryHeaders = z.object({
  'X-Service-Event': headerParameter('The event type, as the body `type`.'),
  'X-Service-Event-Id': headerParameter('The event id, as the body `id`; the same on every retry.'),
  'X-Service-Timestamp': headerParameter(
    'Unix seconds when this attempt was sent. Reject one more than 5 minutes from your clock.',
    '1767225600',
  ),
  'X-Service-Signature': headerParameter(
    '`v1=<hex>`: HMAC-SHA256, keyed with the webhook secret, over `timestamp + "." + event_id + "." + raw_body` (the header values and the exact bytes ' +
      'received), hex-encoded; compare in constant time. During a secret rotation overlap the header carries two, space-separated: ' +
      '`v1=<new> v1=<old>`; accept the request when any of them matches a secret you hold.',
    'v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  ),
  'User-Agent': headerParameter('Names the service: `PropertyCatalogueAPI-Webhooks/1.0`.'),
  'Content-Type': headerParameter('`application/json`.'),
});

const DELIVERY_RULES =
  'Delivered by POST to the webhook url, at least once. Answer any 2xx within 15 s to acknowledge; anything else (3xx included: redirects are not followed), ' +
  'a timeout or a refused connection is retried immediately, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (each wait ±20 %), nine attempts in all, ' +
  'with the same id and body; then the delivery is failed (an administrator can retry it). 410 Gone disables the webhook at once; an endpoint failing ' +
  'continuously for 5 days is disabled too. Only events recorded after the webhook was created, of the types it subscribes to, while it is active, are sent.';

function eventOperation(type: string, summary: string, data: z.ZodType, id: string): ZodOpenApiOperationObject {
  return {
    operationId: `receive${id}`,
    summary,
    description: DELIVERY_RULES,
    tags: ['Webhooks'],
    security: [],
    requestParams: { header: deliveryHeaders },
    requestBody: { required: true, content: { 'application/json': { schema: body(type, data, id) } } },
    responses: {
      '2XX': { description: 'Acknowledged: the delivery succeeded.' },
      '410': { description: 'Gone: the webhook is disabled at once, nothing more is sent to it.' },
      default: { description: 'Not acknowledged: retried on the schedule.' },
    },
  };
}

const eventIdOf = (type: string) =>
  `${type
    .split(/[._]/)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')}Event`;

/** The OpenAPI 3.1 `webhooks` map: one entry per event type a receiver may get. */
export const webhookEvents: ZodOpenApiPathsObject = {
  ...Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      { post: eventOperation(type, EVENT_DOCS[type].summary, EVENT_DOCS[type].data, eventIdOf(type)) },
    ]),
  ),
  [WEBHOOK_TEST_EVENT_TYPE]: {
    post: eventOperation(
      WEBHOOK_TEST_EVENT_TYPE,
      'Sent by POST /webhooks/{id}/test, whatever the webhook subscribes to.',
      z.object({ webhook_id: z.string(), message: z.string() }).meta({ id: 'WebhookTestData' }),
      eventIdOf(WEBHOOK_TEST_EVENT_TYPE),
    ),
  },
};
