import { z } from 'zod';
import * as disableWebhook from '../../../commands/webhooks/disableWebhook.js';
import * as enableWebhook from '../../../commands/webhooks/enableWebhook.js';
import { loadWebhook, runWebhookCommand, type WebhookResult } from '../../../commands/webhooks/webhookHandlers.js';
import { WEBHOOKS, type WebhookDoc } from '../../../projections/webhooks.js';
import { NotFound } from '../../domain/errors.js';
import type { Filter } from '../../readStore/readStore.js';
import { WEBHOOK_DISABLED_REASONS, WEBHOOK_EVENT_TYPES, WEBHOOK_STATUSES, type Webhook } from '../../webhooks/webhook.js';
import type { AdminRoute, AdminRouteResult } from '../adminRoute.js';
import { webhookFactsReader, webhookIdSchema } from '../webhookApi.js';
import { adminList, idParameter } from './adminLists.js';
import { idSchema, revisionSchema, timestampSchema } from './adminSchemas.js';

const WEBHOOKS_TAG = 'Webhooks';

const adminWebhookFields = {
  id: webhookIdSchema,
  client_id: idSchema,
  name: z.string(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  status: z.enum(WEBHOOK_STATUSES),
  disabled_reason: z
    .enum(WEBHOOK_DISABLED_REASONS)
    .nullable()
    .meta({
      description:
        'Why it is disabled: `client` (its client), `admin` (an administrator; its client cannot enable it again), `gone` (its receiver answered 410), ' +
        '`failing` (deliveries failed for 5 days); null while active.',
    }),
  previous_secret_retire_at: timestampSchema.nullable().meta({
    description:
      'After a rotation: until when the replaced secret still signs deliveries; null = one secret only. Secrets are never shown.',
  }),
  created_at: timestampSchema,
  updated_at: timestampSchema,
};

const adminWebhookSchema = z
  .object({ ...adminWebhookFields, revision: revisionSchema })
  .meta({ id: 'AdminWebhook', description: "A client's webhook, without its secrets." });

type AdminWebhookView = Pick<
  Webhook,
  'id' | 'client_id' | 'name' | 'url' | 'events' | 'status' | 'disabled_reason' | 'secrets' | 'created_at' | 'updated_at'
>;

function adminRepresentation(webhook: AdminWebhookView) {
  const { id, client_id, name, url, events, status, disabled_reason, secrets, created_at, updated_at } = webhook;
  const previousSecretRetireAt = secrets[1]?.retire_at ?? null;
  return {
    id,
    client_id,
    name,
    url,
    events,
    status,
    disabled_reason,
    previous_secret_retire_at: previousSecretRetireAt,
    created_at,
    updated_at,
  };
}

function resultOf(result: Pick<WebhookResult, 'webhook' | 'revision'>): AdminRouteResult {
  const data: z.input<typeof adminWebhookSchema> = { ...adminRepresentation(result.webhook), revision: result.revision };
  return { data, revision: result.revision };
}

const webhookParams = z.object({ webhookId: webhookIdSchema }).strict();
const listWebhooksRoute = adminList({
  path: '/webhooks',
  operationId: 'listWebhooks',
  summary:
    "Clients' webhooks (deleted ones left out), filtered by client and status, oldest first unless sorted otherwise. " +
    'Read from the webhooks read model, so a change a moment old may not show yet.',
  tag: WEBHOOKS_TAG,
  filters: {
    client_id: idParameter("Only this client's webhooks."),
    status: z
      .enum(WEBHOOK_STATUSES, { error: `must be one of ${WEBHOOK_STATUSES.join(', ')}` })
      .meta({ description: 'Only webhooks in this status.' })
      .optional(),
  },
  sortFields: ['created_at', 'updated_at', 'name'],
  defaultSort: 'created_at',
  collection: WEBHOOKS,
  item: adminWebhookSchema,
  select(query) {
    const filter: Filter = { deleted: false };
    if (query.client_id !== undefined) filter.client_id = query.client_id;
    if (query.status !== undefined) filter.status = query.status;
    return { filter };
  },
  represent: (docs: WebhookDoc[]) => docs.map((webhook) => ({ ...adminRepresentation(webhook), revision: webhook.revision })),
});

const getWebhookRoute: AdminRoute<typeof webhookParams> = {
  method: 'get',
  path: '/webhooks/:webhookId',
  operationId: 'getWebhook',
  summary: 'One webhook (a deleted one is 404)',
  tag: WEBHOOKS_TAG,
  params: webhookParams,
  successStatus: 200,
  response: adminWebhookSchema,
  async handle({ params }, deps) {
    const { webhook, revision } = await loadWebhook(deps, params.webhookId);
    if (!webhook || webhook.deleted || revision === null) throw new NotFound();
    return resultOf({ webhook, revision });
  },
};

const enableWebhookRoute: AdminRoute<typeof webhookParams> = {
  method: 'post',
  path: '/webhooks/:webhookId/enable',
  operationId: 'enableWebhook',
  summary: 'Enable a disabled webhook again, whoever disabled it (an active one stays as it is)',
  tag: WEBHOOKS_TAG,
  params: webhookParams,
  successStatus: 200,
  response: adminWebhookSchema,
  async handle({ params, actor, expectedRevision }, deps) {
    return resultOf(
      await runWebhookCommand(deps, webhookFactsReader(deps.readStore), {
        webhookId: params.webhookId,
        actor,
        command: {},
        slice: enableWebhook,
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
      }),
    );
  },
};

const disableWebhookRoute: AdminRoute<typeof webhookParams> = {
  method: 'post',
  path: '/webhooks/:webhookId/disable',
  operationId: 'disableWebhook',
  summary: 'Disable a webhook (reason `admin`: its client cannot enable it again)',
  tag: WEBHOOKS_TAG,
  params: webhookParams,
  successStatus: 200,
  response: adminWebhookSchema,
  async handle({ params, actor, expectedRevision }, deps) {
    return resultOf(
      await runWebhookCommand(deps, webhookFactsReader(deps.readStore), {
        webhookId: params.webhookId,
        actor,
        command: { reason: 'admin' },
        slice: disableWebhook,
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
      }),
    );
  },
};

export const adminWebhookRoutes: AdminRoute[] = [listWebhooksRoute as AdminRoute, getWebhookRoute, enableWebhookRoute, disableWebhookRoute];
