import type { DetailField, Entitlement, KeyEnvironment, Scope } from '../src/access/accessContext.js';
import type { ApiKeyEvent, ApiKeyStatus } from '../src/access/apiKey.js';
import {
  ACCOUNT_TOKEN_PATTERN,
  nextAccessMode,
  noClientControls,
  type AccessMode,
  type CatalogueRestriction,
  type ClientControls,
  type ClientEvent,
  type ClientStatus,
} from '../src/access/client.js';
import { effectiveGrants } from '../src/access/grants.js';
import type { PlanEvent } from '../src/access/plan.js';
import { DEFAULT_PLAN_LIMITS, type PlanLimits } from '../src/limits/planLimits.js';
import {
  effectivePdfSettings,
  planPdfSettingsOf,
  type ClientPdfSettings,
  type EffectivePdfSettings,
  type PlanPdfSettings,
} from '../src/pdf/pdfSettings.js';
import type { Subscription, SubscriptionEvent } from '../src/access/subscription.js';
import { assertNever } from '../src/domain/decider.js';
import type { ReadStore } from '../src/readStore/readStore.js';
import {
  alreadyApplied,
  everyEventType,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type ProjectionContext,
  type Recorded,
} from '../src/projectionEngine/projection.js';

export const ACCESS_PLANS = 'access_plans';
export const ACCESS_CLIENTS = 'access_clients';
export const ACCESS_KEYS = 'access_keys';

export interface AccessPlanDoc extends PositionedDoc, PlanPdfSettings {
  _id: number;
  id: number;
  key: string;
  name: string;
  scopes: Scope[];
  entitlements: Entitlement[];
  active: boolean;
  detail_fields: DetailField[] | null;
  limits: PlanLimits | null;
  created_at: string;
  updated_at: string;
}

/** What a client document holds of the client itself. */
interface ClientOwnFields {
  _id: number;
  id: number;
  name: string;
  plan_id: number;
  status: ClientStatus;
  /** Request signing and per-environment domain and IP policy, as last set. */
  controls: ClientControls;
  /** Authentication rule 8; null = the whole catalogue. */
  restriction: CatalogueRestriction;
  /** Evaluation Mode (rule 9) with its frozen sample, or commercial. */
  access_mode: AccessMode;
  /** Names the account-specific image addresses; null = none. Unique among clients (the write side reserves it). */
  account_token: string | null;
  /** null = no subscription recorded: access is governed by the client's and plan's status alone. */
  subscription: Omit<Subscription, 'client_id'> | null;
  /** The client's own lists, which replace the plan's; null = the plan's. */
  scope_overrides: Scope[] | null;
  entitlement_overrides: Entitlement[] | null;
  /** The client's own limits, which replace the plan's; null = the plan's. */
  limit_overrides: PlanLimits | null;
  /** The client's own brochure settings over the plan's; null = the plan's. */
  pdf_overrides: ClientPdfSettings;
  created_at: string;
  updated_at: string;
}

export interface AccessClientDoc extends PositionedDoc, ClientOwnFields {
  _id: number;
  /** The plan's key. */
  plan: string;
  /** A deactivated plan refuses its clients' keys (403 PLAN_INACTIVE). */
  plan_active: boolean;
  /** The plan's exposed detail fields, kept current like the grants; null = all. */
  detail_fields: DetailField[] | null;
  /** The client's own limits, else the plan's, else the defaults; kept current like the grants. */
  limits: PlanLimits;
  /** The brochure designs, default, branding page and PDF limits its requests use; kept current like the grants. */
  pdf: EffectivePdfSettings;
  /** Effective grants (see effectiveGrants), kept current when the plan is revised, so a request reads one document. */
  scopes: Scope[];
  entitlements: Entitlement[];
}

/** One per issued key, by the SHA-256 hex of the key, so the presented key is found with one `get`. */
export interface AccessKeyDoc extends PositionedDoc {
  _id: string;
  id: number;
  client_id: number;
  environment: KeyEnvironment;
  hint: string;
  status: ApiKeyStatus;
  issued_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  successor_key_id: number | null;
  rotation_ends_at: string | null;
}

export type AccessEvent = PlanEvent | ClientEvent | ApiKeyEvent | SubscriptionEvent;

function nextPlan(current: AccessPlanDoc | null, event: Recorded<PlanEvent>): AccessPlanDoc | null {
  const position = positionNumber(event);
  switch (event.type) {
    case 'PlanDefined': {
      const { plan_id, key, name, scopes, entitlements, active, detail_fields, at } = event.data;
      return {
        _id: plan_id,
        id: plan_id,
        key,
        name,
        scopes,
        entitlements,
        active,
        detail_fields: detail_fields ?? null,
        limits: event.data.limits ?? null,
        ...planPdfSettingsOf(event.data),
        created_at: at,
        updated_at: at,
        _position: position,
      };
    }
    case 'PlanRevised':
      return current && { ...current, ...event.data.changes, updated_at: event.data.at, _position: position };
    default:
      return assertNever(event);
  }
}

function onPlan(client: ClientOwnFields, plan: AccessPlanDoc, position: number): AccessClientDoc {
  const grants = effectiveGrants(plan, { scopes: client.scope_overrides, entitlements: client.entitlement_overrides });
  return {
    ...client,
    plan: plan.key,
    plan_active: plan.active,
    detail_fields: plan.detail_fields,
    limits: client.limit_overrides ?? plan.limits ?? DEFAULT_PLAN_LIMITS,
    pdf: effectivePdfSettings(plan, client.pdf_overrides),
    ...grants,
    _position: position,
  };
}

async function applyPlanEvent(event: Recorded<PlanEvent>, ctx: ProjectionContext): Promise<void> {
  const current = await ctx.get<AccessPlanDoc>(ACCESS_PLANS, event.data.plan_id);
  let plan = current;
  if (!alreadyApplied(current, event)) {
    plan = nextPlan(current, event);
    if (plan) ctx.put(ACCESS_PLANS, plan);
  }
  if (event.type !== 'PlanRevised' || !plan) return;
  // A revision reaches the effective grants of every client on the plan; each is checked on its own, since
  // a write interrupted half-way may have stored some of them already. A plan document already past this
  // event gives those clients a later state of the plan, which the later event confirms.
  const position = positionNumber(event);
  for (const client of await ctx.find<AccessClientDoc>(ACCESS_CLIENTS, { plan_id: plan.id })) {
    if (!alreadyApplied(client, event)) ctx.put(ACCESS_CLIENTS, onPlan(client, plan, position));
  }
}

async function applyClientEvent(event: Recorded<ClientEvent>, ctx: ProjectionContext): Promise<void> {
  const current = await ctx.get<AccessClientDoc>(ACCESS_CLIENTS, event.data.client_id);
  if (alreadyApplied(current, event)) return;
  let client: ClientOwnFields;
  switch (event.type) {
    case 'ClientRegistered': {
      const { client_id, name, plan_id, scopes, entitlements, at } = event.data;
      client = {
        _id: client_id,
        id: client_id,
        name,
        plan_id,
        status: 'active',
        controls: noClientControls(),
        subscription: null,
        restriction: null,
        access_mode: { mode: 'commercial' },
        account_token: null,
        scope_overrides: scopes,
        entitlement_overrides: entitlements,
        limit_overrides: event.data.limits ?? null,
        pdf_overrides: { pdf_default_template: event.data.pdf_default_template ?? null, pdf_limits: event.data.pdf_limits ?? null },
        created_at: at,
        updated_at: at,
      };
      break;
    }
    case 'ClientRevised': {
      if (!current) return;
      const { plan_id, scopes, entitlements, name, limits, pdf_default_template, pdf_limits } = event.data.changes;
      client = {
        ...current,
        ...(name === undefined ? {} : { name }),
        ...(plan_id === undefined ? {} : { plan_id }),
        ...(scopes === undefined ? {} : { scope_overrides: scopes }),
        ...(entitlements === undefined ? {} : { entitlement_overrides: entitlements }),
        ...(limits === undefined ? {} : { limit_overrides: limits }),
        pdf_overrides: {
          pdf_default_template: pdf_default_template === undefined ? current.pdf_overrides.pdf_default_template : pdf_default_template,
          pdf_limits: pdf_limits === undefined ? current.pdf_overrides.pdf_limits : pdf_limits,
        },
        updated_at: event.data.at,
      };
      break;
    }
    case 'ClientStatusChanged':
      if (!current) return;
      client = { ...current, status: event.data.status, updated_at: event.data.at };
      break;
    case 'ClientControlsSet':
      if (!current) return;
      client = { ...current, controls: event.data.controls, updated_at: event.data.at };
      break;
    case 'ClientRestrictionSet':
      if (!current) return;
      client = { ...current, restriction: event.data.restriction, updated_at: event.data.at };
      break;
    case 'EvaluationStarted':
    case 'EvaluationPaused':
    case 'CommercialAccessActivated':
      if (!current) return;
      client = { ...current, access_mode: nextAccessMode(current.access_mode, event), updated_at: event.data.at };
      break;
    case 'ClientAccountTokenSet':
      if (!current) return;
      client = { ...current, account_token: event.data.account_token, updated_at: event.data.at };
      break;
    default:
      return assertNever(event);
  }
  // The write side only registers clients on plans that exist, and plans are never removed.
  const plan = await ctx.get<AccessPlanDoc>(ACCESS_PLANS, client.plan_id);
  if (plan) ctx.put(ACCESS_CLIENTS, onPlan(client, plan, positionNumber(event)));
}

async function applySubscriptionEvent(event: Recorded<SubscriptionEvent>, ctx: ProjectionContext): Promise<void> {
  const client = await ctx.get<AccessClientDoc>(ACCESS_CLIENTS, event.data.client_id);
  // The admin route sets subscriptions of registered clients only.
  if (!client || alreadyApplied(client, event)) return;
  const { client_id: _client, at: _at, ...subscription } = event.data;
  ctx.put(ACCESS_CLIENTS, { ...client, subscription, _position: positionNumber(event) });
}

async function applyApiKeyEvent(event: Recorded<ApiKeyEvent>, ctx: ProjectionContext): Promise<void> {
  const position = positionNumber(event);
  switch (event.type) {
    case 'ApiKeyIssued': {
      const { api_key_id, client_id, environment, key_hash, hint, expires_at, at } = event.data;
      if (alreadyApplied(await ctx.get<AccessKeyDoc>(ACCESS_KEYS, key_hash), event)) return;
      ctx.put(ACCESS_KEYS, {
        _id: key_hash,
        id: api_key_id,
        client_id,
        environment,
        hint,
        status: 'active',
        issued_at: at,
        expires_at: expires_at ?? null,
        revoked_at: null,
        successor_key_id: null,
        rotation_ends_at: null,
        _position: position,
      } satisfies AccessKeyDoc);
      return;
    }
    case 'ApiKeyRevoked':
    case 'ApiKeyDeactivated':
    case 'ApiKeyReactivated':
    case 'ApiKeyRotated': {
      const change: Partial<AccessKeyDoc> =
        event.type === 'ApiKeyRevoked'
          ? { status: 'revoked', revoked_at: event.data.at }
          : event.type === 'ApiKeyRotated'
            ? { successor_key_id: event.data.successor_key_id, rotation_ends_at: event.data.rotation_ends_at }
            : { status: event.type === 'ApiKeyDeactivated' ? 'inactive' : 'active' };
      // Documents are keyed by hash; the event names the key's id.
      for (const key of await ctx.find<AccessKeyDoc>(ACCESS_KEYS, { id: event.data.api_key_id })) {
        if (!alreadyApplied(key, event)) ctx.put(ACCESS_KEYS, { ...key, ...change, _position: position });
      }
      return;
    }
    default:
      return assertNever(event);
  }
}

/**
 * Whether some client has this account token: the account-specific image addresses
 * (`/media/c/{account_token}/...`) of an unknown token are 404. Whatever the client's status: an address
 * stored in a page keeps working as long as the token stays on the account.
 */
export async function accountTokenExists(readStore: ReadStore, token: string): Promise<boolean> {
  if (!ACCOUNT_TOKEN_PATTERN.test(token)) return false;
  return (await readStore.findOne<AccessClientDoc>(ACCESS_CLIENTS, { account_token: token })) !== null;
}

/**
 * Who may call /v1 and with what: plans, clients with their effective grants, and keys by hash. Read by
 * lookupAccess on every request (a key and its client: two `get`s) and by the admin key listing.
 */
export const accessProjection: Projection<AccessEvent> = {
  name: 'access',
  // 3: clients carry account_token. 4: plans and clients carry brochure settings, clients the effective `pdf`.
  version: 4,
  collections: [ACCESS_PLANS, ACCESS_CLIENTS, ACCESS_KEYS],
  indexes: {
    [ACCESS_PLANS]: [{ keys: [['key', 1]], unique: true }],
    // Not unique: every client without a token has null. The write side keeps tokens unique.
    [ACCESS_CLIENTS]: [{ keys: [['plan_id', 1]] }, { keys: [['account_token', 1]] }],
    [ACCESS_KEYS]: [
      { keys: [['id', 1]], unique: true },
      {
        keys: [
          ['client_id', 1],
          ['id', 1],
        ],
      },
    ],
  },
  handles: everyEventType<AccessEvent>({
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
    ApiKeyRevoked: true,
    ApiKeyDeactivated: true,
    ApiKeyReactivated: true,
    ApiKeyRotated: true,
    SubscriptionSet: true,
  }),
  async apply(event, ctx) {
    switch (event.type) {
      case 'PlanDefined':
      case 'PlanRevised':
        return applyPlanEvent(event, ctx);
      case 'ClientRegistered':
      case 'ClientRevised':
      case 'ClientStatusChanged':
      case 'ClientControlsSet':
      case 'ClientRestrictionSet':
      case 'EvaluationStarted':
      case 'EvaluationPaused':
      case 'CommercialAccessActivated':
      case 'ClientAccountTokenSet':
        return applyClientEvent(event, ctx);
      case 'ApiKeyIssued':
      case 'ApiKeyRevoked':
      case 'ApiKeyDeactivated':
      case 'ApiKeyReactivated':
      case 'ApiKeyRotated':
        return applyApiKeyEvent(event, ctx);
      case 'SubscriptionSet':
        return applySubscriptionEvent(event, ctx);
      default:
        return assertNever(event);
    }
  },
};
