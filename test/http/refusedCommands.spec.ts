import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRoutes } from '../../src/http/adminRouter.js';
import type { AdminRoute } from '../../src/http/adminRoute.js';
import { request, type Answer } from '../support/http.js';
import { storedImage, storedPdf } from '../support/storedFiles.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/**
 * Every admin command, refused in each way its contract documents, through HTTP against the real service:
 * a refused command must leave the event store exactly as it was (no id allocation, no slug reservation,
 * no event), which the store's head position shows.
 */

/** What the refusals are provoked on; built through the admin API before the tests. */
interface World {
  stateId: number;
  otherStateId: number;
  communityId: number;
  otherCommunityId: number;
  subCommunityId: number;
  developerId: number;
  unitTypeId: number;
  projectId: number;
  otherProjectId: number;
  deletedProjectId: number;
  floorPlanId: number;
  paymentPlanId: number;
  mediaId: number;
  planId: number;
  clientId: number;
  otherClientId: number;
  keyId: number;
  revokedKeyId: number;
  rotatedKeyId: number;
  submittedRequestId: number;
  underReviewRequestId: number;
  rejectedRequestId: number;
  /** Approved for a move to a plan deactivated since. */
  strandedRequestId: number;
  /** A draft agent profile of clientId. */
  agentProfileId: number;
  approvedAgentProfileId: number;
  deletedAgentProfileId: number;
  /** A webhook of clientId, created through /v1, and a deleted one. */
  webhookId: string;
  deletedWebhookId: string;
  /** An editor account with a token, another one's token, and a deactivated account. */
  editorId: number;
  tokenId: number;
  otherEditorTokenId: number;
  deactivatedEditorId: number;
}

interface Refusal {
  operationId: string;
  /** Completes "when <operationId> gets ...". */
  when: string;
  /** Path parameters that differ from the existing resources of existingParams. */
  params?: (world: World) => Record<string, number | string>;
  /** Sent as JSON. */
  body?: (world: World) => unknown;
  /** Sent as it is, instead of a JSON body. */
  rawBody?: string;
  headers?: Record<string, string>;
  status: number;
  code: string;
}

const UNKNOWN_ID = 999_999;
/** Path parameters whose ids are not numbers. */
const UNKNOWN_IDS: Record<string, string> = { webhookId: `wh_${'f'.repeat(24)}`, currencyCode: 'XXX' };
const STALE_REVISION = 999;
const OVERSIZED_BODY = JSON.stringify({ padding: 'x'.repeat(1024 * 1024) });

/** Files the bodies name, stored in the test app's blob store before the tests (a ref must name a stored file). */
const IMAGE_NAMES = [
  'floor-plan-a',
  'floor-plan-a2',
  'floor-plan-c',
  'gallery-1',
  'gallery-2',
  'gallery-3',
  'x',
  'portrait-1',
  'portrait-2',
];
const PDF_NAMES = ['master-plan', 'brochure'];
const storedRefs = new Map<string, object>();
const storedRef = (name: string) => {
  const ref = storedRefs.get(name);
  if (!ref) throw new Error(`No stored file is named ${name}.`);
  return ref;
};
const anImage = (name: string) => storedRef(`image ${name}`);
const aPdf = (name: string) => storedRef(`pdf ${name}`);
const aProject = (world: World, overrides: Record<string, unknown> = {}) => ({
  name: 'Creek Views',
  slug: 'creek-views',
  developer_id: world.developerId,
  state_id: world.stateId,
  community_id: world.communityId,
  nature: 'off_plan',
  ...overrides,
});
const noEnvironmentControls = { domain: null, ip_allow: [], ip_deny: [] };
const anAgentProfile = (overrides: Record<string, unknown> = {}) => ({
  agent_name: 'Sara Haddad',
  company_name: 'Marina Homes',
  email: 'sara@marina-homes.example',
  phone: '+971 50 123 4567',
  ...overrides,
});

/** The resource each path parameter names unless a refusal names another. */
const existingParams = (world: World): Record<string, number | string> => ({
  stateId: world.stateId,
  communityId: world.communityId,
  subCommunityId: world.subCommunityId,
  developerId: world.developerId,
  unitTypeId: world.unitTypeId,
  projectId: world.projectId,
  floorPlanId: world.floorPlanId,
  paymentPlanId: world.paymentPlanId,
  mediaId: world.mediaId,
  planId: world.planId,
  clientId: world.clientId,
  keyId: world.keyId,
  requestId: world.underReviewRequestId,
  agentProfileId: world.agentProfileId,
  webhookId: world.webhookId,
  currencyCode: 'EUR',
  editorId: world.editorId,
  tokenId: world.tokenId,
});

/**
 * For every operation with a body, one the operation would accept on the existing resources: the generic
 * refusals below spoil exactly one thing about the request (an id, the revision, a field, the media type).
 */
const acceptedBodies: Record<string, (world: World) => unknown> = {
  createState: () => ({ name: 'Sharjah', slug: 'sharjah', country_code: 'AE' }),
  reviseState: () => ({ name: 'Dubai Emirate' }),
  createCommunity: (world) => ({ state_id: world.stateId, name: 'Jumeirah Lake Towers', slug: 'jlt' }),
  reviseCommunity: () => ({ name: 'Marina' }),
  createSubCommunity: (world) => ({ community_id: world.communityId, name: 'Cluster A', slug: 'cluster-a' }),
  reviseSubCommunity: () => ({ name: 'Promenade' }),
  createDeveloper: () => ({ name: 'Damac', slug: 'damac' }),
  reviseDeveloper: () => ({ name: 'Emaar Properties' }),
  createUnitType: () => ({ name: '2 Bedrooms', kind: 'bedrooms', bedrooms: 2, sort_order: 2 }),
  reviseUnitType: () => ({ name: 'Studio flat' }),
  createProject: (world) => aProject(world),
  reviseProject: () => ({ name: 'Marina Heights Tower' }),
  changeProjectStatus: () => ({ status: 'under_construction' }),
  addFloorPlan: () => ({ title: 'Type C', image: anImage('floor-plan-c') }),
  reviseFloorPlan: () => ({ title: 'Type A2' }),
  replaceFloorPlanImage: () => ({ image: anImage('floor-plan-a2') }),
  addPaymentPlan: () => ({
    name: '60/40',
    milestones: [
      { label: 'Booking', percent: 60, due: null },
      { label: 'Handover', percent: 40, due: null },
    ],
  }),
  revisePaymentPlan: () => ({ name: 'Easy' }),
  addGalleryPicture: () => ({ image: anImage('gallery-2') }),
  reviseGalleryPicture: () => ({ caption: 'Lobby at night' }),
  replaceGalleryPicture: () => ({ image: anImage('gallery-3') }),
  attachMasterPlanDocument: () => aPdf('master-plan'),
  setVideo: () => ({ title: 'Walkthrough', external_url: 'https://video.example.com/walkthrough' }),
  setAmenities: () => ({ items: [{ name: 'Pool', icon: null }] }),
  setNearbyPlaces: () => ({ items: [{ name: 'Metro', category: 'transport', distance_km: 0.5 }] }),
  setPaymentMethods: () => ({ items: [{ name: 'Cash', description: 'At the sales office' }] }),
  setFaqs: () => ({ items: [{ question: 'When is handover?', answer: 'In 2027.' }] }),
  setVirtualTours: () => ({ items: [{ title: 'Show flat', url: 'https://tours.example.com/show-flat' }] }),
  setFloorPlates: () => ({ items: [{ title: 'Podium', floors: '1-3', image: null }] }),
  setRelatedProjects: (world) => ({ project_ids: [world.otherProjectId] }),
  attachBrochure: () => aPdf('brochure'),
  createPlan: () => ({ key: 'gold', name: 'Gold', scopes: [], entitlements: [] }),
  revisePlan: () => ({ name: 'Basic plan' }),
  registerClient: () => ({ name: 'Creek Realty', plan: 'basic' }),
  reviseClient: () => ({ name: 'Marina Homes LLC' }),
  changeClientStatus: () => ({ status: 'suspended' }),
  setClientControls: () => ({ request_signing: true, environments: { live: noEnvironmentControls, test: noEnvironmentControls } }),
  setClientAccountToken: () => ({ account_token: 'creek-realty' }),
  setClientRestriction: (world) => ({ restriction: { states: [{ state_id: world.stateId, community_ids: [] }] } }),
  startEvaluation: () => ({}),
  pauseEvaluation: () => ({}),
  activateCommercialAccess: () => ({ reason: 'payment' }),
  issueApiKey: () => ({ environment: 'test' }),
  rotateApiKey: () => ({}),
  setSubscription: () => ({
    status: 'active',
    period_start: '2024-01-01T00:00:00Z',
    period_end: null,
    trial_ends_at: null,
    payment_due_at: null,
    grace_days: 0,
    paid: true,
  }),
  submitPlanChange: () => ({ plan: 'wide' }),
  approvePlanChange: () => ({ currency: 'AED', lines: [{ description: 'Wide plan, 12 months', quantity: 12, unit_amount: 99_950 }] }),
  rejectPlanChange: () => ({ reason: 'Not this year' }),
  createAgentProfile: () => anAgentProfile(),
  reviseAgentProfile: () => ({ company_name: 'Creek Homes' }),
  replaceAgentProfilePicture: () => ({ picture: anImage('portrait-2') }),
  rejectAgentProfile: () => ({ reason: 'Blurry portrait' }),
  setCurrencyRate: () => ({ per_aed: 0.25 }),
  createEditor: () => ({ name: 'Omar Farouk', role: 'editor' }),
  reviseEditor: () => ({ role: 'publisher' }),
  issueEditorToken: () => ({}),
};

const commandRoutes = adminRoutes.filter((route) => route.method !== 'get');
const paramNames = (route: AdminRoute): string[] => [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
const routeOf = (operationId: string): AdminRoute => {
  const route = adminRoutes.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`The admin route table has no operation ${operationId}.`);
  return route;
};

/** The refusals every command has by the shape of its route: ids, revision, fields, media type, size. */
function refusalsByShape(route: AdminRoute): Refusal[] {
  const { operationId } = route;
  const accepted = route.body ? acceptedBodies[operationId] : () => undefined;
  if (!accepted) return [];
  const refusals: Refusal[] = [
    {
      operationId,
      when: 'a body field it does not know',
      body: (world) => ({ ...(accepted(world) ?? {}), unexpected_field: true }),
      status: 422,
      code: 'VALIDATION_FAILED',
    },
  ];
  if (route.body) {
    refusals.push(
      {
        operationId,
        when: 'a body that is not JSON',
        rawBody: 'name=Dubai',
        headers: { 'content-type': 'text/plain' },
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      },
      {
        operationId,
        when: 'a body over 1 MB',
        rawBody: OVERSIZED_BODY,
        headers: { 'content-type': 'application/json' },
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
      },
      {
        operationId,
        when: 'malformed JSON',
        rawBody: '{"name": ',
        headers: { 'content-type': 'application/json' },
        status: 422,
        code: 'VALIDATION_FAILED',
      },
      {
        operationId,
        when: 'a gzip body that does not inflate',
        rawBody: 'not gzip at all',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        status: 400,
        code: 'BAD_REQUEST',
      },
    );
  }
  const names = paramNames(route);
  if (names.length > 0) {
    refusals.push(
      {
        operationId,
        when: 'ids of resources that do not exist',
        params: () => Object.fromEntries(names.map((name) => [name, UNKNOWN_IDS[name] ?? UNKNOWN_ID])),
        body: accepted,
        status: 404,
        code: 'NOT_FOUND',
      },
      {
        operationId,
        when: 'an id that is not a number',
        params: () => ({ [names.at(-1)!]: 'first' }),
        body: accepted,
        status: 422,
        code: 'VALIDATION_FAILED',
      },
    );
  }
  // Every write takes If-Match; a create has no revision yet, so any revision it names is stale too.
  refusals.push({
    operationId,
    when: names.length > 0 ? 'a stale If-Match' : 'If-Match naming a revision of what it would create',
    headers: { 'if-match': `"${STALE_REVISION}"` },
    body: accepted,
    status: 409,
    code: 'CONFLICT',
  });
  return refusals;
}

const PROJECT_DELETED = { status: 409, code: 'PROJECT_DELETED' } as const;
const VALIDATION_FAILED = { status: 422, code: 'VALIDATION_FAILED' } as const;
const SLUG_TAKEN = { status: 409, code: 'SLUG_TAKEN' } as const;
const NOT_FOUND = { status: 404, code: 'NOT_FOUND' } as const;
const CONFLICT = { status: 409, code: 'CONFLICT' } as const;

/** Every command on a project refuses a deleted one. */
const refusalsOfDeletedProject: Refusal[] = commandRoutes
  .filter((route) => paramNames(route).includes('projectId'))
  .map((route) => ({
    operationId: route.operationId,
    when: 'a deleted project',
    params: (world) => ({ projectId: world.deletedProjectId }),
    body: acceptedBodies[route.operationId] ?? (() => undefined),
    ...PROJECT_DELETED,
  }));

/** The refusals each handler or decider makes of a well-formed request. */
const refusalsByRule: Refusal[] = [
  {
    operationId: 'createState',
    when: 'a slug another state has',
    body: () => ({ name: 'Dubai again', slug: 'dubai', country_code: 'AE' }),
    ...SLUG_TAKEN,
  },
  { operationId: 'reviseState', when: 'a slug another state has', body: () => ({ slug: 'abu-dhabi' }), ...SLUG_TAKEN },
  { operationId: 'reviseState', when: 'no field to change', body: () => ({}), ...VALIDATION_FAILED },

  {
    operationId: 'createCommunity',
    when: 'a slug another community has',
    body: (w) => ({ state_id: w.stateId, name: 'Marina', slug: 'dubai-marina' }),
    ...SLUG_TAKEN,
  },
  {
    operationId: 'createCommunity',
    when: 'a state that does not exist',
    body: () => ({ state_id: UNKNOWN_ID, name: 'Nowhere', slug: 'nowhere' }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'reviseCommunity', when: 'a slug another community has', body: () => ({ slug: 'saadiyat' }), ...SLUG_TAKEN },
  { operationId: 'reviseCommunity', when: 'a state that does not exist', body: () => ({ state_id: UNKNOWN_ID }), ...VALIDATION_FAILED },
  { operationId: 'reviseCommunity', when: 'no field to change', body: () => ({}), ...VALIDATION_FAILED },

  {
    operationId: 'createSubCommunity',
    when: 'a slug another sub-community has',
    body: (w) => ({ community_id: w.communityId, name: 'Promenade', slug: 'marina-promenade' }),
    ...SLUG_TAKEN,
  },
  {
    operationId: 'createSubCommunity',
    when: 'a community that does not exist',
    body: () => ({ community_id: UNKNOWN_ID, name: 'Nowhere', slug: 'nowhere' }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'reviseSubCommunity', when: 'a slug another sub-community has', body: () => ({ slug: 'marina-walk' }), ...SLUG_TAKEN },
  {
    operationId: 'reviseSubCommunity',
    when: 'a community that does not exist',
    body: () => ({ community_id: UNKNOWN_ID }),
    ...VALIDATION_FAILED,
  },

  {
    operationId: 'createDeveloper',
    when: 'a slug another developer has',
    body: () => ({ name: 'Emaar again', slug: 'emaar' }),
    ...SLUG_TAKEN,
  },
  {
    operationId: 'createDeveloper',
    when: 'a founding year in the future',
    body: () => ({ name: 'Future', slug: 'future', established_year: 2999 }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'reviseDeveloper', when: 'a slug another developer has', body: () => ({ slug: 'nakheel' }), ...SLUG_TAKEN },
  { operationId: 'reviseDeveloper', when: 'no field to change', body: () => ({}), ...VALIDATION_FAILED },

  {
    operationId: 'createUnitType',
    when: 'bedrooms that do not fit its kind',
    body: () => ({ name: 'Odd studio', kind: 'studio', bedrooms: 2, sort_order: 9 }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'reviseUnitType', when: 'bedrooms that do not fit its kind', body: () => ({ bedrooms: 3 }), ...VALIDATION_FAILED },
  { operationId: 'reviseUnitType', when: 'no field to change', body: () => ({}), ...VALIDATION_FAILED },

  { operationId: 'createProject', when: 'a slug another project has', body: (w) => aProject(w, { slug: 'marina-heights' }), ...SLUG_TAKEN },
  {
    operationId: 'createProject',
    when: 'a developer that does not exist',
    body: (w) => aProject(w, { developer_id: UNKNOWN_ID }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'createProject',
    when: 'a community in another state',
    body: (w) => aProject(w, { community_id: w.otherCommunityId }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'createProject',
    when: 'a unit type twice',
    body: (w) => aProject(w, { unit_type_ids: [w.unitTypeId, w.unitTypeId] }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'reviseProject', when: 'a slug another project has', body: () => ({ slug: 'marina-views' }), ...SLUG_TAKEN },
  {
    operationId: 'reviseProject',
    when: 'a developer that does not exist',
    body: () => ({ developer_id: UNKNOWN_ID }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'reviseProject', when: 'no field to change', body: () => ({}), ...VALIDATION_FAILED },

  {
    operationId: 'addGalleryPicture',
    when: 'a picture that names no stored file',
    body: () => ({ image: { ...anImage('gallery-2'), key: 'f'.repeat(64) } }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'addGalleryPicture',
    when: 'a picture whose size differs from the stored file',
    body: () => ({ image: { ...anImage('gallery-2'), width: 4000 } }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'addFloorPlan',
    when: 'a unit type that does not exist',
    body: () => ({ title: 'Type X', unit_type_id: UNKNOWN_ID, image: anImage('x') }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'reviseFloorPlan',
    when: 'a floor plan the project does not have',
    params: () => ({ floorPlanId: UNKNOWN_ID }),
    body: () => ({ title: 'x' }),
    ...NOT_FOUND,
  },
  { operationId: 'reviseFloorPlan', when: 'no field to change', body: () => ({}), ...VALIDATION_FAILED },
  {
    operationId: 'replaceFloorPlanImage',
    when: 'a floor plan the project does not have',
    params: () => ({ floorPlanId: UNKNOWN_ID }),
    body: () => ({ image: anImage('x') }),
    ...NOT_FOUND,
  },
  {
    operationId: 'removeFloorPlan',
    when: 'a floor plan the project does not have',
    params: () => ({ floorPlanId: UNKNOWN_ID }),
    ...NOT_FOUND,
  },
  {
    operationId: 'addPaymentPlan',
    when: 'milestones that do not sum to 100',
    body: () => ({
      name: 'Short',
      milestones: [
        { label: 'Booking', percent: 20, due: null },
        { label: 'Handover', percent: 70, due: null },
      ],
    }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'revisePaymentPlan',
    when: 'a payment plan the project does not have',
    params: () => ({ paymentPlanId: UNKNOWN_ID }),
    body: () => ({ name: 'x' }),
    ...NOT_FOUND,
  },
  {
    operationId: 'revisePaymentPlan',
    when: 'milestones that do not sum to 100',
    body: () => ({ milestones: [{ label: 'All', percent: 90, due: null }] }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'removePaymentPlan',
    when: 'a payment plan the project does not have',
    params: () => ({ paymentPlanId: UNKNOWN_ID }),
    ...NOT_FOUND,
  },
  {
    operationId: 'reviseGalleryPicture',
    when: 'a picture the project does not have',
    params: () => ({ mediaId: UNKNOWN_ID }),
    body: () => ({ caption: 'x' }),
    ...NOT_FOUND,
  },
  {
    operationId: 'replaceGalleryPicture',
    when: 'a picture the project does not have',
    params: () => ({ mediaId: UNKNOWN_ID }),
    body: () => ({ image: anImage('x') }),
    ...NOT_FOUND,
  },
  {
    operationId: 'removeGalleryPicture',
    when: 'a picture the project does not have',
    params: () => ({ mediaId: UNKNOWN_ID }),
    ...NOT_FOUND,
  },
  {
    operationId: 'setVideo',
    when: 'both an external address and a file',
    body: () => ({
      title: 'Both',
      external_url: 'https://video.example.com/both',
      file: { key: 'video-1', file_name: 'video-1.mp4', size_bytes: 1_000_000, content_type: 'video/mp4' },
    }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'setRelatedProjects', when: 'the project itself', body: (w) => ({ project_ids: [w.projectId] }), ...VALIDATION_FAILED },
  {
    operationId: 'setRelatedProjects',
    when: 'a project that does not exist',
    body: () => ({ project_ids: [UNKNOWN_ID] }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'setRelatedProjects',
    when: 'a deleted project to relate to',
    body: (w) => ({ project_ids: [w.deletedProjectId] }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'setRelatedProjects',
    when: 'a project twice',
    body: (w) => ({ project_ids: [w.otherProjectId, w.otherProjectId] }),
    ...VALIDATION_FAILED,
  },

  {
    operationId: 'createPlan',
    when: 'a key another plan has',
    body: () => ({ key: 'basic', name: 'Basic again', scopes: [], entitlements: [] }),
    ...SLUG_TAKEN,
  },
  { operationId: 'revisePlan', when: 'no field to change', body: () => ({}), ...VALIDATION_FAILED },
  {
    operationId: 'registerClient',
    when: 'a plan that does not exist',
    body: () => ({ name: 'Creek Realty', plan: 'platinum' }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'registerClient',
    when: 'an inactive plan',
    body: () => ({ name: 'Creek Realty', plan: 'retired' }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'reviseClient', when: 'an inactive plan', body: () => ({ plan: 'retired' }), ...VALIDATION_FAILED },
  { operationId: 'reviseClient', when: 'no field to change', body: () => ({}), ...VALIDATION_FAILED },
  {
    operationId: 'setClientRestriction',
    when: 'a state that does not exist',
    body: () => ({ restriction: { states: [{ state_id: UNKNOWN_ID, community_ids: [] }] } }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'setClientRestriction',
    when: 'a community of another state',
    body: (w) => ({ restriction: { states: [{ state_id: w.stateId, community_ids: [w.otherCommunityId] }] } }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'setClientAccountToken',
    when: "another client's token",
    body: () => ({ account_token: 'creek-agency' }),
    status: 409,
    code: 'ACCOUNT_TOKEN_TAKEN',
  },
  { operationId: 'startEvaluation', when: 'a catalogue with too few published projects to sample', body: () => ({}), ...CONFLICT },
  { operationId: 'pauseEvaluation', when: 'a client that is not in Evaluation Mode', body: () => ({}), ...CONFLICT },
  {
    operationId: 'issueApiKey',
    when: 'an expiry in the past',
    body: () => ({ environment: 'live', expires_at: '2001-01-01T00:00:00Z' }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'revokeApiKey', when: "another client's key", params: (w) => ({ clientId: w.otherClientId }), ...NOT_FOUND },
  { operationId: 'deactivateApiKey', when: 'a revoked key', params: (w) => ({ keyId: w.revokedKeyId }), ...CONFLICT },
  { operationId: 'reactivateApiKey', when: 'a revoked key', params: (w) => ({ keyId: w.revokedKeyId }), ...CONFLICT },
  { operationId: 'rotateApiKey', when: 'a revoked key', params: (w) => ({ keyId: w.revokedKeyId }), body: () => ({}), ...CONFLICT },
  { operationId: 'rotateApiKey', when: 'a key rotated before', params: (w) => ({ keyId: w.rotatedKeyId }), body: () => ({}), ...CONFLICT },
  {
    operationId: 'rotateApiKey',
    when: "another client's key",
    params: (w) => ({ clientId: w.otherClientId }),
    body: () => ({}),
    ...NOT_FOUND,
  },
  {
    operationId: 'setSubscription',
    when: 'a period that ends before it starts',
    body: () => ({ ...(acceptedBodies.setSubscription!({} as World) as object), period_end: '2023-01-01T00:00:00Z' }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'submitPlanChange', when: 'the plan the client is on', body: () => ({ plan: 'basic' }), ...VALIDATION_FAILED },
  { operationId: 'submitPlanChange', when: 'an inactive plan', body: () => ({ plan: 'retired' }), ...VALIDATION_FAILED },
  { operationId: 'startPlanChangeReview', when: 'a rejected request', params: (w) => ({ requestId: w.rejectedRequestId }), ...CONFLICT },
  { operationId: 'startPlanChangeReview', when: "another client's request", params: (w) => ({ clientId: w.otherClientId }), ...NOT_FOUND },
  {
    operationId: 'approvePlanChange',
    when: 'a request not under review',
    params: (w) => ({ requestId: w.submittedRequestId }),
    body: acceptedBodies.approvePlanChange!,
    ...CONFLICT,
  },
  {
    operationId: 'rejectPlanChange',
    when: 'a rejected request',
    params: (w) => ({ requestId: w.rejectedRequestId }),
    body: acceptedBodies.rejectPlanChange!,
    ...CONFLICT,
  },
  { operationId: 'cancelPlanChange', when: 'a rejected request', params: (w) => ({ requestId: w.rejectedRequestId }), ...CONFLICT },
  {
    operationId: 'confirmPlanChangePayment',
    when: 'a request not approved',
    params: (w) => ({ requestId: w.submittedRequestId }),
    ...CONFLICT,
  },
  {
    operationId: 'confirmPlanChangePayment',
    when: 'a request for a plan deactivated since',
    params: (w) => ({ requestId: w.strandedRequestId }),
    ...CONFLICT,
  },
  { operationId: 'authorisePlanChange', when: 'a request not approved', params: (w) => ({ requestId: w.submittedRequestId }), ...CONFLICT },
  {
    operationId: 'authorisePlanChange',
    when: 'a request for a plan deactivated since',
    params: (w) => ({ requestId: w.strandedRequestId }),
    ...CONFLICT,
  },

  {
    operationId: 'createAgentProfile',
    when: 'a malformed e-mail address',
    body: () => anAgentProfile({ email: 'sara' }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'createAgentProfile',
    when: 'a phone number without its country code',
    body: () => anAgentProfile({ phone: '050 123 4567' }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'createAgentProfile',
    when: 'a picture that names no stored file',
    body: () => anAgentProfile({ picture: { ...anImage('portrait-1'), key: 'f'.repeat(64) } }),
    ...VALIDATION_FAILED,
  },
  { operationId: 'reviseAgentProfile', when: 'no field to change', body: () => ({}), ...VALIDATION_FAILED },
  {
    operationId: 'reviseAgentProfile',
    when: 'a deleted profile',
    params: (w) => ({ agentProfileId: w.deletedAgentProfileId }),
    body: acceptedBodies.reviseAgentProfile!,
    ...NOT_FOUND,
  },
  {
    operationId: 'replaceAgentProfilePicture',
    when: 'a picture whose size differs from the stored file',
    body: () => ({ picture: { ...anImage('portrait-2'), width: 4000 } }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'submitAgentProfile',
    when: 'an approved profile',
    params: (w) => ({ agentProfileId: w.approvedAgentProfileId }),
    ...CONFLICT,
  },
  { operationId: 'approveAgentProfile', when: 'a draft', ...CONFLICT },
  { operationId: 'rejectAgentProfile', when: 'a draft', body: acceptedBodies.rejectAgentProfile!, ...CONFLICT },
  {
    operationId: 'deleteAgentProfile',
    when: 'a deleted profile',
    params: (w) => ({ agentProfileId: w.deletedAgentProfileId }),
    ...NOT_FOUND,
  },
  {
    operationId: 'setCurrencyRate',
    when: 'AED, the base of every rate',
    params: () => ({ currencyCode: 'AED' }),
    body: acceptedBodies.setCurrencyRate!,
    ...VALIDATION_FAILED,
  },
  { operationId: 'setCurrencyRate', when: 'a rate of 0', body: () => ({ per_aed: 0 }), ...VALIDATION_FAILED },
  { operationId: 'removeCurrencyRate', when: 'a currency with no rate set', params: () => ({ currencyCode: 'INR' }), ...NOT_FOUND },
  { operationId: 'enableWebhook', when: 'a deleted webhook', params: (w) => ({ webhookId: w.deletedWebhookId }), ...NOT_FOUND },
  { operationId: 'disableWebhook', when: 'a deleted webhook', params: (w) => ({ webhookId: w.deletedWebhookId }), ...NOT_FOUND },
  { operationId: 'createEditor', when: 'a role that does not exist', body: () => ({ name: 'Omar', role: 'owner' }), ...VALIDATION_FAILED },
  { operationId: 'createEditor', when: 'an empty name', body: () => ({ name: ' ', role: 'editor' }), ...VALIDATION_FAILED },
  { operationId: 'reviseEditor', when: 'no field to change', body: () => ({}), ...VALIDATION_FAILED },
  {
    operationId: 'issueEditorToken',
    when: 'a deactivated account',
    params: (w) => ({ editorId: w.deactivatedEditorId }),
    body: acceptedBodies.issueEditorToken!,
    ...CONFLICT,
  },
  {
    operationId: 'issueEditorToken',
    when: 'an expiry in the past',
    body: () => ({ expires_at: '2020-01-01T00:00:00Z' }),
    ...VALIDATION_FAILED,
  },
  {
    operationId: 'revokeEditorToken',
    when: "another account's token",
    params: (w) => ({ tokenId: w.otherEditorTokenId }),
    ...NOT_FOUND,
  },
];

const refusals: Refusal[] = [...commandRoutes.flatMap(refusalsByShape), ...refusalsOfDeletedProject, ...refusalsByRule];

function pathOf(route: AdminRoute, params: Record<string, number | string>): string {
  return route.path.replace(/:(\w+)/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`No resource is known for the path parameter ${name} of ${route.operationId}.`);
    return String(value);
  });
}

describe('refused admin commands', () => {
  let app: TestApp;
  let world: World;

  const admin = (
    method: string,
    path: string,
    options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> =>
    request(app.baseUrl, `/admin/v1${path}`, {
      method,
      token: app.adminToken,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(options.rawBody !== undefined ? { body: options.rawBody } : options.body !== undefined ? { body: options.body } : {}),
    });

  /** Runs a command that must succeed and answers its data. */
  const accepted = async (method: string, path: string, body?: unknown): Promise<{ id: number }> => {
    const answer = await admin(method, path, body === undefined ? {} : { body });
    if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  };

  async function buildWorld(): Promise<World> {
    const stateId = (await accepted('POST', '/states', { name: 'Dubai', slug: 'dubai', country_code: 'AE' })).id;
    const otherStateId = (await accepted('POST', '/states', { name: 'Abu Dhabi', slug: 'abu-dhabi', country_code: 'AE' })).id;
    const communityId = (await accepted('POST', '/communities', { state_id: stateId, name: 'Dubai Marina', slug: 'dubai-marina' })).id;
    const otherCommunityId = (await accepted('POST', '/communities', { state_id: otherStateId, name: 'Saadiyat', slug: 'saadiyat' })).id;
    const subCommunityId = (
      await accepted('POST', '/sub-communities', { community_id: communityId, name: 'Marina Promenade', slug: 'marina-promenade' })
    ).id;
    await accepted('POST', '/sub-communities', { community_id: communityId, name: 'Marina Walk', slug: 'marina-walk' });
    const developerId = (await accepted('POST', '/developers', { name: 'Emaar', slug: 'emaar' })).id;
    await accepted('POST', '/developers', { name: 'Nakheel', slug: 'nakheel' });
    const unitTypeId = (await accepted('POST', '/unit-types', { name: 'Studio', kind: 'studio', bedrooms: 0, sort_order: 0 })).id;
    const place = { developer_id: developerId, state_id: stateId, community_id: communityId, nature: 'off_plan' };
    const projectId = (await accepted('POST', '/projects', { name: 'Marina Heights', slug: 'marina-heights', ...place })).id;
    const otherProjectId = (await accepted('POST', '/projects', { name: 'Marina Views', slug: 'marina-views', ...place })).id;
    const deletedProjectId = (await accepted('POST', '/projects', { name: 'Marina Gone', slug: 'marina-gone', ...place })).id;
    await accepted('DELETE', `/projects/${deletedProjectId}`);
    const project = `/projects/${projectId}`;
    await accepted('POST', `${project}/floor-plans`, { title: 'Type A', image: anImage('floor-plan-a') });
    await accepted('POST', `${project}/payment-plans`, { name: 'Full', milestones: [{ label: 'Booking', percent: 100, due: null }] });
    const withAll = (await accepted('POST', `${project}/gallery`, { image: anImage('gallery-1') })) as unknown as {
      floor_plans: Array<{ floor_plan_id: number }>;
      payment_plans: Array<{ payment_plan_id: number }>;
      gallery: Array<{ media_id: number }>;
    };

    const planId = (await accepted('POST', '/plans', { key: 'basic', name: 'Basic', scopes: ['projects:read'], entitlements: [] })).id;
    await accepted('POST', '/plans', { key: 'wide', name: 'Wide', scopes: ['projects:read', 'developers:read'], entitlements: [] });
    const retired = (await accepted('POST', '/plans', { key: 'retired', name: 'Retired', scopes: [], entitlements: [] })).id;
    await accepted('PATCH', `/plans/${retired}`, { active: false });
    const retiring = (await accepted('POST', '/plans', { key: 'retiring', name: 'Retiring', scopes: [], entitlements: [] })).id;

    const clientId = (await accepted('POST', '/clients', { name: 'Marina Homes', plan: 'basic' })).id;
    const otherClientId = (await accepted('POST', '/clients', { name: 'Creek Agency', plan: 'basic' })).id;
    await accepted('PUT', `/clients/${otherClientId}/account-token`, { account_token: 'creek-agency' });
    const keys = `/clients/${clientId}/keys`;
    const keyId = (await accepted('POST', keys, { environment: 'test' })).id;
    const revokedKeyId = (await accepted('POST', keys, { environment: 'test' })).id;
    await accepted('POST', `${keys}/${revokedKeyId}/revoke`);
    const rotatedKeyId = (await accepted('POST', keys, { environment: 'test' })).id;
    await accepted('POST', `${keys}/${rotatedKeyId}/rotate`, {});

    const requests = `/clients/${clientId}/plan-changes`;
    const submittedRequestId = (await accepted('POST', requests, { plan: 'wide' })).id;
    const underReviewRequestId = (await accepted('POST', requests, { plan: 'wide' })).id;
    await accepted('POST', `${requests}/${underReviewRequestId}/review`);
    const rejectedRequestId = (await accepted('POST', requests, { plan: 'wide' })).id;
    await accepted('POST', `${requests}/${rejectedRequestId}/reject`, { reason: 'Not this year' });
    const strandedRequestId = (await accepted('POST', requests, { plan: 'retiring' })).id;
    await accepted('POST', `${requests}/${strandedRequestId}/review`);
    await accepted('POST', `${requests}/${strandedRequestId}/approve`, acceptedBodies.approvePlanChange!({} as World));
    await accepted('PATCH', `/plans/${retiring}`, { active: false });

    const agentProfiles = `/clients/${clientId}/agent-profiles`;
    const agentProfileId = (await accepted('POST', agentProfiles, anAgentProfile({ picture: anImage('portrait-1') }))).id;
    const approvedAgentProfileId = (await accepted('POST', agentProfiles, anAgentProfile())).id;
    await accepted('POST', `/agent-profiles/${approvedAgentProfileId}/submit`);
    await accepted('POST', `/agent-profiles/${approvedAgentProfileId}/approve`);
    const deletedAgentProfileId = (await accepted('POST', agentProfiles, anAgentProfile())).id;
    await accepted('DELETE', `/agent-profiles/${deletedAgentProfileId}`);

    await accepted('PUT', '/currency-rates/EUR', { per_aed: 0.26 });

    // Webhooks are created by their client, through /v1.
    await accepted('POST', '/plans', { key: 'hooks', name: 'Hooks', scopes: ['webhooks:manage'], entitlements: ['webhooks'] });
    const hooksClientId = (await accepted('POST', '/clients', { name: 'Hooks Agency', plan: 'hooks' })).id;
    const { key } = (await accepted('POST', `/clients/${hooksClientId}/keys`, { environment: 'live' })) as unknown as { key: string };
    const headBeforeKey = await app.eventStore.headPosition();
    await app.projector.waitForPosition(headBeforeKey!, 10_000);
    const aWebhook = { name: 'CRM', url: 'https://93.184.215.14/hooks', events: ['project.created'] };
    const createWebhook = async () => {
      const answer = await request(app.baseUrl, '/v1/webhooks', { method: 'POST', token: key, body: aWebhook });
      if (answer.status !== 201) throw new Error(`creating a webhook answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.data.id as string;
    };
    const webhookId = await createWebhook();
    const deletedWebhookId = await createWebhook();
    const deleted = await request(app.baseUrl, `/v1/webhooks/${deletedWebhookId}`, { method: 'DELETE', token: key });
    if (deleted.status !== 200) throw new Error(`deleting a webhook answered ${deleted.status}`);

    const editorId = (await accepted('POST', '/editors', { name: 'Sara Haddad', role: 'editor' })).id;
    const tokenId = ((await accepted('POST', `/editors/${editorId}/tokens`, {})) as unknown as { token_id: number }).token_id;
    const otherEditorId = (await accepted('POST', '/editors', { name: 'Lina Aziz', role: 'operator' })).id;
    const otherEditorTokenId = ((await accepted('POST', `/editors/${otherEditorId}/tokens`, {})) as unknown as { token_id: number })
      .token_id;
    const deactivatedEditorId = (await accepted('POST', '/editors', { name: 'Omar Farouk', role: 'editor' })).id;
    await accepted('PATCH', `/editors/${deactivatedEditorId}`, { active: false });

    return {
      stateId,
      otherStateId,
      communityId,
      otherCommunityId,
      subCommunityId,
      developerId,
      unitTypeId,
      projectId,
      otherProjectId,
      deletedProjectId,
      floorPlanId: withAll.floor_plans[0]!.floor_plan_id,
      paymentPlanId: withAll.payment_plans[0]!.payment_plan_id,
      mediaId: withAll.gallery[0]!.media_id,
      planId,
      clientId,
      otherClientId,
      keyId,
      revokedKeyId,
      rotatedKeyId,
      submittedRequestId,
      underReviewRequestId,
      rejectedRequestId,
      strandedRequestId,
      agentProfileId,
      approvedAgentProfileId,
      deletedAgentProfileId,
      webhookId,
      deletedWebhookId,
      editorId,
      tokenId,
      otherEditorTokenId,
      deactivatedEditorId,
    };
  }

  beforeAll(async () => {
    app = await startTestApp();
    for (const [index, name] of IMAGE_NAMES.entries()) {
      storedRefs.set(`image ${name}`, await storedImage(app.blobStore, { seed: index + 1, fileName: `${name}.jpg` }));
    }
    for (const name of PDF_NAMES) storedRefs.set(`pdf ${name}`, await storedPdf(app.blobStore, name));
    world = await buildWorld();
  });
  afterAll(() => app.close());

  it('when the admin route table is listed, then every command has an accepted body (if it takes one) and refusals to provoke', () => {
    const bodyless = commandRoutes.filter((route) => route.body && !acceptedBodies[route.operationId]).map((route) => route.operationId);
    expect(bodyless, 'commands with a body but no accepted body in acceptedBodies').toEqual([]);
    const unknownParams = commandRoutes.flatMap(paramNames).filter((name) => !(name in existingParams({} as World)));
    expect(unknownParams, 'path parameters existingParams does not know').toEqual([]);
    const uncovered = commandRoutes.filter((route) => !refusals.some((refusal) => refusal.operationId === route.operationId));
    expect(uncovered.map((route) => route.operationId)).toEqual([]);
    const strays = refusals.filter((refusal) => !commandRoutes.some((route) => route.operationId === refusal.operationId));
    expect(strays.map((refusal) => refusal.operationId)).toEqual([]);
  });

  for (const refusal of refusals) {
    const title = `when ${refusal.operationId} gets ${refusal.when}, then ${refusal.status} ${refusal.code} and the event store's head is where it was`;
    it(title, async () => {
      const route = routeOf(refusal.operationId);
      const params = { ...existingParams(world), ...refusal.params?.(world) };
      const headBefore = await app.eventStore.headPosition();

      const answer = await admin(route.method.toUpperCase(), pathOf(route, params), {
        ...(refusal.headers ? { headers: refusal.headers } : {}),
        ...(refusal.rawBody !== undefined ? { rawBody: refusal.rawBody } : refusal.body ? { body: refusal.body(world) } : {}),
      });

      expect({ status: answer.status, code: answer.body?.error?.code }, JSON.stringify(answer.body)).toEqual({
        status: refusal.status,
        code: refusal.code,
      });
      expect(await app.eventStore.headPosition()).toBe(headBefore);
    });
  }
});
