// A leaf: the client aggregate, the grants schemas and the access context all name these.
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
