import type { EditorRole } from '../../access/editor.js';

/*
 * The role each admin operation needs, by operationId: the least role that may run it (each role includes
 * the ones before it, see EDITOR_ROLES). One table, so that every operation's role is decided here and
 * test/http/adminRoles.spec.ts can hold the served operations against it in both directions.
 *
 * - editor: reading and editing the catalogue (its content, collections and reference data).
 * - publisher: what makes catalogue content appear or disappear for clients (publish, unpublish, delete), and
 *   the currency rates, which change every client's brochure prices at once.
 * - operator: who may use /v1 and how (plans, clients, keys, subscriptions, plan changes, usage, agent
 *   profiles, webhooks and their deliveries) and the service's status.
 * - admin: the editor accounts.
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
];

const operations = [
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

const rolesOf = (role: EditorRole, operationIds: readonly string[]) => operationIds.map((operationId) => [operationId, role] as const);

export const ADMIN_OPERATION_ROLES: ReadonlyMap<string, EditorRole> = new Map([
  ...rolesOf('editor', [...catalogueEdits, ...catalogueReads]),
  ...rolesOf('publisher', publishing),
  ...rolesOf('operator', operations),
  ...rolesOf('admin', editorAccounts),
]);

/** The role an operation needs; one the table does not classify needs admin, so nothing new is open by omission. */
export const requiredRoleOf = (operationId: string): EditorRole => ADMIN_OPERATION_ROLES.get(operationId) ?? 'admin';
