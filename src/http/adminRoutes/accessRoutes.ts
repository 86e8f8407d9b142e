import { z } from 'zod';
import { issueApiKeyTo, rotateApiKeyOf } from '../../../commands/apiKeys/apiKeyHandlers.js';
import { issueApiKeySchema } from '../../../commands/apiKeys/issueApiKey.js';
import * as deactivateApiKey from '../../../commands/apiKeys/deactivateApiKey.js';
import * as reactivateApiKey from '../../../commands/apiKeys/reactivateApiKey.js';
import { rotateApiKeySchema } from '../../../commands/apiKeys/rotateApiKey.js';
import * as revokeApiKey from '../../../commands/apiKeys/revokeApiKey.js';
import * as registerClient from '../../../commands/clients/registerClient.js';
import * as changeClientStatus from '../../../commands/clients/changeClientStatus.js';
import * as reviseClient from '../../../commands/clients/reviseClient.js';
import * as setClientAccountToken from '../../../commands/clients/setClientAccountToken.js';
import * as setClientControls from '../../../commands/clients/setClientControls.js';
import * as activateCommercialAccess from '../../../commands/clients/activateCommercialAccess.js';
import * as pauseEvaluation from '../../../commands/clients/pauseEvaluation.js';
import * as startEvaluation from '../../../commands/clients/startEvaluation.js';
import { planLimitsSchema } from '../../limits/planLimits.js';
import { pdfLimitsSchema, pdfTemplateSchema } from '../../pdf/pdfSettings.js';
import * as setClientRestriction from '../../../commands/clients/setClientRestriction.js';
import * as definePlan from '../../../commands/plans/definePlan.js';
import * as setSubscription from '../../../commands/subscriptions/setSubscription.js';
import * as revisePlan from '../../../commands/plans/revisePlan.js';
import { DETAIL_FIELDS, ENTITLEMENTS, KEY_ENVIRONMENTS, SCOPES } from '../../access/accessContext.js';
import { API_KEY_STATUSES, apiKeyAggregate, type ApiKey, type ApiKeyEvent } from '../../access/apiKey.js';
import type { AccessSlice } from '../../access/accessReferences.js';
import { CLIENT_STATUSES, clientAggregate, type Client, type ClientEvent } from '../../access/client.js';
import { effectiveGrants } from '../../access/grants.js';
import { planAggregate, planKeySchema, type Plan } from '../../access/plan.js';
import { SUBSCRIPTION_STATUSES, subscriptionAggregate, type Subscription } from '../../access/subscription.js';
import { loadAggregate, type LoadedAggregate } from '../../domain/commandHandler.js';
import { createWithSlice, putWithSlice, updateWithSlice } from '../../domain/commandSlice.js';
import { ApiError, NotFound } from '../../domain/errors.js';
import { SlugTaken } from '../../domain/slugReservations.js';
import type { EventStore } from '../../eventStore/eventStore.js';
import type { AdminRoute, AdminRouteResult } from '../adminRoute.js';
import { accessFactsReader } from '../accessFacts.js';
import { existingClient } from './accessReferences.js';
import { clientParams, idSchema, noParams, pathId, refuseRevisionOfNewResource, revisionSchema, timestampSchema } from './adminSchemas.js';

const PLANS = 'Plans';
const CLIENTS = 'Clients';
const API_KEYS = 'API keys';

// Representations.

const scopesSchema = z.array(z.enum(SCOPES));
const entitlementsSchema = z.array(z.enum(ENTITLEMENTS));

export const planResponseSchema = definePlan.definePlanSchema
  .extend({
    id: idSchema,
    revision: revisionSchema,
    active: z.boolean(),
    detail_fields: z
      .array(z.enum(DETAIL_FIELDS))
      .nullable()
      .meta({ description: 'The detail-only project fields its clients see, in this order; null = all of them.' }),
  })
  .meta({ id: 'AdminPlan', description: 'A plan: the scopes and entitlements its clients get unless they have their own.' });

const environmentControlsResponseSchema = z.object({
  domain: z.string().nullable().meta({ description: 'The authorised host, normalised; null = none configured.' }),
  ip_allow: z.array(z.string()).meta({ description: 'CIDR blocks; empty = no allow policy.' }),
  ip_deny: z.array(z.string()).meta({ description: 'CIDR blocks; empty = no deny policy.' }),
});

const clientControlsSchema = z
  .object({
    request_signing: z.boolean(),
    environments: z.object({ live: environmentControlsResponseSchema, test: environmentControlsResponseSchema }),
  })
  .meta({ id: 'AdminClientControls', description: 'Request signing and the domain and IP policy of each environment, as stored.' });

export const clientResponseSchema = z
  .object({
    id: idSchema,
    revision: revisionSchema,
    name: z.string(),
    plan: planKeySchema,
    plan_id: idSchema,
    status: z.enum(CLIENT_STATUSES),
    controls: clientControlsSchema,
    limits: planLimitsSchema
      .nullable()
      .meta({ description: "The client's own rate limits and quotas, which replace the plan's; null = the plan's." }),
    pdf_default_template: pdfTemplateSchema
      .nullable()
      .meta({ description: "The account default brochure design, used while the plan enables it; null = the plan's default." }),
    pdf_limits: pdfLimitsSchema.nullable().meta({ description: "The client's own PDF generation limits; null = the plan's." }),
    restriction: z
      .object({ states: z.array(z.object({ state_id: idSchema, community_ids: z.array(idSchema) })) })
      .nullable()
      .meta({ description: 'The states (and communities) its keys see; null = the whole catalogue.' }),
    access_mode: z
      .discriminatedUnion('mode', [
        z.object({ mode: z.literal('commercial') }),
        z.object({
          mode: z.literal('evaluation'),
          sample_project_ids: z.array(idSchema),
          started_at: timestampSchema,
          paused: z.boolean(),
        }),
      ])
      .meta({ description: 'Evaluation Mode with its frozen project sample, or commercial.' }),
    account_token: z
      .string()
      .nullable()
      .meta({ description: 'Names its account-specific image addresses {base_url}/media/c/{account_token}/...; null = none.' }),
    scopes: scopesSchema.nullable().meta({ description: "The client's own scopes, which replace the plan's; null = the plan's." }),
    entitlements: entitlementsSchema
      .nullable()
      .meta({ description: "The client's own entitlements, which replace the plan's; null = the plan's." }),
    effective_scopes: scopesSchema.meta({ description: 'What its keys may use now (none while the plan is inactive).' }),
    effective_entitlements: entitlementsSchema.meta({ description: 'What its keys may use now (none while the plan is inactive).' }),
  })
  .meta({ id: 'AdminClient', description: 'An API client and what its keys are granted.' });

const apiKeyFields = {
  id: idSchema,
  client_id: idSchema,
  environment: z.enum(KEY_ENVIRONMENTS),
  hint: z.string().meta({ description: 'The prefix and first 4 characters of the key, to tell keys apart.', example: 'svc_live_AbCd…' }),
  status: z.enum(API_KEY_STATUSES),
  issued_at: timestampSchema,
  expires_at: timestampSchema.nullable().meta({ description: 'From then on the key gets 403 API_KEY_EXPIRED; null = never.' }),
  revoked_at: timestampSchema.nullable(),
  successor_key_id: idSchema.nullable().meta({ description: 'Set once the key is rotated: the key that replaces it.' }),
  rotation_ends_at: timestampSchema
    .nullable()
    .meta({ description: 'Set once the key is rotated: from then on it gets 403 API_KEY_ROTATION_ENDED.' }),
};

export const apiKeyResponseSchema = z
  .object({ ...apiKeyFields, revision: revisionSchema })
  .meta({ id: 'AdminApiKey', description: 'An API key without its secret: only its hint is ever shown again.' });

const issuedApiKeyResponseSchema = apiKeyResponseSchema
  .extend({
    key: z.string().meta({
      description:
        'The key. This response is the only place it ever appears: the service keeps only its SHA-256 hash and cannot show it again.',
      example: 'svc_test_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG',
    }),
  })
  .meta({ id: 'AdminIssuedApiKey' });

function planRepresentation(id: number, loaded: LoadedAggregate<Plan | null>): AdminRouteResult {
  if (!loaded.state) throw new NotFound();
  const data: z.input<typeof planResponseSchema> = { id, revision: loaded.revision, ...loaded.state };
  return { data, revision: loaded.revision };
}

async function clientRepresentation(eventStore: EventStore, id: number, loaded: LoadedAggregate<Client | null>): Promise<AdminRouteResult> {
  const client = loaded.state;
  if (!client) throw new NotFound();
  const plan = (await loadAggregate(eventStore, planAggregate, client.plan_id))?.state;
  if (!plan) throw new Error(`Client ${id} names plan ${client.plan_id}, which does not exist.`);
  const effective = effectiveGrants(plan, client);
  const data: z.input<typeof clientResponseSchema> = {
    id,
    revision: loaded.revision,
    ...client,
    plan: plan.key,
    effective_scopes: effective.scopes,
    effective_entitlements: effective.entitlements,
  };
  return { data, revision: loaded.revision };
}

function apiKeyRepresentation(id: number, loaded: LoadedAggregate<ApiKey | null>) {
  if (!loaded.state) throw new NotFound();
  const { key_hash: _hash, ...apiKey } = loaded.state;
  return { id, revision: loaded.revision, ...apiKey } satisfies z.input<typeof apiKeyResponseSchema>;
}

// Routes.

const planParams = z.object({ planId: pathId }).strict();
const apiKeyParams = z.object({ clientId: pathId, keyId: pathId }).strict();

const createPlanRoute: AdminRoute<typeof noParams, typeof definePlan.definePlanSchema> = {
  method: 'post',
  path: '/plans',
  operationId: 'createPlan',
  summary: 'Define a plan (its id is allocated by the service; its key is unique and never changes)',
  tag: PLANS,
  params: noParams,
  body: definePlan.definePlanSchema,
  successStatus: 201,
  response: planResponseSchema,
  async handle({ body, actor, expectedRevision }, deps) {
    refuseRevisionOfNewResource(expectedRevision);
    const result = await createWithSlice(deps, accessFactsReader(deps), {
      aggregate: planAggregate,
      actor,
      command: body,
      slice: definePlan,
    });
    return planRepresentation(result.id, result);
  },
};

const getPlanRoute: AdminRoute<typeof planParams> = {
  method: 'get',
  path: '/plans/:planId',
  operationId: 'getPlan',
  summary: 'Read a plan with its revision',
  tag: PLANS,
  params: planParams,
  successStatus: 200,
  response: planResponseSchema,
  async handle({ params }, deps) {
    const loaded = await loadAggregate(deps.eventStore, planAggregate, params.planId);
    if (!loaded) throw new NotFound();
    return planRepresentation(params.planId, loaded);
  },
};

const revisePlanRoute: AdminRoute<typeof planParams, typeof revisePlan.revisePlanSchema> = {
  method: 'patch',
  path: '/plans/:planId',
  operationId: 'revisePlan',
  summary: 'Revise a plan; new scopes, entitlements or activity reach every client on it that has no lists of its own',
  tag: PLANS,
  params: planParams,
  body: revisePlan.revisePlanSchema,
  successStatus: 200,
  response: planResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const result = await updateWithSlice(deps, accessFactsReader(deps), {
      aggregate: planAggregate,
      id: params.planId,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
      command: body,
      slice: revisePlan,
    });
    return planRepresentation(result.id, result);
  },
};

const registerClientRoute: AdminRoute<typeof noParams, typeof registerClient.registerClientSchema> = {
  method: 'post',
  path: '/clients',
  operationId: 'registerClient',
  summary: 'Register an API client on an active plan (its id is allocated by the service)',
  tag: CLIENTS,
  params: noParams,
  body: registerClient.registerClientSchema,
  successStatus: 201,
  response: clientResponseSchema,
  async handle({ body, actor, expectedRevision }, deps) {
    refuseRevisionOfNewResource(expectedRevision);
    const result = await createWithSlice(deps, accessFactsReader(deps), {
      aggregate: clientAggregate,
      actor,
      command: body,
      slice: registerClient,
    });
    return clientRepresentation(deps.eventStore, result.id, result);
  },
};

const getClientRoute: AdminRoute<typeof clientParams> = {
  method: 'get',
  path: '/clients/:clientId',
  operationId: 'getClient',
  summary: 'Read a client with its plan, its effective grants and its revision',
  tag: CLIENTS,
  params: clientParams,
  successStatus: 200,
  response: clientResponseSchema,
  async handle({ params }, deps) {
    return clientRepresentation(deps.eventStore, params.clientId, await existingClient(deps.eventStore, params.clientId));
  },
};

const reviseClientRoute: AdminRoute<typeof clientParams, typeof reviseClient.reviseClientSchema> = {
  method: 'patch',
  path: '/clients/:clientId',
  operationId: 'reviseClient',
  summary: 'Revise a client: rename it, move it to another active plan, or set or drop (null) its own lists',
  tag: CLIENTS,
  params: clientParams,
  body: reviseClient.reviseClientSchema,
  successStatus: 200,
  response: clientResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const result = await updateWithSlice(deps, accessFactsReader(deps), {
      aggregate: clientAggregate,
      id: params.clientId,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
      command: body,
      slice: reviseClient,
    });
    return clientRepresentation(deps.eventStore, result.id, result);
  },
};

/** A command on one client, answered with the client. */
function clientCommand<Body extends z.ZodType>(options: {
  method: 'put' | 'post';
  path: string;
  operationId: string;
  summary: string;
  body: Body;
  slice: AccessSlice<z.infer<Body>, Client | null, ClientEvent>;
}): AdminRoute<typeof clientParams, Body> {
  return {
    method: options.method,
    path: options.path,
    operationId: options.operationId,
    summary: options.summary,
    tag: CLIENTS,
    params: clientParams,
    body: options.body,
    successStatus: 200,
    response: clientResponseSchema,
    async handle({ params, body, expectedRevision, actor }, deps) {
      const result = await updateWithSlice(deps, accessFactsReader(deps), {
        aggregate: clientAggregate,
        id: params.clientId,
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
        actor,
        command: body,
        slice: options.slice,
      });
      return clientRepresentation(deps.eventStore, result.id, result);
    },
  };
}

const changeClientStatusRoute = clientCommand({
  method: 'put',
  path: '/clients/:clientId/status',
  operationId: 'changeClientStatus',
  summary: 'Suspend, deactivate or reactivate a client (its keys get 403 CLIENT_SUSPENDED or CLIENT_INACTIVE meanwhile)',
  body: changeClientStatus.changeClientStatusSchema,
  slice: changeClientStatus,
});

const setClientControlsRoute = clientCommand({
  method: 'put',
  path: '/clients/:clientId/controls',
  operationId: 'setClientControls',
  summary: "Replace the client's access controls: request signing, and the authorised domain and IP policy of each environment",
  body: setClientControls.setClientControlsSchema,
  slice: setClientControls,
});

const setClientRestrictionRoute = clientCommand({
  method: 'put',
  path: '/clients/:clientId/restriction',
  operationId: 'setClientRestriction',
  summary: 'Restrict a client to states (each optionally narrowed to communities), or lift the restriction with null',
  body: setClientRestriction.setClientRestrictionSchema,
  slice: setClientRestriction,
});

const startEvaluationRoute = clientCommand({
  method: 'post',
  path: '/clients/:clientId/evaluation',
  operationId: 'startEvaluation',
  summary: 'Put a client in Evaluation Mode with a frozen sample of published projects (test keys only until commercial activation)',
  body: startEvaluation.startEvaluationSchema,
  slice: startEvaluation,
});

const pauseEvaluationRoute = clientCommand({
  method: 'post',
  path: '/clients/:clientId/evaluation/pause',
  operationId: 'pauseEvaluation',
  summary: "Pause a client's evaluation (403 EVALUATION_ACCESS_PAUSED until commercial activation)",
  body: z.object({}).strict(),
  slice: pauseEvaluation,
});

const activateCommercialAccessRoute = clientCommand({
  method: 'post',
  path: '/clients/:clientId/commercial-activation',
  operationId: 'activateCommercialAccess',
  summary: 'End Evaluation Mode: after payment, or staff authorising active-but-unpaid access; live keys work from then on',
  body: activateCommercialAccess.activateCommercialAccessSchema,
  slice: activateCommercialAccess,
});

/** 409: another client holds the token (tokens are reserved per client, like slugs). */
class AccountTokenTaken extends ApiError {
  constructor(token: string) {
    super(409, 'ACCOUNT_TOKEN_TAKEN', `The account token '${token}' belongs to another client.`, {
      fields: { 'body.account_token': 'already in use' },
    });
  }
}

/** Sets the token the route chooses (given, generated or null) and answers the client. */
function accountTokenRoute<Body extends z.ZodType>(options: {
  method: 'put' | 'post';
  operationId: string;
  summary: string;
  body?: Body;
  token(body: z.infer<Body>): string | null;
}): AdminRoute<typeof clientParams, Body> {
  return {
    method: options.method,
    path: '/clients/:clientId/account-token',
    operationId: options.operationId,
    summary: options.summary,
    tag: CLIENTS,
    params: clientParams,
    ...(options.body ? { body: options.body } : {}),
    successStatus: 200,
    response: clientResponseSchema,
    async handle({ params, body, expectedRevision, actor }, deps) {
      const token = options.token(body);
      try {
        const result = await updateWithSlice(deps, accessFactsReader(deps), {
          aggregate: clientAggregate,
          id: params.clientId,
          ...(expectedRevision === undefined ? {} : { expectedRevision }),
          actor,
          command: { account_token: token },
          slice: setClientAccountToken,
        });
        return await clientRepresentation(deps.eventStore, result.id, result);
      } catch (error) {
        throw error instanceof SlugTaken && token !== null ? new AccountTokenTaken(token) : error;
      }
    },
  };
}

const setClientAccountTokenRoute = accountTokenRoute({
  method: 'put',
  operationId: 'setClientAccountToken',
  summary:
    "Set the client's account token (e.g. one its pages already use), or remove it with null: its /media/c/{account_token}/... addresses then answer 404",
  body: setClientAccountToken.setClientAccountTokenSchema,
  token: (body) => body.account_token,
});

const generateClientAccountTokenRoute = accountTokenRoute({
  method: 'post',
  operationId: 'generateClientAccountToken',
  summary: 'Give the client a new random account token (22 URL-safe characters), replacing any it had',
  token: () => setClientAccountToken.generateAccountToken(),
});

/** The key leaves the service once, in this response. If-Match names the client's revision (see issueApiKey). */
const issueApiKeyRoute: AdminRoute<typeof clientParams, typeof issueApiKeySchema> = {
  method: 'post',
  path: '/clients/:clientId/keys',
  operationId: 'issueApiKey',
  summary: 'Issue an API key to a client; the key is in this response only and can never be shown again',
  tag: API_KEYS,
  params: clientParams,
  body: issueApiKeySchema,
  successStatus: 201,
  response: issuedApiKeyResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const { result, key } = await issueApiKeyTo(deps, accessFactsReader(deps), {
      ...body,
      client_id: params.clientId,
      ...(expectedRevision === undefined ? {} : { expected_client_revision: expectedRevision }),
      actor,
    });
    const data: z.input<typeof issuedApiKeyResponseSchema> = { ...apiKeyRepresentation(result.id, result), key };
    return { data, revision: result.revision };
  },
};

const keyStatusRoute = (
  action: 'revoke' | 'deactivate' | 'reactivate',
  summary: string,
  slice: AccessSlice<revokeApiKey.KeyOfClient, ApiKey | null, ApiKeyEvent>,
): AdminRoute<typeof apiKeyParams> => ({
  method: 'post',
  path: `/clients/:clientId/keys/:keyId/${action}`,
  operationId: `${action}ApiKey`,
  summary,
  tag: API_KEYS,
  params: apiKeyParams,
  successStatus: 200,
  response: apiKeyResponseSchema,
  async handle({ params, expectedRevision, actor }, deps) {
    const result = await updateWithSlice(deps, accessFactsReader(deps), {
      aggregate: apiKeyAggregate,
      id: params.keyId,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
      command: { client_id: params.clientId },
      slice,
    });
    return { data: apiKeyRepresentation(result.id, result), revision: result.revision };
  },
});

const revokeApiKeyRoute = keyStatusRoute(
  'revoke',
  "Revoke one of the client's API keys for good (no-op when already revoked)",
  revokeApiKey,
);

const deactivateApiKeyRoute = keyStatusRoute(
  'deactivate',
  'Deactivate an API key until it is reactivated (403 API_KEY_INACTIVE meanwhile); no-op when inactive, 409 when revoked',
  deactivateApiKey,
);

const reactivateApiKeyRoute = keyStatusRoute(
  'reactivate',
  'Reactivate a deactivated API key; no-op when active, 409 when revoked',
  reactivateApiKey,
);

export const subscriptionResponseSchema = z
  .object({
    client_id: idSchema,
    revision: revisionSchema,
    status: z.enum(SUBSCRIPTION_STATUSES),
    period_start: timestampSchema,
    period_end: timestampSchema.nullable(),
    trial_ends_at: timestampSchema.nullable(),
    payment_due_at: timestampSchema.nullable(),
    grace_days: z.number().int(),
    paid: z.boolean(),
  })
  .meta({ id: 'AdminSubscription', description: "A client's subscription, as stored." });

function subscriptionRepresentation(loaded: LoadedAggregate<Subscription | null> | null): AdminRouteResult {
  if (!loaded?.state) throw new NotFound('This client has no subscription recorded.');
  const data: z.input<typeof subscriptionResponseSchema> = { ...loaded.state, revision: loaded.revision };
  return { data, revision: loaded.revision };
}

const setSubscriptionRoute: AdminRoute<typeof clientParams, typeof setSubscription.setSubscriptionSchema> = {
  method: 'put',
  path: '/clients/:clientId/subscription',
  operationId: 'setSubscription',
  summary: "Record (replace) a client's subscription: status, period, trial, payment due date, grace days and paid",
  tag: CLIENTS,
  params: clientParams,
  body: setSubscription.setSubscriptionSchema,
  successStatus: 200,
  response: subscriptionResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const result = await putWithSlice(deps, accessFactsReader(deps), {
      aggregate: subscriptionAggregate,
      id: params.clientId,
      actor,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      command: { ...body, client_id: params.clientId },
      slice: setSubscription,
    });
    return subscriptionRepresentation(result);
  },
};

const getSubscriptionRoute: AdminRoute<typeof clientParams> = {
  method: 'get',
  path: '/clients/:clientId/subscription',
  operationId: 'getSubscription',
  summary: "Read a client's subscription (404 when none is recorded: then no subscription rule applies to its keys)",
  tag: CLIENTS,
  params: clientParams,
  successStatus: 200,
  response: subscriptionResponseSchema,
  async handle({ params }, deps) {
    await existingClient(deps.eventStore, params.clientId);
    return subscriptionRepresentation(await loadAggregate(deps.eventStore, subscriptionAggregate, params.clientId));
  },
};

const rotateApiKeyRoute: AdminRoute<typeof apiKeyParams, typeof rotateApiKeySchema> = {
  method: 'post',
  path: '/clients/:clientId/keys/:keyId/rotate',
  operationId: 'rotateApiKey',
  summary: 'Rotate an API key: issue its successor (in this response only) and keep the old key working for an overlap window',
  tag: API_KEYS,
  params: apiKeyParams,
  body: rotateApiKeySchema,
  successStatus: 201,
  response: issuedApiKeyResponseSchema,
  async handle({ params, body, expectedRevision, actor }, deps) {
    const { result, key } = await rotateApiKeyOf(deps, accessFactsReader(deps), {
      clientId: params.clientId,
      keyId: params.keyId,
      ...body,
      ...(expectedRevision === undefined ? {} : { expectedRevision }),
      actor,
    });
    const data: z.input<typeof issuedApiKeyResponseSchema> = { ...apiKeyRepresentation(result.id, result), key };
    return { data, revision: result.revision };
  },
};

/** Admin operations on who may use the /v1 API: plans, clients and their API keys. */
export const accessRoutes: AdminRoute[] = [
  createPlanRoute,
  getPlanRoute,
  revisePlanRoute,
  registerClientRoute,
  getClientRoute,
  reviseClientRoute,
  changeClientStatusRoute,
  setClientControlsRoute,
  setClientRestrictionRoute,
  startEvaluationRoute,
  pauseEvaluationRoute,
  activateCommercialAccessRoute,
  setClientAccountTokenRoute,
  generateClientAccountTokenRoute,
  issueApiKeyRoute,
  revokeApiKeyRoute,
  deactivateApiKeyRoute,
  reactivateApiKeyRoute,
  rotateApiKeyRoute,
  setSubscriptionRoute,
  getSubscriptionRoute,
];
