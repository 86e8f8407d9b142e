import { z } from 'zod';
import {
  ADMIN_API_KEYS,
  ADMIN_CLIENTS,
  ADMIN_PLAN_CHANGES,
  ADMIN_PLANS,
  ADMIN_SUBSCRIPTIONS,
  type AdminApiKeyDoc,
  type AdminClientDoc,
  type AdminPlanChangeDoc,
  type AdminPlanDoc,
  type AdminSubscriptionDoc,
} from '../../../projections/adminAccess.js';
import { KEY_ENVIRONMENTS } from '../../access/accessContext.js';
import { API_KEY_STATUSES } from '../../access/apiKey.js';
import { CLIENT_STATUSES } from '../../access/client.js';
import { effectiveGrants } from '../../access/grants.js';
import { planKeySchema } from '../../access/plan.js';
import { PLAN_CHANGE_STATUSES } from '../../access/planChangeRequest.js';
import { SUBSCRIPTION_STATUSES } from '../../access/subscription.js';
import { NotFound } from '../../domain/errors.js';
import type { Filter, ReadStore } from '../../readStore/readStore.js';
import type { AdminRoute } from '../adminRoute.js';
import { qParameter, updatedSinceSchema } from '../listParameters.js';
import { apiKeyResponseSchema, clientResponseSchema, planResponseSchema, subscriptionResponseSchema } from './accessRoutes.js';
import { adminList, booleanParameter, idParameter, withoutStoreFields } from './adminLists.js';
import { clientParams, timestampSchema } from './adminSchemas.js';
import { planChangeResponseSchema } from './planChangeRoutes.js';

// Lists of who may use /v1, from the adminAccess read model.

const READ_MODEL_NOTE = 'Read from the admin read model: a write shows once projected.';

const times = {
  created_at: timestampSchema.meta({ description: 'Its first event.' }),
  updated_at: timestampSchema.meta({ description: 'Its latest event.' }),
};

const listItem = (schema: z.ZodObject, id: string) => schema.extend(times).meta({ id });

const updatedSince = updatedSinceSchema.meta({ description: 'Only those whose updated_at is later than this.' }).optional();

const enumParameter = <const Values extends readonly [string, ...string[]]>(values: Values, description: string) =>
  z
    .enum(values, { error: `must be one of ${values.join(', ')}` })
    .meta({ description })
    .optional();

/** The plans a page of records names, by id. */
async function plansById(readStore: ReadStore, ids: readonly number[]): Promise<Map<number, AdminPlanDoc>> {
  const plans = await readStore.getMany<AdminPlanDoc>(ADMIN_PLANS, [...new Set(ids)]);
  return new Map(plans.map((plan) => [plan.id, plan]));
}

/** A record names a plan the write side made sure exists, and plans are never removed. */
function namedPlan(plans: Map<number, AdminPlanDoc>, id: number): AdminPlanDoc {
  const plan = plans.get(id);
  if (!plan) throw new Error(`A record names plan ${id}, which the admin read model does not hold.`);
  return plan;
}

const listPlans = adminList({
  path: '/plans',
  operationId: 'listPlans',
  summary: `Plans, active or not, filtered, sorted and paginated. ${READ_MODEL_NOTE}`,
  tag: 'Plans',
  filters: {
    q: qParameter.meta({ description: 'Free text on one line, matched case-insensitively against keys and names.' }),
    active: booleanParameter('Only active (true) or inactive (false) plans.'),
    updated_since: updatedSince,
  },
  sortFields: ['id', 'key', 'name', 'updated_at'],
  defaultSort: 'id',
  collection: ADMIN_PLANS,
  item: listItem(planResponseSchema, 'AdminPlanListItem'),
  select(query) {
    const filter: Filter = {};
    if (query.active !== undefined) filter.active = query.active;
    if (query.updated_since !== undefined) filter.updated_at = { $gt: query.updated_since };
    return { filter, ...(query.q ? { text: query.q } : {}) };
  },
  represent: (docs: AdminPlanDoc[]) => docs.map(withoutStoreFields),
});

const EVALUATION_STATES = ['active', 'paused', 'none'] as const;

/** How each `evaluation` value reads the client's access mode. */
const evaluationFilter: Record<(typeof EVALUATION_STATES)[number], Filter> = {
  active: { 'access_mode.mode': 'evaluation', 'access_mode.paused': false },
  paused: { 'access_mode.mode': 'evaluation', 'access_mode.paused': true },
  none: { 'access_mode.mode': 'commercial' },
};

const listClients = adminList({
  path: '/clients',
  operationId: 'listClients',
  summary: `Clients, with their plan and effective grants, filtered, sorted and paginated. ${READ_MODEL_NOTE}`,
  tag: 'Clients',
  filters: {
    q: qParameter.meta({ description: 'Free text on one line, matched case-insensitively against names and account tokens.' }),
    status: enumParameter(CLIENT_STATUSES, 'Only clients in this status.'),
    plan: planKeySchema.meta({ description: "Only clients on this plan: its key, as the client's `plan` shows it." }).optional(),
    evaluation: enumParameter(
      EVALUATION_STATES,
      'Only clients in Evaluation Mode and not paused (active), in it and paused (paused), or commercial (none).',
    ),
    updated_since: updatedSince,
  },
  sortFields: ['id', 'name', 'created_at', 'updated_at'],
  defaultSort: 'id',
  collection: ADMIN_CLIENTS,
  item: listItem(clientResponseSchema, 'AdminClientListItem'),
  async select(query, _params, readStore) {
    const filter: Filter = {};
    if (query.plan !== undefined) {
      const plan = await readStore.findOne<AdminPlanDoc>(ADMIN_PLANS, { key: query.plan });
      if (!plan) return null;
      filter.plan_id = plan.id;
    }
    if (query.status !== undefined) filter.status = query.status;
    if (query.evaluation !== undefined) Object.assign(filter, evaluationFilter[query.evaluation]);
    if (query.updated_since !== undefined) filter.updated_at = { $gt: query.updated_since };
    return { filter, ...(query.q ? { text: query.q } : {}) };
  },
  async represent(docs: AdminClientDoc[], readStore) {
    const plans = await plansById(
      readStore,
      docs.map((client) => client.plan_id),
    );
    return docs.map((client) => {
      const plan = namedPlan(plans, client.plan_id);
      const effective = effectiveGrants(plan, client);
      return {
        ...withoutStoreFields(client),
        plan: plan.key,
        effective_scopes: effective.scopes,
        effective_entitlements: effective.entitlements,
      };
    });
  },
});

const listApiKeys = adminList({
  path: '/clients/:clientId/keys',
  operationId: 'listApiKeys',
  summary: `A client's API keys, revoked ones included, without their secrets (only the hint), filtered and paginated. ${READ_MODEL_NOTE}`,
  tag: 'API keys',
  params: clientParams,
  filters: {
    status: enumParameter(API_KEY_STATUSES, 'Only keys in this status.'),
    environment: enumParameter(KEY_ENVIRONMENTS, 'Only live or only test keys.'),
  },
  sortFields: ['id', 'issued_at', 'updated_at'],
  defaultSort: 'id',
  collection: ADMIN_API_KEYS,
  item: listItem(apiKeyResponseSchema, 'AdminApiKeyListItem'),
  async select(query, params, readStore) {
    if (!(await readStore.get(ADMIN_CLIENTS, params.clientId))) throw new NotFound(`Client ${params.clientId} does not exist.`);
    const filter: Filter = { client_id: params.clientId };
    if (query.status !== undefined) filter.status = query.status;
    if (query.environment !== undefined) filter.environment = query.environment;
    return { filter };
  },
  represent: (docs: AdminApiKeyDoc[]) => docs.map(withoutStoreFields),
});

const listSubscriptions = adminList({
  path: '/subscriptions',
  operationId: 'listSubscriptions',
  summary: `Clients' subscriptions (one per client that has one), filtered, sorted and paginated. ${READ_MODEL_NOTE}`,
  tag: 'Clients',
  filters: {
    client_id: idParameter("Only this client's subscription."),
    status: enumParameter(SUBSCRIPTION_STATUSES, 'Only subscriptions in this status.'),
    paid: booleanParameter('Only subscriptions whose current invoice is paid (true) or not (false).'),
    updated_since: updatedSince,
  },
  sortFields: ['client_id', 'period_end', 'updated_at'],
  defaultSort: 'client_id',
  collection: ADMIN_SUBSCRIPTIONS,
  item: listItem(subscriptionResponseSchema, 'AdminSubscriptionListItem'),
  select(query) {
    const filter: Filter = {};
    if (query.client_id !== undefined) filter.client_id = query.client_id;
    if (query.status !== undefined) filter.status = query.status;
    if (query.paid !== undefined) filter.paid = query.paid;
    if (query.updated_since !== undefined) filter.updated_at = { $gt: query.updated_since };
    return { filter };
  },
  // A subscription is named by its client: client_id is its id.
  represent: (docs: AdminSubscriptionDoc[]) => docs.map(({ id: _clientId, ...subscription }) => withoutStoreFields(subscription)),
});

const listPlanChanges = adminList({
  path: '/plan-changes',
  operationId: 'listPlanChanges',
  summary: `Plan change requests of every client (e.g. status=submitted: those waiting for review), filtered, sorted and paginated. ${READ_MODEL_NOTE}`,
  tag: 'Plan changes',
  filters: {
    status: enumParameter(PLAN_CHANGE_STATUSES, 'Only requests in this status.'),
    client_id: idParameter("Only this client's requests."),
    updated_since: updatedSince,
  },
  sortFields: ['id', 'submitted_at', 'updated_at'],
  defaultSort: 'id',
  collection: ADMIN_PLAN_CHANGES,
  item: listItem(planChangeResponseSchema, 'AdminPlanChangeListItem'),
  select(query) {
    const filter: Filter = {};
    if (query.status !== undefined) filter.status = query.status;
    if (query.client_id !== undefined) filter.client_id = query.client_id;
    if (query.updated_since !== undefined) filter.updated_at = { $gt: query.updated_since };
    return { filter };
  },
  async represent(docs: AdminPlanChangeDoc[], readStore) {
    const plans = await plansById(
      readStore,
      docs.flatMap((request) => [request.from_plan_id, request.to_plan_id]),
    );
    return docs.map((request) => ({
      ...withoutStoreFields(request),
      from_plan: namedPlan(plans, request.from_plan_id).key,
      to_plan: namedPlan(plans, request.to_plan_id).key,
    }));
  },
});

/** The admin API's lists of who may use /v1: plans, clients, their keys and subscriptions, plan change requests. */
export const accessListRoutes: AdminRoute[] = [listPlans, listClients, listApiKeys, listSubscriptions, listPlanChanges] as AdminRoute[];
