import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';
import type { PlanLimits } from '../limits/planLimits.js';
import type { ClientPdfSettings } from '../pdf/pdfSettings.js';
import type { KeyEnvironment } from '../vocabulary/keyEnvironment.js';
import type { Entitlement, Scope } from './grantNames.js';

export interface ClientFields extends ClientPdfSettings {
  name: string;
  plan_id: number;
  /** When set, these replace the plan's scopes for this client; null = the plan's. */
  scopes: Scope[] | null;
  /** When set, these replace the plan's entitlements for this client; null = the plan's. */
  entitlements: Entitlement[] | null;
  /** When set, these replace the plan's rate limits and quotas for this client (its contract); null = the plan's. */
  limits: PlanLimits | null;
}

export const CLIENT_STATUSES = ['active', 'suspended', 'inactive'] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];

/** What one environment (live or test) of a client may be called from (Authentication rule 7). */
export interface EnvironmentControls {
  /** The one authorised normalised host (lower case, no port, path or wildcard); null = none configured. */
  domain: string | null;
  /** CIDR blocks (IPv4 or IPv6); empty = no allow policy. */
  ip_allow: string[];
  /** CIDR blocks (IPv4 or IPv6); empty = no deny policy. */
  ip_deny: string[];
}

/** The client's optional access controls: enterprise request signing, and domain and IP policy per environment. */
export interface ClientControls {
  request_signing: boolean;
  environments: Record<KeyEnvironment, EnvironmentControls>;
}

const noEnvironmentControls = (): EnvironmentControls => ({ domain: null, ip_allow: [], ip_deny: [] });

export const noClientControls = (): ClientControls => ({
  request_signing: false,
  environments: { live: noEnvironmentControls(), test: noEnvironmentControls() },
});

/**
 * Authentication rule 8: the client sees only these states; a state without communities grants all its
 * published communities, listed communities narrow the state to them. null = the whole catalogue.
 */
export type CatalogueRestriction = { states: Array<{ state_id: number; community_ids: number[] }> } | null;

/**
 * Evaluation Mode (Authentication rule 9): test keys only, a frozen sample of projects fixed when it
 * starts. A client leaves it by commercial activation; until then staff (or the safety threshold) may pause it.
 */
export type AccessMode = { mode: 'commercial' } | { mode: 'evaluation'; sample_project_ids: number[]; started_at: string; paused: boolean };

/**
 * The account-specific image addresses `{base}/media/c/{account_token}/...` (spec: Image addresses) exist for
 * a client with a token: letters, digits, `_` and `-`, so it needs no escaping in a path. Unique across
 * clients (reserved like a slug), so a token names one account.
 */
export const ACCOUNT_TOKEN_PATTERN = /^[A-Za-z0-9_-]{4,64}$/;

export const COMMERCIAL_ACTIVATION_REASONS = ['payment', 'staff_authorisation'] as const;
export type CommercialActivationReason = (typeof COMMERCIAL_ACTIVATION_REASONS)[number];

export type ClientEvent =
  | DomainEvent<
      'ClientRegistered',
      Omit<ClientFields, 'limits' | keyof ClientPdfSettings> & {
        /** Absent in events recorded before clients could have limits of their own: the plan's. */
        limits?: PlanLimits | null;
        /** Absent in events recorded before clients had brochure settings: the plan's. */
        pdf_default_template?: ClientPdfSettings['pdf_default_template'];
        pdf_limits?: ClientPdfSettings['pdf_limits'];
        client_id: number;
        at: string;
      }
    >
  | DomainEvent<'ClientRevised', { client_id: number; changes: Partial<ClientFields>; at: string }>
  | DomainEvent<'ClientStatusChanged', { client_id: number; status: ClientStatus; previous_status: ClientStatus; at: string }>
  | DomainEvent<'ClientControlsSet', { client_id: number; controls: ClientControls; at: string }>
  | DomainEvent<'ClientRestrictionSet', { client_id: number; restriction: CatalogueRestriction; at: string }>
  | DomainEvent<'EvaluationStarted', { client_id: number; sample_project_ids: number[]; at: string }>
  | DomainEvent<'EvaluationPaused', { client_id: number; at: string }>
  | DomainEvent<'CommercialAccessActivated', { client_id: number; reason: CommercialActivationReason; at: string }>
  | DomainEvent<'ClientAccountTokenSet', { client_id: number; account_token: string | null; at: string }>;

/**
 * An API consumer (an agency, a portal). The aggregate's state is null before ClientRegistered. Only an
 * active client's keys are served: suspended and inactive clients get their own 403 codes.
 */
export type Client = ClientFields & {
  status: ClientStatus;
  controls: ClientControls;
  restriction: CatalogueRestriction;
  access_mode: AccessMode;
  /** null = no account-specific image addresses. */
  account_token: string | null;
};

export const clientStream = (id: number): string => `client-${id}`;

export function evolveClient(client: Client | null, event: ClientEvent): Client | null {
  switch (event.type) {
    case 'ClientRegistered': {
      const { name, plan_id, scopes, entitlements } = event.data;
      return {
        name,
        plan_id,
        scopes,
        entitlements,
        limits: event.data.limits ?? null,
        pdf_default_template: event.data.pdf_default_template ?? null,
        pdf_limits: event.data.pdf_limits ?? null,
        status: 'active',
        controls: noClientControls(),
        restriction: null,
        access_mode: { mode: 'commercial' },
        account_token: null,
      };
    }
    case 'ClientRevised':
      return client && { ...client, ...event.data.changes };
    case 'ClientStatusChanged':
      return client && { ...client, status: event.data.status };
    case 'ClientControlsSet':
      return client && { ...client, controls: event.data.controls };
    case 'ClientRestrictionSet':
      return client && { ...client, restriction: event.data.restriction };
    case 'EvaluationStarted':
    case 'EvaluationPaused':
    case 'CommercialAccessActivated':
      return client && { ...client, access_mode: nextAccessMode(client.access_mode, event) };
    case 'ClientAccountTokenSet':
      return client && { ...client, account_token: event.data.account_token };
    default:
      return assertNever(event);
  }
}

/** Shared with the access projection, so both read the same history the same way. */
export function nextAccessMode(
  current: AccessMode,
  event: Extract<ClientEvent, { type: 'EvaluationStarted' | 'EvaluationPaused' | 'CommercialAccessActivated' }>,
): AccessMode {
  switch (event.type) {
    case 'EvaluationStarted':
      return { mode: 'evaluation', sample_project_ids: event.data.sample_project_ids, started_at: event.data.at, paused: false };
    case 'EvaluationPaused':
      return current.mode === 'evaluation' ? { ...current, paused: true } : current;
    case 'CommercialAccessActivated':
      return { mode: 'commercial' };
    default:
      return assertNever(event);
  }
}

export const clientAggregate: Aggregate<Client | null, ClientEvent> = {
  category: 'client',
  streamName: clientStream,
  initialState: () => null,
  evolve: evolveClient,
  // The command handler reserves a new token before appending and releases the one it replaces or removes.
  slug: { resourceType: 'accountToken', of: (client) => client?.account_token ?? undefined, field: 'body.account_token' },
};
