import { hash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import * as deleteWebhook from '../../commands/webhooks/deleteWebhook.js';
import { createWebhookSchema } from '../../commands/webhooks/createWebhook.js';
import * as updateWebhook from '../../commands/webhooks/updateWebhook.js';
import {
  createWebhookFor,
  loadWebhook,
  rotateWebhookSecretOf,
  runWebhookCommand,
  type WebhookFactsReader,
} from '../../commands/webhooks/webhookHandlers.js';
import { WEBHOOKS, type WebhookDoc } from '../../projections/webhooks.js';
import type { AccessContext, Entitlement, Scope } from '../access/accessContext.js';
import { NotFound, ValidationFailed } from '../domain/errors.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Limits } from '../limits/limits.js';
import type { ReadStore } from '../readStore/readStore.js';
import { checkWebhookTarget, type Resolve, type WebhookTargetPolicy } from '../webhooks/targetPolicy.js';
import {
  MAX_WEBHOOKS_PER_CLIENT,
  WEBHOOK_DISABLED_REASONS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_ID_PATTERN,
  WEBHOOK_STATUSES,
  type Webhook,
} from '../webhooks/webhook.js';
import { noWebhookFacts, readWebhookFacts, type WebhookReferences } from '../webhooks/webhookReferences.js';
import type { WebhookSecretBox } from '../webhooks/webhookSecrets.js';
import { accessOf, requireGrants } from './apiAuth.js';
import { consumeRequestLimits } from './limitResponses.js';
import { rejectOtherMethods } from './methodNotAllowed.js';
import { jsonBodyOf } from './rawBody.js';
import { ifNoneMatchMatches, sendData } from './responses.js';
import { issuesToFields } from './validation.js';
import { DEFAULT_PER_PAGE, pageParameter, perPageParameter, pagination, paginationSchema } from './pagination.js';

/*
 * `/v1/webhooks`: the spec's webhook management, the one part of /v1 that writes. It lives here, not in
 * queries/ (which never imports a command), and is mounted behind the same authentication, network
 * controls, request signing (of the body as received, src/http/rawBody.ts) and limits as every /v1 call.
 */

export const WEBHOOK_SCOPES: readonly Scope[] = ['webhooks:manage'];
export const WEBHOOK_ENTITLEMENTS: readonly Entitlement[] = ['webhooks'];

/** What the webhook routes run on. */
export interface WebhookApiDeps {
  eventStore: EventStore;
  readStore: ReadStore;
  clock: () => Date;
  /** null with RATE_LIMITS=off. */
  limits: Limits | null;
  secrets: WebhookSecretBox;
  /** WEBHOOK_ALLOWED_PRIVATE_CIDRS. */
  targetPolicy: WebhookTargetPolicy;
  /** WEBHOOK_SECRET_OVERLAP_SECONDS. */
  secretOverlapSeconds: number;
  /** How a target's host is resolved (tests answer without DNS); the system resolver by default. */
  resolve?: Resolve;
}

/** The count behind the per-client cap, from the webhooks read model. */
export function webhookReferences(readStore: ReadStore): WebhookReferences {
  return {
    async webhookCountOf(clientId) {
      return (await readStore.find(WEBHOOKS, { filter: { client_id: clientId, deleted: false }, limit: 0 })).total;
    },
  };
}

export function webhookFactsReader(readStore: ReadStore): WebhookFactsReader {
  const port = webhookReferences(readStore);
  return { read: (lookup) => readWebhookFacts(port, lookup), none: noWebhookFacts };
}

// Representations.

const timestamp = z.iso.datetime({ offset: true });

export const webhookIdSchema = z
  .string()
  .regex(WEBHOOK_ID_PATTERN, 'must be a webhook id: wh_ and 24 lowercase hexadecimal digits')
  .meta({ description: "The webhook's public id.", example: 'wh_5f0c3e9a1b2d4c6e8f0a1b2c' });

export const webhookSchema = z
  .object({
    id: webhookIdSchema,
    name: z.string(),
    url: z.string().meta({ description: 'As checked and normalised (lower-case host, default port dropped).' }),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    status: z.enum(WEBHOOK_STATUSES),
    disabled_reason: z
      .enum(WEBHOOK_DISABLED_REASONS)
      .optional()
      .meta({
        description:
          'Only while disabled: `client` (you did), `admin` (an administrator did; only one can enable it again), `gone` (the receiver answered 410 Gone), ' +
          '`failing` (deliveries failed continuously for 5 days).',
      }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Webhook', description: 'A webhook. Its signing secret is shown only when it is created or rotated.' });

const SECRET_DESCRIPTION =
  'The signing secret (`whsec_` and 43 characters). Shown only in this response: the service keeps it sealed and never shows it again. ' +
  'Verify each delivery with it (see Events and README, Webhooks).';

export const webhookWithSecretSchema = webhookSchema
  .extend({ secret: z.string().meta({ description: SECRET_DESCRIPTION, example: 'whsec_3q2-7wEXAMPLEsecretEXAMPLEsecretEXAMPLEsecr' }) })
  .meta({ id: 'WebhookWithSecret' });

const deletedWebhookSchema = z.object({ id: webhookIdSchema, deleted: z.literal(true) }).meta({ id: 'DeletedWebhook' });

type WebhookView = Pick<Webhook, 'id' | 'name' | 'url' | 'events' | 'status' | 'disabled_reason' | 'created_at' | 'updated_at'>;

export function webhookRepresentation(webhook: WebhookView): z.input<typeof webhookSchema> {
  const { id, name, url, events, status, disabled_reason, created_at, updated_at } = webhook;
  return {
    id,
    name,
    url,
    events,
    status,
    ...(status === 'disabled' && disabled_reason !== null ? { disabled_reason } : {}),
    created_at,
    updated_at,
  };
}

// Routes.

const listQuery = z
  .object({
    page: pageParameter,
    per_page: perPageParameter,
  })
  .strict();
const noQuery = z.object({}).strict();
const noParams = z.object({}).strict();
const webhookParams = z.object({ id: webhookIdSchema }).strict();
/** Routes without a body schema accept no body, or an empty JSON object. */
const NO_BODY = z.object({}).strict().optional();

export const webhookPaginationSchema = z.object({ pagination: paginationSchema });

interface WebhookRouteInput<Params, Query, Body> {
  params: Params;
  query: Query;
  body: Body;
  access: AccessContext;
}

interface WebhookRouteResult {
  data: unknown;
  meta?: Record<string, unknown>;
}

/**
 * One operation of /v1/webhooks. The router parses its input with these strict schemas, checks the
 * group's scope and entitlement, and applies the limits; /v1/openapi.yaml describes it from the same table.
 */
export interface WebhookRoute<
  Params extends z.ZodType = z.ZodType,
  Query extends z.ZodType = z.ZodType,
  Body extends z.ZodType = z.ZodType,
> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express-style path below /v1. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  params: Params;
  query: Query;
  body?: Body;
  /** The body's `url` is a webhook target (checked with checkWebhookTarget before the command runs). */
  checksTargetUrl?: boolean;
  successStatus: 200 | 201;
  response: z.ZodType;
  /** Extra `meta` fields (pagination). */
  meta?: z.ZodObject;
  /** The path names one webhook (404 documented). */
  namesWebhook: boolean;
  handle(input: WebhookRouteInput<z.infer<Params>, z.infer<Query>, z.infer<Body>>, deps: WebhookApiDeps): Promise<WebhookRouteResult>;
}

const actorOf = (access: AccessContext) => `client:${access.clientId}/key:${access.keyId}`;

const commandDeps = (deps: WebhookApiDeps) => ({ eventStore: deps.eventStore, clock: deps.clock });

/** The caller's webhook as its stream has it now (read-your-writes), or the one 404. */
async function callersWebhook(deps: WebhookApiDeps, access: AccessContext, webhookId: string): Promise<Webhook> {
  const { webhook } = await loadWebhook(deps, webhookId);
  if (!webhook || webhook.deleted || webhook.client_id !== access.clientId) throw new NotFound();
  return webhook;
}

const listWebhooksRoute: WebhookRoute<typeof noParams, typeof listQuery> = {
  method: 'get',
  path: '/webhooks',
  operationId: 'listWebhooks',
  summary: "The caller's webhooks",
  description: `Oldest first. Read from a read model, so a webhook created or deleted a moment ago may take a moment to show. A client has at most ${MAX_WEBHOOKS_PER_CLIENT} webhooks.`,
  params: noParams,
  query: listQuery,
  successStatus: 200,
  response: z.array(webhookSchema),
  meta: webhookPaginationSchema,
  namesWebhook: false,
  async handle({ query, access }, deps) {
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const { items, total } = await deps.readStore.find<WebhookDoc>(WEBHOOKS, {
      filter: { client_id: access.clientId, deleted: false },
      sort: [['created_at', 1]],
      skip: (page - 1) * perPage,
      limit: perPage,
    });
    return {
      data: items.map(webhookRepresentation),
      meta: { pagination: pagination(page, perPage, total) },
    };
  },
};

const createWebhookRoute: WebhookRoute<typeof noParams, typeof noQuery, typeof createWebhookSchema> = {
  method: 'post',
  path: '/webhooks',
  operationId: 'createWebhook',
  summary: 'Create a webhook (its secret is shown once)',
  description: `At most ${MAX_WEBHOOKS_PER_CLIENT} webhooks per client, deleted ones not counted (422 WEBHOOK_LIMIT_REACHED).`,
  params: noParams,
  query: noQuery,
  body: createWebhookSchema,
  checksTargetUrl: true,
  successStatus: 201,
  response: webhookWithSecretSchema,
  namesWebhook: false,
  async handle({ body, access }, deps) {
    const { result, secret } = await createWebhookFor(commandDeps(deps), webhookFactsReader(deps.readStore), deps.secrets, {
      ...body,
      client_id: access.clientId,
      actor: actorOf(access),
    });
    return { data: { ...webhookRepresentation(result.webhook), secret } };
  },
};

const getWebhookRoute: WebhookRoute<typeof webhookParams, typeof noQuery> = {
  method: 'get',
  path: '/webhooks/:id',
  operationId: 'getWebhook',
  summary: 'One of the caller’s webhooks',
  description: "Another client's webhook, a deleted one and an unknown id are all 404 NOT_FOUND.",
  params: webhookParams,
  query: noQuery,
  successStatus: 200,
  response: webhookSchema,
  namesWebhook: true,
  async handle({ params, access }, deps) {
    return { data: webhookRepresentation(await callersWebhook(deps, access, params.id)) };
  },
};

const updateWebhookRoute: WebhookRoute<typeof webhookParams, typeof noQuery, typeof updateWebhook.updateWebhookSchema> = {
  method: 'put',
  path: '/webhooks/:id',
  operationId: 'updateWebhook',
  summary: 'Change a webhook (only the fields sent)',
  description:
    'A partial update of `name`, `url`, `events` and `status`. Sending the values the webhook already has changes nothing. ' +
    'Enabling a webhook an administrator disabled is 409 CONFLICT.',
  params: webhookParams,
  query: noQuery,
  body: updateWebhook.updateWebhookSchema,
  checksTargetUrl: true,
  successStatus: 200,
  response: webhookSchema,
  namesWebhook: true,
  async handle({ params, body, access }, deps) {
    const result = await runWebhookCommand(commandDeps(deps), webhookFactsReader(deps.readStore), {
      webhookId: params.id,
      actor: actorOf(access),
      command: { ...body, client_id: access.clientId },
      slice: updateWebhook,
    });
    return { data: webhookRepresentation(result.webhook) };
  },
};

const deleteWebhookRoute: WebhookRoute<typeof webhookParams, typeof noQuery> = {
  method: 'delete',
  path: '/webhooks/:id',
  operationId: 'deleteWebhook',
  summary: 'Delete a webhook',
  description: 'Nothing more is delivered to it; it no longer counts toward the cap; its id answers 404 from then on.',
  params: webhookParams,
  query: noQuery,
  successStatus: 200,
  response: deletedWebhookSchema,
  namesWebhook: true,
  async handle({ params, access }, deps) {
    await runWebhookCommand(commandDeps(deps), webhookFactsReader(deps.readStore), {
      webhookId: params.id,
      actor: actorOf(access),
      command: { client_id: access.clientId },
      slice: deleteWebhook,
    });
    return { data: { id: params.id, deleted: true } };
  },
};

const rotateWebhookSecretRoute: WebhookRoute<typeof webhookParams, typeof noQuery> = {
  method: 'post',
  path: '/webhooks/:id/rotate-secret',
  operationId: 'rotateWebhookSecret',
  summary: 'Give a webhook a new secret (shown once)',
  description:
    'The replaced secret keeps signing deliveries next to the new one for an overlap (24 hours unless the operator set otherwise): during it ' +
    '`X-Service-Signature` carries both signatures, `v1=<new> v1=<old>`, so a receiver holding either verifies. Rotating again within ' +
    'the overlap ends the older secret at once.',
  params: webhookParams,
  query: noQuery,
  successStatus: 200,
  response: webhookWithSecretSchema,
  namesWebhook: true,
  async handle({ params, access }, deps) {
    const { result, secret } = await rotateWebhookSecretOf(commandDeps(deps), webhookFactsReader(deps.readStore), deps.secrets, {
      webhookId: params.id,
      client_id: access.clientId,
      overlap_seconds: deps.secretOverlapSeconds,
      actor: actorOf(access),
    });
    return { data: { ...webhookRepresentation(result.webhook), secret } };
  },
};

/** Every /v1/webhooks operation: the router serves exactly these and /v1/openapi.yaml describes them. */
export const webhookRoutes: readonly WebhookRoute[] = [
  listWebhooksRoute,
  createWebhookRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  rotateWebhookSecretRoute,
];

/**
 * Every problem with the input at once (422 naming each field); a body `url` that is well formed as a
 * string is then checked as a target (syntax, DNS, SSRF guard) and replaced by its normalised form.
 */
async function parseInput(route: WebhookRoute, req: Request, deps: WebhookApiDeps) {
  const received = await jsonBodyOf(req);
  const params = route.params.safeParse({ ...req.params });
  const query = route.query.safeParse({ ...req.query });
  const body = (route.body ?? NO_BODY).safeParse(received);
  const fields: Record<string, string> = {};
  if (!params.success) issuesToFields('params', params.error.issues, fields);
  if (!query.success) issuesToFields('query', query.error.issues, fields);
  if (!body.success) issuesToFields('body', body.error.issues, fields);
  let url: string | undefined;
  const sentUrl = (received as { url?: unknown } | undefined)?.url;
  if (route.checksTargetUrl && typeof sentUrl === 'string' && fields['body.url'] === undefined) {
    const target = await checkWebhookTarget(sentUrl, deps.targetPolicy, deps.resolve);
    if (target.ok) url = target.url.href;
    else fields['body.url'] = target.reason;
  }
  if (!params.success || !query.success || !body.success || Object.keys(fields).length > 0) throw new ValidationFailed(fields);
  const parsedBody = url === undefined ? body.data : { ...(body.data as object), url };
  return { params: params.data, query: query.data, body: parsedBody };
}

/**
 * The /v1/webhooks routes; authentication is mounted in front of it (src/http/app.ts). A write's limits are
 * checked before its command runs (a refused write appends nothing); a read's once its outcome is known,
 * so a 304 costs no quota. Responses are never cached: they may carry a secret.
 */
export function createWebhookApiRouter(deps: WebhookApiDeps): Router {
  const router = Router();
  for (const route of webhookRoutes) {
    router[route.method](route.path, async (req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      const access = accessOf(res);
      requireGrants(access, WEBHOOK_SCOPES, WEBHOOK_ENTITLEMENTS);
      const input = await parseInput(route, req, deps);
      if (route.method !== 'get') await consumeRequestLimits(res, access, deps.limits, { units: 1, chargesQuota: true });
      const result = await route.handle({ ...input, access }, deps);
      if (route.method !== 'get') {
        sendData(res, result.data, { status: route.successStatus, ...(result.meta ? { meta: result.meta } : {}) });
        return;
      }
      const etag = `"${hash('sha1', JSON.stringify([result.data, result.meta ?? {}]), 'base64url')}"`;
      const notModified = ifNoneMatchMatches(req.get('if-none-match'), etag);
      await consumeRequestLimits(res, access, deps.limits, { units: 1, chargesQuota: !notModified });
      res.setHeader('ETag', etag);
      if (notModified) {
        res.status(304).end();
        return;
      }
      sendData(res, result.data, result.meta ? { meta: result.meta } : {});
    });
  }
  rejectOtherMethods(router, webhookRoutes);
  return router;
}
