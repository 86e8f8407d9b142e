import { EDITOR_ROLES, type EditorRole } from '../../access/editor.js';

/*
 * Who may run each admin operation. Every operation belongs to one permission group (by operationId, below),
 * and each role is a set of groups (ROLE_GROUPS), not a rung of a ladder: an operator administers access to
 * /v1 but may not edit, publish or delete catalogue content. One table, so that every operation's roles are
 * decided here and test/http/adminRoles.spec.ts can hold the served operations against it in both directions.
 *
 * - catalogueReads: reading the catalogue (its content, reference data, currency rates) and its history.
 * - catalogueEdits: editing the catalogue (its content, collections and reference data).
 * - publishing: what makes catalogue content appear or disappear for clients (publish, unpublish, delete), and
 *   the currency rates, which change every client's brochure prices at once.
 * - accessAdministration: who may use /v1 and how (plans, clients, keys, subscriptions, plan changes, usage,
 *   agent profiles, webhooks and their deliveries) and the service's status and metrics.
 * - editorAccounts: the editor accounts.
 */

const catalogueEdits = [
  'createState',
  'reviseState',
  'createCommunity',
  'reviseCommunity',
  'createSubCommunity',
  'reviseSubCommunity',
  'createDeveloper',
  'reviseDeveloper',
  'createUnitType',
  'reviseUnitType',
  'createProject',
  'reviseProject',
  'changeProjectStatus',
  'addFloorPlan',
  'reviseFloorPlan',
  'replaceFloorPlanImage',
  'removeFloorPlan',
  'addPaymentPlan',
  'revisePaymentPlan',
  'removePaymentPlan',
  'addGalleryPicture',
  'reviseGalleryPicture',
  'replaceGalleryPicture',
  'removeGalleryPicture',
  'attachMasterPlanDocument',
  'removeMasterPlanDocument',
  'setVideo',
  'removeVideo',
  'setAmenities',
  'setNearbyPlaces',
  'setPaymentMethods',
  'setFaqs',
  'setVirtualTours',
  'setFloorPlates',
  'setRelatedProjects',
  'attachBrochure',
  'removeBrochure',
];

const catalogueReads = [
  'getState',
  'listStates',
  'getStateHistory',
  'getCommunity',
  'listCommunities',
  'getCommunityHistory',
  'getSubCommunity',
  'listSubCommunities',
  'getSubCommunityHistory',
  'getDeveloper',
  'listDevelopers',
  'getDeveloperHistory',
  'getUnitType',
  'listUnitTypes',
  'getUnitTypeHistory',
  'getProject',
  'listProjects',
  'getProjectHistory',
  'listCurrencyRates',
  'getCurrencyRateHistory',
];

const publishing = [
  'publishState',
  'unpublishState',
  'publishCommunity',
  'unpublishCommunity',
  'publishSubCommunity',
  'unpublishSubCommunity',
  'publishDeveloper',
  'unpublishDeveloper',
  'publishProject',
  'unpublishProject',
  'deleteProject',
  'setCurrencyRate',
  'removeCurrencyRate',
  // A bulk import creates and edits catalogue records and may publish them (a line's `published`).
  'importCatalogue',
];

const accessAdministration = [
  'createPlan',
  'getPlan',
  'revisePlan',
  'listPlans',
  'getPlanHistory',
  'registerClient',
  'getClient',
  'reviseClient',
  'listClients',
  'getClientHistory',
  'changeClientStatus',
  'setClientControls',
  'setClientRestriction',
  'startEvaluation',
  'pauseEvaluation',
  'activateCommercialAccess',
  'setClientAccountToken',
  'generateClientAccountToken',
  'issueApiKey',
  'revokeApiKey',
  'deactivateApiKey',
  'reactivateApiKey',
  'rotateApiKey',
  'listApiKeys',
  'getApiKeyHistory',
  'setSubscription',
  'getSubscription',
  'listSubscriptions',
  'getSubscriptionHistory',
  'submitPlanChange',
  'getPlanChange',
  'listPlanChanges',
  'getPlanChangeHistory',
  'startPlanChangeReview',
  'approvePlanChange',
  'rejectPlanChange',
  'cancelPlanChange',
  'confirmPlanChangePayment',
  'authorisePlanChange',
  'createAgentProfile',
  'listClientAgentProfiles',
  'listAgentProfiles',
  'getAgentProfile',
  'getAgentProfileHistory',
  'reviseAgentProfile',
  'replaceAgentProfilePicture',
  'submitAgentProfile',
  'approveAgentProfile',
  'rejectAgentProfile',
  'deleteAgentProfile',
  'getUsageReport',
  'listWebhooks',
  'getWebhook',
  'getWebhookHistory',
  'enableWebhook',
  'disableWebhook',
  'retryWebhookDelivery',
  'getServiceStatus',
];

const editorAccounts = [
  'createEditor',
  'listEditors',
  'getEditor',
  'getEditorHistory',
  'reviseEditor',
  'issueEditorToken',
  'revokeEditorToken',
];

export const PERMISSION_GROUPS = ['catalogueReads', 'catalogueEdits', 'publishing', 'accessAdministration', 'editorAccounts'] as const;
export type PermissionGroup = (typeof PERMISSION_GROUPS)[number];

/**
 * The groups each role may run. An operator reads the catalogue too: reading changes nothing, and finding the
 * project or developer a client asks about is part of administering its access.
 */
export const ROLE_GROUPS: Readonly<Record<EditorRole, readonly PermissionGroup[]>> = {
  editor: ['catalogueReads', 'catalogueEdits'],
  publisher: ['catalogueReads', 'catalogueEdits', 'publishing'],
  operator: ['catalogueReads', 'accessAdministration'],
  admin: PERMISSION_GROUPS,
};

const inGroup = (group: PermissionGroup, operationIds: readonly string[]) =>
  operationIds.map((operationId) => [operationId, group] as const);

export const ADMIN_OPERATION_GROUPS: ReadonlyMap<string, PermissionGroup> = new Map([
  ...inGroup('catalogueReads', catalogueReads),
  ...inGroup('catalogueEdits', catalogueEdits),
  ...inGroup('publishing', publishing),
  ...inGroup('accessAdministration', accessAdministration),
  ...inGroup('editorAccounts', editorAccounts),
]);

/** Every role that may run what `group` holds, least first (in EDITOR_ROLES order). */
export const rolesWith = (group: PermissionGroup): readonly EditorRole[] =>
  EDITOR_ROLES.filter((role) => ROLE_GROUPS[role].includes(group));

/**
 * Every role that may run an operation, least first; one the table does not classify is for admin only, so
 * nothing new is open by omission.
 */
export function allowedRolesOf(operationId: string): readonly EditorRole[] {
  const group = ADMIN_OPERATION_GROUPS.get(operationId);
  return group ? rolesWith(group) : ['admin'];
}

/** `GET /metrics` on the API port: the service's state, which administering it needs (operator and admin). */
export const METRICS_ROLES = rolesWith('accessAdministration');

/** The least role that may run an operation: what 403 refusals and the OpenAPI document named when roles were a ladder. */
export const requiredRoleOf = (operationId: string): EditorRole => allowedRolesOf(operationId)[0]!;
