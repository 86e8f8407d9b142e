import { evolveApiKey, type ApiKey, type ApiKeyEvent } from '../src/access/apiKey.js';
import { evolveClient, type Client, type ClientEvent } from '../src/access/client.js';
import { evolvePlan, type Plan, type PlanEvent } from '../src/access/plan.js';
import { evolvePlanChangeRequest, type PlanChangeRequest, type PlanChangeRequestEvent } from '../src/access/planChangeRequest.js';
import { evolveSubscription, type Subscription, type SubscriptionEvent } from '../src/access/subscription.js';
import { assertNever } from '../src/domain/decider.js';
import { everyEventType, type Projection } from '../src/projectionEngine/projection.js';
import { foldRecord, type AdminRecord, type AdminRecordKind } from './adminRecords.js';
import { searchText } from './shared/apiShape.js';

export const ADMIN_PLANS = 'admin_plans';
export const ADMIN_CLIENTS = 'admin_clients';
export const ADMIN_API_KEYS = 'admin_api_keys';
export const ADMIN_SUBSCRIPTIONS = 'admin_subscriptions';
export const ADMIN_PLAN_CHANGES = 'admin_plan_changes';

/** A key's metadata: its hash never reaches this read model, so no admin list can ever show it. */
export type ApiKeyMetadata = Omit<ApiKey, 'key_hash'>;

export type AdminPlanDoc = AdminRecord<Plan>;
export type AdminClientDoc = AdminRecord<Client>;
export type AdminApiKeyDoc = AdminRecord<ApiKeyMetadata>;
/** Its id is its client's (one subscription per client). */
export type AdminSubscriptionDoc = AdminRecord<Subscription>;
export type AdminPlanChangeDoc = AdminRecord<PlanChangeRequest>;

const planKind: AdminRecordKind<Plan, PlanEvent> = {
  collection: ADMIN_PLANS,
  idOf: (event) => event.data.plan_id,
  evolve: evolvePlan,
  search: (plan) => searchText(plan.key, plan.name),
};

const clientKind: AdminRecordKind<Client, ClientEvent> = {
  collection: ADMIN_CLIENTS,
  idOf: (event) => event.data.client_id,
  evolve: evolveClient,
  search: (client) => searchText(client.name, client.account_token),
};

const apiKeyKind: AdminRecordKind<ApiKeyMetadata, ApiKeyEvent> = {
  collection: ADMIN_API_KEYS,
  idOf: (event) => event.data.api_key_id,
  // Only ApiKeyIssued sets the hash and no event reads it, so the fold runs on the metadata alone.
  evolve(metadata, event) {
    const next = evolveApiKey(metadata && { ...metadata, key_hash: '' }, event);
    if (!next) return null;
    const { key_hash: _hash, ...withoutHash } = next;
    return withoutHash;
  },
  search: (apiKey) => searchText(apiKey.hint),
};

const subscriptionKind: AdminRecordKind<Subscription, SubscriptionEvent> = {
  collection: ADMIN_SUBSCRIPTIONS,
  idOf: (event) => event.data.client_id,
  evolve: evolveSubscription,
  search: () => '',
};

const planChangeKind: AdminRecordKind<PlanChangeRequest, PlanChangeRequestEvent> = {
  collection: ADMIN_PLAN_CHANGES,
  idOf: (event) => event.data.request_id,
  evolve: evolvePlanChangeRequest,
  search: (request) => searchText(request.note),
};

type AdminAccessEvent = PlanEvent | ClientEvent | ApiKeyEvent | SubscriptionEvent | PlanChangeRequestEvent;

/**
 * The admin API's lists of who may use /v1: plans, clients, API keys (metadata only), subscriptions and plan
 * change requests, each folded with its aggregate's own evolve and carrying the revision of its stream, so a
 * list item is what a GET of the record answers. Joins (a client's plan key, its effective grants) are made
 * when a page is read, from the plans here.
 */
export const adminAccessProjection: Projection<AdminAccessEvent> = {
  name: 'adminAccess',
  version: 1,
  collections: [ADMIN_PLANS, ADMIN_CLIENTS, ADMIN_API_KEYS, ADMIN_SUBSCRIPTIONS, ADMIN_PLAN_CHANGES],
  indexes: {
    [ADMIN_PLANS]: [{ keys: [['key', 1]] }, { keys: [['name', 1]] }],
    [ADMIN_CLIENTS]: [{ keys: [['plan_id', 1]] }, { keys: [['status', 1]] }, { keys: [['name', 1]] }, { keys: [['updated_at', 1]] }],
    [ADMIN_API_KEYS]: [
      {
        keys: [
          ['client_id', 1],
          ['_id', 1],
        ],
      },
    ],
    [ADMIN_SUBSCRIPTIONS]: [{ keys: [['status', 1]] }, { keys: [['updated_at', 1]] }],
    [ADMIN_PLAN_CHANGES]: [
      {
        keys: [
          ['status', 1],
          ['_id', 1],
        ],
      },
      { keys: [['client_id', 1]] },
    ],
  },
  handles: everyEventType<AdminAccessEvent>({
    PlanDefined: true,
    PlanRevised: true,
    ClientRegistered: true,
    ClientRevised: true,
    ClientStatusChanged: true,
    ClientControlsSet: true,
    ClientRestrictionSet: true,
    EvaluationStarted: true,
    EvaluationPaused: true,
    CommercialAccessActivated: true,
    ClientAccountTokenSet: true,
    ApiKeyIssued: true,
    ApiKeyRotated: true,
    ApiKeyRevoked: true,
    ApiKeyDeactivated: true,
    ApiKeyReactivated: true,
    SubscriptionSet: true,
    PlanChangeRequested: true,
    PlanChangeReviewStarted: true,
    PlanChangeApproved: true,
    PlanChangeRejected: true,
    PlanChangeCancelled: true,
    PlanChangeTookEffect: true,
  }),
  async apply(event, ctx) {
    switch (event.type) {
      case 'PlanDefined':
      case 'PlanRevised':
        await foldRecord(planKind, event, ctx);
        return;
      case 'ClientRegistered':
      case 'ClientRevised':
      case 'ClientStatusChanged':
      case 'ClientControlsSet':
      case 'ClientRestrictionSet':
      case 'EvaluationStarted':
      case 'EvaluationPaused':
      case 'CommercialAccessActivated':
      case 'ClientAccountTokenSet':
        await foldRecord(clientKind, event, ctx);
        return;
      case 'ApiKeyIssued':
      case 'ApiKeyRotated':
      case 'ApiKeyRevoked':
      case 'ApiKeyDeactivated':
      case 'ApiKeyReactivated':
        await foldRecord(apiKeyKind, event, ctx);
        return;
      case 'SubscriptionSet':
        await foldRecord(subscriptionKind, event, ctx);
        return;
      case 'PlanChangeRequested':
      case 'PlanChangeReviewStarted':
      case 'PlanChangeApproved':
      case 'PlanChangeRejected':
      case 'PlanChangeCancelled':
      case 'PlanChangeTookEffect':
        await foldRecord(planChangeKind, event, ctx);
        return;
      default:
        return assertNever(event);
    }
  },
};
