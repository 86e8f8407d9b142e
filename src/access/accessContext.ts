import type { LimitPolicy } from '../limits/limits.js';
import type { KeyEnvironment } from '../vocabulary/keyEnvironment.js';
import type { CatalogueRestriction, EnvironmentControls } from './client.js';

// Part of the access vocabulary too; defined in a leaf so that src/limits need not import src/access.
export { KEY_ENVIRONMENTS, type KeyEnvironment } from '../vocabulary/keyEnvironment.js';

/** Scopes and entitlements as the spec's Authentication section names them. */
export const SCOPES = [
  'projects:read',
  'projects:sync',
  'developers:read',
  'communities:read',
  'states:read',
  'subcommunities:read',
  'catalog:read',
  'floorplans:read',
  'paymentplans:read',
  'media:read',
  'amenities:read',
  'nearby:read',
  'paymentmethods:read',
  'faqs:read',
  'virtualtours:read',
  'floorplates:read',
  'brochures:read',
  'project-pdf:generate',
  'webhooks:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

export const ENTITLEMENTS = ['floorplans', 'images', 'virtual_tours', 'floorplates', 'brochures', 'project_pdf', 'webhooks'] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];

/** The fields only the project detail representation has; a plan may expose some of them only. */
export const DETAIL_FIELDS = [
  'overview',
  'description',
  'master_plan',
  'property_no',
  'license_no',
  'project_types',
  'video_description',
  'map_embed_html',
  'down_payment_percent',
  'service_charges',
] as const;
export type DetailField = (typeof DETAIL_FIELDS)[number];

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
