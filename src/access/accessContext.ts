import type { LimitPolicy } from '../limits/limits.js';
import type { KeyEnvironment } from '../vocabulary/keyEnvironment.js';
import type { DetailField, Entitlement, Scope } from './grantNames.js';
import type { CatalogueRestriction, EnvironmentControls } from './client.js';

// The grant vocabulary lives in leaves (client.ts and src/limits use it too); re-exported as part of the context.
export { KEY_ENVIRONMENTS, type KeyEnvironment } from '../vocabulary/keyEnvironment.js';
export { DETAIL_FIELDS, ENTITLEMENTS, SCOPES, type DetailField, type Entitlement, type Scope } from './grantNames.js';

/** What a verified API key grants: read from the access read model on every request. */
export interface AccessContext {
  clientId: number;
  keyId: number;
  environment: KeyEnvironment;
  /** The plan's key (e.g. `professional`). */
  plan: string;
  scopes: ReadonlySet<Scope>;
  entitlements: ReadonlySet<Entitlement>;
  /** Enterprise request signing is required of this client (Authentication rule 6). */
  requestSigning: boolean;
  /** The authorised domain and IP policy of the key's environment (Authentication rule 7). */
  networkControls: EnvironmentControls;
  /**
   * The authorised domain of the client's live environment, whatever the key's environment: a test key sent
   * to it is in a live context (Authentication rule 3, src/http/networkControls.ts).
   */
  liveDomain: string | null;
  /** Authentication rule 8 (queries/catalogueScope.ts); null = the whole catalogue. */
  restriction: CatalogueRestriction;
  /** What the limiter enforces for the key's environment (from the plan), overage price included. */
  limitPolicy: LimitPolicy;
  /** The detail fields the plan exposes; null = all of them. */
  detailFields: ReadonlySet<DetailField> | null;
  /** Evaluation Mode (rule 9): its frozen sample and when it started; null = commercial access. */
  evaluation: { sample: ReadonlySet<number>; startedAt: string } | null;
}
