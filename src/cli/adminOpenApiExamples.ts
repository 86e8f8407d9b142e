import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { Config } from '../config.js';
import { createAdminOpenApiDocument } from '../http/adminOpenApi.js';
import { adminRoutes } from '../http/adminRouter.js';
import { DependencyUnavailable } from '../http/dependencyFailures.js';
import type { Logger } from '../logger.js';
import {
  Recorder,
  withExampleService,
  writeExamples,
  type Answer,
  type Exchange,
  type ExampleService,
  type Json,
  type RandomValue,
} from './exampleRecording.js';

/*
 * The examples of /admin/v1/openapi.yaml, recorded by `npm run openapi:examples` (src/cli/openApiExamples.ts)
 * from a service of their own on the demo catalogue into src/http/adminOpenApiExamples.json, which
 * src/http/adminOpenApi.ts attaches to the served document. Each kind of record goes through its life in an
 * order that works: created, listed, read, revised with the If-Match of its revision, published,
 * unpublished, its history read, removed; refusals are provoked where a request can cause them (no token, an
 * editor's token on an operator's operation, a stale If-Match, a taken slug, a body too large or not JSON, a
 * file that is not what it claims to be, a read behind a stopped projector). The error answers are shared
 * response components, so one example of each code stands for every operation that refers to it.
 */

const EXAMPLES_FILE = fileURLToPath(new URL('../http/adminOpenApiExamples.json', import.meta.url));
/** Enough published projects for the smallest evaluation sample (50). */
const SEED_PROJECTS = 70;
/** Low, so that an upload over the limit is a small request. */
const UPLOAD_MAX_IMAGE_BYTES = 64 * 1024;
const WEBHOOK_URL = 'https://hooks.marina-homes.example/catalogue';
/** Read models are projected off the request path: a list or history read waits until they have applied every write before it. */
const READ_WAIT_MS = 10_000;

/** A base64url stand-in of `length` characters. */
const base64urlOf = (hex: string, length: number) => Buffer.from(hex, 'hex').toString('base64url').slice(0, length);

/**
 * Secrets and ids the service draws at random. A key or token is shown once, when issued, and afterwards by its
 * hint (its first four characters): the head and the rest get stand-ins of their own, so that a hint still
 * matches its key.
 */
const RANDOM_VALUES: readonly RandomValue[] = [
  {
    kind: 'account-token',
    pattern: /(?<="account_token": ")[A-Za-z0-9_-]{22}(?=")/g,
    standIn: (hex) => base64urlOf(hex, 22),
  },
  {
    kind: 'secret-head',
    pattern: /(?<=(svc_live_|svc_test_|edt_))[A-Za-z0-9_-]{4}(?=[A-Za-z0-9_-]{39}(?![A-Za-z0-9_-])|…)/g,
    standIn: (hex) => base64urlOf(hex, 4),
  },
  {
    kind: 'secret-rest',
    pattern: /(?<=(svc_live_|svc_test_|edt_)[A-Za-z0-9_-]{4})[A-Za-z0-9_-]{39}(?![A-Za-z0-9_-])/g,
    standIn: (hex) => base64urlOf(hex, 39),
  },
  { kind: 'webhook', pattern: /wh_[0-9a-f]{24}/g, standIn: (hex) => `wh_${hex.slice(0, 24)}` },
  {
    kind: 'event',
    pattern: /(?<="event_id": ")[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?=")/g,
    standIn: (hex) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`,
  },
];

export interface AdminScene extends ExampleService {
  recorder: Recorder;
  /** An exchange sent with the bootstrap admin token unless it names another key. */
  record(exchange: Omit<Exchange, 'key'> & { key?: string | null }): Promise<Answer>;
  /** An admin call the examples do not show, which must succeed; its body (`data`, `meta`). */
  admin(method: string, path: string, body?: unknown): Promise<Json>;
  /** Waits (without moving the clock) until the read models have applied every write so far. */
  settled(): Promise<void>;
}

const ifMatch = (revision: number) => ({ 'If-Match': `"${revision}"` });
/** The If-Match of the revision a write or read answered as its ETag. */
const basedOn = (answer: Answer) => ({ 'If-Match': answer.headers.get('etag')! });

/** What the admin examples' service runs with, beyond what withExampleService sets. */
export const ADMIN_EXAMPLES_ENVIRONMENT = { UPLOAD_MAX_IMAGE_BYTES: String(UPLOAD_MAX_IMAGE_BYTES), SEED_PROJECTS: String(SEED_PROJECTS) };

export async function recordAdminExamples(config: Config, logger: Logger): Promise<void> {
  await withExampleService(config, logger, ADMIN_EXAMPLES_ENVIRONMENT, async (running) => {
    const scene = await adminSceneOf(running);
    await recordExchanges(scene);
    for (const examples of Object.values(scene.recorder.examples)) {
      for (const example of Object.values(examples)) withEventTimes(scene.recorder, example.response.body);
    }
    await writeExamples(
      EXAMPLES_FILE,
      scene.recorder,
      'npm run openapi:examples (src/cli/adminOpenApiExamples.ts): recorded from the demo catalogue; do not edit.',
      RANDOM_VALUES,
    );
  });
}

/** A recorder of the admin document's examples on the running service. */
export async function adminSceneOf(running: ExampleService): Promise<AdminScene> {
  const document = createAdminOpenApiDocument(adminRoutes) as Json;
  const recorder = new Recorder(running.origin, running.clock, { document, basePath: '/admin/v1' });
  recorder.seededUpTo(await running.service.eventStore.headPosition());
  return {
    ...running,
    recorder,
    record: ({ key, ...exchange }) => recorder.record({ ...exchange, ...(key === null ? {} : { key: key ?? running.adminToken }) }),
    async admin(method, path, body) {
      const answer = await recorder.send(`/admin/v1${path}`, {
        method,
        key: running.adminToken,
        ...(body === undefined ? {} : { body }),
      });
      if (answer.status >= 300) throw new Error(`${method} /admin/v1${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body as Json;
    },
    async settled() {
      const head = await running.service.eventStore.headPosition();
      if (head !== null) await running.service.projector!.waitForPosition(head, READ_WAIT_MS);
    },
  };
}

/**
 * The event store stamps an event with the machine's time, not the service's clock: a history entry gets the
 * clock's time of the write that appended it, as the record's own `updated_at` has.
 */
function withEventTimes(recorder: Recorder, value: unknown): void {
  if (Array.isArray(value)) value.forEach((item) => withEventTimes(recorder, item));
  if (typeof value !== 'object' || value === null) return;
  const entry = value as Json;
  if (typeof entry.event_id === 'string' && typeof entry.position === 'string' && typeof entry.time === 'string') {
    const at = recorder.timeOfEvent(entry.position);
    if (at !== undefined) entry.time = at.toISOString();
  }
  Object.values(entry).forEach((child) => withEventTimes(recorder, child));
}

/** Every admin example, recorded in an order that gives each its state. */
export async function recordExchanges(scene: AdminScene): Promise<void> {
  // The request head is still arriving when the server gives up on it after HTTP_HEADERS_TIMEOUT_MS, so that one runs beside the rest.
  const timedOut = scene.recorder.recordOnTheSocket(
    {
      operationId: 'listStates',
      name: 'REQUEST_TIMEOUT',
      summary: 'The request head did not arrive within HTTP_HEADERS_TIMEOUT_MS',
      status: 408,
    },
    'GET /admin/v1/states HTTP/1.1\r\nHost: api.example.com\r\n',
  );
  // Reported where it is awaited, not as an unhandled rejection when something before fails.
  timedOut.catch(() => undefined);
  await recordProtocolRefusals(scene);
  await scene.settled();
  const geography = await recordGeography(scene);
  const developer = await recordDevelopers(scene);
  const unitType = await recordUnitTypes(scene);
  await recordProjects(scene, { ...geography, developer, unitType });
  await recordCatalogueHistories(scene, { ...geography, developer, unitType });
  const client = await recordPlansAndClients(scene);
  await recordKeysAndSubscriptions(scene, client);
  await recordPlanChanges(scene, client);
  await recordAgentProfiles(scene, client);
  await recordCurrencyRates(scene);
  await recordWebhooks(scene);
  await recordEditors(scene);
  await recordImports(scene);
  await recordBuiltErrors(scene, client);
  await timedOut;
  await recordProjectionBehind(scene);
}

/** Refusals before a request reaches an operation: every operation shares their answers. */
async function recordProtocolRefusals(scene: AdminScene): Promise<void> {
  const { recorder } = scene;
  const refusals: ReadonlyArray<[name: string, summary: string, status: number, request: string]> = [
    [
      'BAD_REQUEST',
      'A request line or header that cannot be read',
      400,
      'GET /admin/v1/states HTTP/1.1\r\nHost: api.example.com\r\nThis line is no header\r\n\r\n',
    ],
    [
      'EXPECTATION_FAILED',
      'An Expect header other than 100-continue',
      417,
      'GET /admin/v1/states HTTP/1.1\r\nHost: api.example.com\r\nExpect: 200-ok\r\n\r\n',
    ],
    [
      'HEADERS_TOO_LARGE',
      'Request line and headers over 16 KB',
      431,
      `GET /admin/v1/states HTTP/1.1\r\nHost: api.example.com\r\nX-Padding: ${'x'.repeat(17_000)}\r\n\r\n`,
    ],
  ];
  for (const [name, summary, status, request] of refusals)
    await recorder.recordOnTheSocket({ operationId: 'listStates', name, summary, status }, request);
}

interface Geography {
  state: Json;
  community: Json;
  subCommunity: Json;
}

/** States, communities and sub-communities: each created, refused, listed, read, revised, published and unpublished, its history read. */
async function recordGeography(scene: AdminScene): Promise<Geography> {
  const stateBody = { name: 'Muscat', slug: 'muscat', country_code: 'OM' };
  const created = await scene.record({ operationId: 'createState', name: 'muscat', summary: 'A new state', body: stateBody, status: 201 });
  const stateId = created.body.data.id as number;
  await scene.record({
    operationId: 'createState',
    name: 'SLUG_TAKEN',
    summary: 'A slug another state has',
    body: { ...stateBody, slug: 'dubai' },
    status: 409,
  });
  await scene.record({
    operationId: 'createState',
    name: 'VALIDATION_FAILED',
    summary: 'An empty name, a slug with capitals and spaces, a lower-case country code and an unknown field',
    body: { name: '', slug: 'Muscat Governorate', country_code: 'om', capital: 'Muscat' },
    status: 422,
  });
  await scene.record({
    operationId: 'createState',
    name: 'PAYLOAD_TOO_LARGE',
    summary: 'A body over 1 MB',
    rawBody: { contentType: 'application/json', text: JSON.stringify({ ...stateBody, name: 'x'.repeat(1_100_000) }) },
    status: 413,
  });
  await scene.record({
    operationId: 'createState',
    name: 'UNSUPPORTED_MEDIA_TYPE',
    summary: 'A body that is not JSON',
    rawBody: { contentType: 'application/x-www-form-urlencoded', text: 'name=Muscat&slug=muscat&country_code=OM' },
    status: 415,
  });
  await scene.settled();
  await scene.record({
    operationId: 'listStates',
    name: 'byName',
    summary: 'States by name, two per page',
    query: { sort: 'name', per_page: 2 },
    status: 200,
  });
  await scene.record({ operationId: 'listStates', name: 'UNAUTHENTICATED', summary: 'No token', key: null, status: 401 });
  await scene.record({
    operationId: 'listStates',
    name: 'VALIDATION_FAILED',
    summary: 'per_page over 100 and a parameter the list does not take',
    query: { per_page: 101, country: 'AE' },
    status: 422,
  });
  await scene.record({ operationId: 'getState', name: 'byId', summary: 'A state', path: { stateId }, status: 200 });
  await scene.record({
    operationId: 'getState',
    name: 'NOT_FOUND',
    summary: 'No state has this id',
    path: { stateId: 999_999 },
    status: 404,
  });
  await scene.record({
    operationId: 'reviseState',
    name: 'renamed',
    summary: 'A new name, based on revision 0',
    path: { stateId },
    headers: ifMatch(0),
    body: { name: 'Muscat Governorate' },
    status: 200,
  });
  await scene.record({
    operationId: 'reviseState',
    name: 'CONFLICT',
    summary: 'An edit based on a revision someone else has changed since',
    path: { stateId },
    headers: ifMatch(0),
    body: { name: 'Masqat' },
    status: 409,
  });
  await scene.record({
    operationId: 'publishState',
    name: 'published',
    summary: 'The state published',
    path: { stateId },
    headers: ifMatch(1),
    status: 200,
  });

  const communityBody = {
    state_id: stateId,
    name: 'Al Mouj',
    slug: 'al-mouj',
    description: 'A waterfront community on the coast of Muscat, with a marina, a golf course and beachfront homes.',
    location: { latitude: 23.6226, longitude: 58.2795 },
  };
  const community = await scene.record({
    operationId: 'createCommunity',
    name: 'alMouj',
    summary: 'A new community in a state',
    body: communityBody,
    status: 201,
  });
  const communityId = community.body.data.id as number;
  const banner = await storedBanner(scene);
  await scene.settled();
  await scene.record({
    operationId: 'listCommunities',
    name: 'inAState',
    summary: 'The communities of a state, by name',
    query: { state: 'muscat', sort: 'name' },
    status: 200,
  });
  await scene.record({ operationId: 'getCommunity', name: 'byId', summary: 'A community', path: { communityId }, status: 200 });
  await scene.record({
    operationId: 'reviseCommunity',
    name: 'banner',
    summary: 'A banner: a picture already stored',
    path: { communityId },
    headers: ifMatch(0),
    body: { banner },
    status: 200,
  });
  await scene.record({
    operationId: 'publishCommunity',
    name: 'published',
    summary: 'The community published',
    path: { communityId },
    status: 200,
  });

  const subCommunity = await scene.record({
    operationId: 'createSubCommunity',
    name: 'theWave',
    summary: 'A new sub-community in a community',
    body: { community_id: communityId, name: 'The Wave Marina', slug: 'al-mouj-the-wave-marina' },
    status: 201,
  });
  const subCommunityId = subCommunity.body.data.id as number;
  await scene.settled();
  await scene.record({
    operationId: 'listSubCommunities',
    name: 'inACommunity',
    summary: 'The sub-communities of a community',
    query: { community: 'al-mouj', per_page: 20 },
    status: 200,
  });
  await scene.record({ operationId: 'getSubCommunity', name: 'byId', summary: 'A sub-community', path: { subCommunityId }, status: 200 });
  await scene.record({
    operationId: 'reviseSubCommunity',
    name: 'described',
    summary: 'A description',
    path: { subCommunityId },
    headers: ifMatch(0),
    body: { description: 'Apartments and villas around the marina of Al Mouj.' },
    status: 200,
  });
  await scene.record({
    operationId: 'publishSubCommunity',
    name: 'published',
    summary: 'The sub-community published',
    path: { subCommunityId },
    status: 200,
  });
  await scene.settled();
  return {
    state: (await scene.admin('GET', `/states/${stateId}`)).data as Json,
    community: (await scene.admin('GET', `/communities/${communityId}`)).data as Json,
    subCommunity: (await scene.admin('GET', `/sub-communities/${subCommunityId}`)).data as Json,
  };
}

/** A community banner the demo catalogue stored: a picture ref a revision may name. */
async function storedBanner(scene: AdminScene): Promise<Json> {
  const communities = (await scene.admin('GET', '/communities?per_page=100')).data as Json[];
  const banner = communities.find((community) => community.banner != null)?.banner as Json | undefined;
  if (banner === undefined) throw new Error('No demo community has a banner.');
  return banner;
}

/** A developer: created with a logo already stored, listed, read, revised, published, unpublished. */
async function recordDevelopers(scene: AdminScene): Promise<Json> {
  const developers = (await scene.admin('GET', '/developers?per_page=1&sort=name')).data as Json[];
  const logo = developers[0]!.logo as Json;
  const created = await scene.record({
    operationId: 'createDeveloper',
    name: 'withLogo',
    summary: 'A new developer with a logo already stored',
    body: {
      name: 'Mouj Coast Developments',
      slug: 'mouj-coast-developments',
      description: 'Mouj Coast Developments builds waterfront residences in Muscat.',
      website: 'https://www.moujcoast.example',
      logo,
      established_year: 2016,
    },
    status: 201,
  });
  const developerId = created.body.data.id as number;
  await scene.record({
    operationId: 'createDeveloper',
    name: 'PAYLOAD_TOO_LARGE',
    summary: 'A logo sent as the body, over UPLOAD_MAX_IMAGE_BYTES',
    query: { file_name: 'logo.png' },
    rawBody: { contentType: 'image/png', text: 'x'.repeat(UPLOAD_MAX_IMAGE_BYTES + 1) },
    status: 413,
  });
  await scene.record({
    operationId: 'createDeveloper',
    name: 'UNSUPPORTED_MEDIA_TYPE',
    summary: 'A body that is neither JSON, a form nor a picture',
    rawBody: { contentType: 'text/plain', text: 'Mouj Coast Developments' },
    status: 415,
  });
  await scene.settled();
  await scene.record({
    operationId: 'listDevelopers',
    name: 'search',
    summary: 'Developers whose name or slug holds "mouj"',
    query: { q: 'mouj', sort: 'name' },
    status: 200,
  });
  await scene.record({ operationId: 'getDeveloper', name: 'byId', summary: 'A developer', path: { developerId }, status: 200 });
  const revised = await scene.record({
    operationId: 'reviseDeveloper',
    name: 'website',
    summary: 'A new website address',
    path: { developerId },
    headers: ifMatch(0),
    body: { website: 'https://www.mouj-coast.example' },
    status: 200,
  });
  const published = await scene.record({
    operationId: 'publishDeveloper',
    name: 'published',
    summary: 'The developer published',
    path: { developerId },
    headers: basedOn(revised),
    status: 200,
  });
  return published.body.data as Json;
}

/** A unit type: created, listed by kind, read, revised, its history read. */
async function recordUnitTypes(scene: AdminScene): Promise<Json> {
  const created = await scene.record({
    operationId: 'createUnitType',
    name: 'penthouse',
    summary: 'A new unit type',
    body: { name: 'Penthouse', kind: 'other', bedrooms: null, sort_order: 95 },
    status: 201,
  });
  const unitTypeId = created.body.data.id as number;
  await scene.settled();
  await scene.record({
    operationId: 'listUnitTypes',
    name: 'bedrooms',
    summary: 'The unit types counted by bedrooms',
    query: { kind: 'bedrooms', sort: 'sort_order' },
    status: 200,
  });
  await scene.record({ operationId: 'getUnitType', name: 'byId', summary: 'A unit type', path: { unitTypeId }, status: 200 });
  const revised = await scene.record({
    operationId: 'reviseUnitType',
    name: 'bedrooms',
    summary: 'Bedrooms and their place in the order',
    path: { unitTypeId },
    headers: ifMatch(0),
    body: { name: '4 Bedroom Penthouse', kind: 'bedrooms', bedrooms: 4, sort_order: 55 },
    status: 200,
  });
  return revised.body.data as Json;
}

/** A plain floor plan picture: what an editor's upload would be, made here so that every run sends the same bytes. */
const floorPlanPicture = () =>
  sharp({ create: { width: 1200, height: 900, channels: 3, background: '#f4f1ea' } })
    .png()
    .toBuffer();

/** The id of the part a write added to a project (it answers the whole project). */
const newestId = (parts: Json[], idField: string): number => Math.max(...parts.map((part) => part[idField] as number));

interface CatalogueReferences extends Geography {
  developer: Json;
  unitType: Json;
}

/** A project from creation to deletion, through every part an editor sets, and the refusals on the way. */
async function recordProjects(scene: AdminScene, references: CatalogueReferences): Promise<void> {
  const seeded = (await scene.admin('GET', '/projects?per_page=100&sort=id')).data as Json[];
  const details = await Promise.all(
    seeded.map(async (project) => (await scene.admin('GET', `/projects/${project.id as number}`)).data as Json),
  );
  const withFloorPlans = details.find((project) => project.floor_plans.length > 1 && project.gallery.length > 1)!;
  const withVideoFile = details.find((project) => project.video?.file != null && project.video?.thumbnail != null)!;
  const withBrochure = details.find((project) => project.brochure?.key != null)!;
  const withMasterPlan = details.find((project) => project.master_plan_document?.key != null)!;
  const [picture, otherPicture] = withFloorPlans.gallery.map((item: Json) => item.image) as [Json, Json];
  const [plan, otherPlan] = withFloorPlans.floor_plans.map((item: Json) => item.image) as [Json, Json];

  const created = await scene.record({
    operationId: 'createProject',
    name: 'offPlan',
    summary: 'A new off-plan project: created unpublished',
    body: {
      name: 'Al Mouj Beach Residences',
      slug: 'al-mouj-beach-residences',
      developer_id: references.developer.id,
      state_id: references.state.id,
      community_id: references.community.id,
      sub_community_id: references.subCommunity.id,
      nature: 'off_plan',
      unit_type_ids: [2, 3, references.unitType.id],
      starting_from: 1_250_000,
      currency: 'AED',
      location: { latitude: 23.6248, longitude: 58.2763 },
      area_from: 720,
      area_to: 3_150,
      completion_date: '2028-12-31',
      overview: 'Beachfront apartments and penthouses at Al Mouj, Muscat.',
      project_types: ['Apartments', 'Penthouses'],
      down_payment_percent: 20,
      service_charges: 'AED 18 per sq ft per year',
      status: 'upcoming',
    },
    status: 201,
  });
  const projectId = created.body.data.id as number;
  const project = { projectId };
  await scene.settled();
  await scene.record({
    operationId: 'listProjects',
    name: 'inACommunity',
    summary: 'The projects of a community, unpublished ones too, newest edit first',
    query: { community: references.community.slug, sort: '-updated_at', per_page: 10 },
    status: 200,
  });
  await scene.record({ operationId: 'getProject', name: 'byId', summary: 'A project with all its parts', path: project, status: 200 });
  await scene.record({
    operationId: 'getProject',
    name: 'asOf',
    summary: 'A project as it was at a log position',
    path: { projectId: withFloorPlans.id },
    query: { as_of: created.body.meta.position },
    status: 200,
  });
  let last = await scene.record({
    operationId: 'reviseProject',
    name: 'priceAndDescription',
    summary: 'A new starting price and a description',
    path: project,
    headers: ifMatch(0),
    body: {
      starting_from: 1_320_000,
      description: 'Al Mouj Beach Residences offers one- and two-bedroom apartments and penthouses with private beach access.',
    },
    status: 200,
  });
  last = await scene.record({
    operationId: 'changeProjectStatus',
    name: 'underConstruction',
    summary: 'Construction has started',
    path: project,
    headers: basedOn(last),
    body: { status: 'under_construction' },
    status: 200,
  });

  const floorPlan = await scene.record({
    operationId: 'addFloorPlan',
    name: 'typeA',
    summary: 'A floor plan with a picture already stored',
    path: project,
    headers: basedOn(last),
    body: { title: 'Type A - 1 Bedroom', unit_type_id: 2, area: 812.5, price: 1_320_000, image: plan },
    status: 201,
  });
  const floorPlanId = newestId(floorPlan.body.data.floor_plans, 'floor_plan_id');
  last = await scene.record({
    operationId: 'reviseFloorPlan',
    name: 'price',
    summary: 'A new price',
    path: { ...project, floorPlanId },
    headers: basedOn(floorPlan),
    body: { price: 1_365_000 },
    status: 200,
  });
  last = await scene.record({
    operationId: 'replaceFloorPlanImage',
    name: 'storedPicture',
    summary: 'Another picture already stored',
    path: { ...project, floorPlanId },
    headers: basedOn(last),
    body: { image: otherPlan },
    status: 200,
  });
  last = await scene.record({
    operationId: 'replaceFloorPlanImage',
    name: 'pictureAsBody',
    summary: 'The picture itself as the body, named by file_name',
    path: { ...project, floorPlanId },
    query: { file_name: 'type-a-1-bedroom.png' },
    headers: basedOn(last),
    binaryBody: { contentType: 'image/png', bytes: await floorPlanPicture() },
    status: 200,
  });
  last = await scene.record({
    operationId: 'removeFloorPlan',
    name: 'removed',
    summary: 'The floor plan removed',
    path: { ...project, floorPlanId },
    headers: basedOn(last),
    status: 200,
  });
  await scene.record({
    operationId: 'addFloorPlan',
    name: 'VALIDATION_FAILED',
    summary: 'A floor plan without a title, its picture naming no stored file',
    path: project,
    body: { unit_type_id: 2, image: { ...plan, key: '0'.repeat(64) } },
    status: 422,
  });

  const paymentPlan = await scene.record({
    operationId: 'addPaymentPlan',
    name: 'postHandover',
    summary: 'A payment plan with its milestones',
    path: project,
    headers: basedOn(last),
    body: {
      name: '60/40 post-handover',
      milestones: [
        { label: 'Down payment', percent: 20, due: 'On booking' },
        { label: 'During construction', percent: 40, due: 'In 8 instalments' },
        { label: 'After handover', percent: 40, due: 'Over 24 months' },
      ],
    },
    status: 201,
  });
  const paymentPlanId = newestId(paymentPlan.body.data.payment_plans, 'payment_plan_id');
  last = await scene.record({
    operationId: 'revisePaymentPlan',
    name: 'renamed',
    summary: 'A new name',
    path: { ...project, paymentPlanId },
    headers: basedOn(paymentPlan),
    body: { name: '60/40 with 2 years post-handover' },
    status: 200,
  });

  const galleryItem = await scene.record({
    operationId: 'addGalleryPicture',
    name: 'captioned',
    summary: 'A gallery picture already stored, with a caption',
    path: project,
    headers: basedOn(last),
    body: { caption: 'Beachfront pool deck', position: 0, image: picture },
    status: 201,
  });
  const mediaId = newestId(galleryItem.body.data.gallery, 'media_id');
  await scene.record({
    operationId: 'addGalleryPicture',
    name: 'FILE_CONTENT_MISMATCH',
    summary: 'A body declared as a PNG picture that is text',
    path: project,
    query: { file_name: 'pool-deck.png' },
    rawBody: { contentType: 'image/png', text: 'This is not a picture.' },
    status: 422,
  });
  const upload = await floorPlanPicture();
  await scene.record({
    operationId: 'addGalleryPicture',
    name: 'FILE_CORRUPT',
    summary: 'A PNG picture cut off halfway',
    path: project,
    query: { file_name: 'pool-deck.png' },
    binaryBody: { contentType: 'image/png', bytes: upload.subarray(0, upload.length / 2) },
    status: 422,
  });
  last = await scene.record({
    operationId: 'reviseGalleryPicture',
    name: 'caption',
    summary: 'A new caption',
    path: { ...project, mediaId },
    headers: basedOn(galleryItem),
    body: { caption: 'Pool deck at sunset' },
    status: 200,
  });
  last = await scene.record({
    operationId: 'replaceGalleryPicture',
    name: 'storedPicture',
    summary: 'Another picture already stored',
    path: { ...project, mediaId },
    headers: basedOn(last),
    body: { image: otherPicture },
    status: 200,
  });

  last = await scene.record({
    operationId: 'attachMasterPlanDocument',
    name: 'storedPdf',
    summary: 'A master plan PDF already stored',
    path: project,
    headers: basedOn(last),
    body: withMasterPlan.master_plan_document,
    status: 200,
  });
  last = await scene.record({
    operationId: 'setVideo',
    name: 'storedFile',
    summary: 'A walkthrough video and its thumbnail, already stored',
    path: project,
    headers: basedOn(last),
    body: {
      title: 'Al Mouj Beach Residences walkthrough',
      description: 'Tour the show apartment and the beach club.',
      file: withVideoFile.video.file,
      thumbnail: withVideoFile.video.thumbnail,
    },
    status: 200,
  });
  last = await scene.record({
    operationId: 'setAmenities',
    name: 'amenities',
    summary: 'The amenities, replacing any before',
    path: project,
    headers: basedOn(last),
    body: {
      items: [
        { name: 'Private beach', icon: 'beach' },
        { name: 'Infinity pool', icon: 'pool' },
        { name: 'Gym', icon: 'gym' },
        { name: 'Kids play area', icon: null },
      ],
    },
    status: 200,
  });
  last = await scene.record({
    operationId: 'setNearbyPlaces',
    name: 'nearby',
    summary: 'Places nearby, replacing any before',
    path: project,
    headers: basedOn(last),
    body: {
      items: [
        { name: 'The Walk at Al Mouj', category: 'shopping', distance_km: 0.8 },
        { name: 'Muscat International Airport', category: 'transport', distance_km: 6.5 },
      ],
    },
    status: 200,
  });
  last = await scene.record({
    operationId: 'setPaymentMethods',
    name: 'methods',
    summary: 'How the project can be paid for, replacing any before',
    path: project,
    headers: basedOn(last),
    body: {
      items: [
        { name: 'Bank transfer', description: 'To the project escrow account.' },
        { name: 'Cheque', description: null },
      ],
    },
    status: 200,
  });
  last = await scene.record({
    operationId: 'setFaqs',
    name: 'faqs',
    summary: 'Questions and answers, replacing any before',
    path: project,
    headers: basedOn(last),
    body: {
      items: [
        { question: 'Is the project freehold?', answer: 'Yes, buyers of all nationalities may own units on a freehold basis.' },
        { question: 'When is handover?', answer: 'Handover is planned for the fourth quarter of 2028.' },
      ],
    },
    status: 200,
  });
  last = await scene.record({
    operationId: 'setVirtualTours',
    name: 'tours',
    summary: 'Virtual tours, replacing any before',
    path: project,
    headers: basedOn(last),
    body: { items: [{ title: 'Show apartment, 1 bedroom', url: 'https://tours.moujcoast.example/beach-residences/1br' }] },
    status: 200,
  });
  last = await scene.record({
    operationId: 'setFloorPlates',
    name: 'plates',
    summary: 'Floor plates, replacing any before',
    path: project,
    headers: basedOn(last),
    body: { items: [{ title: 'Typical floor', floors: '2-14', image: plan }] },
    status: 200,
  });
  last = await scene.record({
    operationId: 'setRelatedProjects',
    name: 'related',
    summary: 'Related projects, replacing any before',
    path: project,
    headers: basedOn(last),
    body: { project_ids: [withFloorPlans.id, withBrochure.id] },
    status: 200,
  });
  last = await scene.record({
    operationId: 'attachBrochure',
    name: 'storedPdf',
    summary: 'A brochure PDF already stored',
    path: project,
    headers: basedOn(last),
    body: withBrochure.brochure,
    status: 200,
  });
  last = await scene.record({
    operationId: 'publishProject',
    name: 'published',
    summary: 'The project published: /v1 shows it',
    path: project,
    headers: basedOn(last),
    status: 200,
  });
  await scene.settled();
  await scene.record({
    operationId: 'getProjectHistory',
    name: 'newestFirst',
    summary: "The project's events, newest first, with the fields each changed",
    path: project,
    query: { per_page: 3 },
    status: 200,
  });
  last = await scene.record({
    operationId: 'unpublishProject',
    name: 'unpublished',
    summary: 'The project unpublished',
    path: project,
    headers: basedOn(last),
    status: 200,
  });
  last = await scene.record({
    operationId: 'removeBrochure',
    name: 'removed',
    summary: 'The brochure removed',
    path: project,
    headers: basedOn(last),
    status: 200,
  });
  last = await scene.record({
    operationId: 'removeVideo',
    name: 'removed',
    summary: 'The video removed',
    path: project,
    headers: basedOn(last),
    status: 200,
  });
  last = await scene.record({
    operationId: 'removeMasterPlanDocument',
    name: 'removed',
    summary: 'The master plan document removed',
    path: project,
    headers: basedOn(last),
    status: 200,
  });
  last = await scene.record({
    operationId: 'removeGalleryPicture',
    name: 'removed',
    summary: 'The gallery picture removed',
    path: { ...project, mediaId },
    headers: basedOn(last),
    status: 200,
  });
  last = await scene.record({
    operationId: 'removePaymentPlan',
    name: 'removed',
    summary: 'The payment plan removed',
    path: { ...project, paymentPlanId },
    headers: basedOn(last),
    status: 200,
  });
  await scene.record({
    operationId: 'deleteProject',
    name: 'deleted',
    summary: 'The project deleted',
    path: project,
    headers: basedOn(last),
    status: 200,
  });
  await scene.record({
    operationId: 'reviseProject',
    name: 'PROJECT_DELETED',
    summary: 'An edit of a deleted project',
    path: project,
    body: { name: 'Al Mouj Beach Residences II' },
    status: 409,
  });
}

/** The geography and the developer unpublished, and the history of each record the catalogue examples made. */
async function recordCatalogueHistories(scene: AdminScene, references: CatalogueReferences): Promise<void> {
  const { state, community, subCommunity, developer, unitType } = references;
  const unpublished: ReadonlyArray<[operationId: string, parameter: string, record: Json, what: string]> = [
    ['unpublishSubCommunity', 'subCommunityId', subCommunity, 'sub-community'],
    ['unpublishCommunity', 'communityId', community, 'community'],
    ['unpublishState', 'stateId', state, 'state'],
    ['unpublishDeveloper', 'developerId', developer, 'developer'],
  ];
  for (const [operationId, parameter, record, what] of unpublished) {
    await scene.record({
      operationId,
      name: 'unpublished',
      summary: `The ${what} unpublished: /v1 no longer shows it`,
      path: { [parameter]: record.id },
      headers: ifMatch(record.revision as number),
      status: 200,
    });
  }
  await scene.settled();
  const histories: ReadonlyArray<[operationId: string, parameter: string, record: Json, what: string]> = [
    ['getStateHistory', 'stateId', state, 'state'],
    ['getCommunityHistory', 'communityId', community, 'community'],
    ['getSubCommunityHistory', 'subCommunityId', subCommunity, 'sub-community'],
    ['getDeveloperHistory', 'developerId', developer, 'developer'],
    ['getUnitTypeHistory', 'unitTypeId', unitType, 'unit type'],
  ];
  for (const [operationId, parameter, record, what] of histories) {
    await scene.record({
      operationId,
      name: 'newestFirst',
      summary: `The ${what}'s events, newest first, with the fields each changed`,
      path: { [parameter]: record.id },
      query: { per_page: 2 },
      status: 200,
    });
  }
}

const PLAN_LIMITS = {
  burst: { requests: 20, window_ms: 1_000 },
  per_minute: 120,
  daily: 20_000,
  monthly: 500_000,
  test_daily: 1_000,
  overage: { price_per_request: '0.002', currency: 'AED' },
};

/** A plan and a client on it: defined, listed, read, revised; the client's controls, restriction, evaluation and account token. */
async function recordPlansAndClients(scene: AdminScene): Promise<Json> {
  const plan = await scene.record({
    operationId: 'createPlan',
    name: 'growth',
    summary: 'A plan between professional and enterprise',
    body: {
      key: 'growth',
      name: 'Growth',
      scopes: [
        'projects:read',
        'projects:sync',
        'developers:read',
        'communities:read',
        'states:read',
        'catalog:read',
        'floorplans:read',
        'media:read',
        'brochures:read',
      ],
      entitlements: ['floorplans', 'images', 'brochures'],
      detail_fields: ['overview', 'description', 'project_types'],
      limits: PLAN_LIMITS,
      pdf_templates: ['classic', 'minimal'],
      pdf_default_template: 'classic',
      pdf_limits: { per_minute: 2, daily: 50, monthly: 1_000 },
    },
    status: 201,
  });
  const planId = plan.body.data.id as number;
  await scene.settled();
  await scene.record({
    operationId: 'listPlans',
    name: 'active',
    summary: 'The active plans, by name',
    query: { active: 'true', sort: 'name' },
    status: 200,
  });
  await scene.record({ operationId: 'getPlan', name: 'byId', summary: 'A plan', path: { planId }, status: 200 });
  await scene.record({
    operationId: 'revisePlan',
    name: 'templates',
    summary: 'One more brochure design',
    path: { planId },
    headers: ifMatch(0),
    body: { pdf_templates: ['classic', 'minimal', 'editorial'] },
    status: 200,
  });
  await scene.settled();
  await scene.record({
    operationId: 'getPlanHistory',
    name: 'newestFirst',
    summary: "The plan's events, newest first",
    path: { planId },
    query: { per_page: 2 },
    status: 200,
  });

  const registered = await scene.record({
    operationId: 'registerClient',
    name: 'onAPlan',
    summary: 'A new client on a plan',
    body: { name: 'Marina Homes Portal', plan: 'growth' },
    status: 201,
  });
  const clientId = registered.body.data.id as number;
  const client = { clientId };
  await scene.settled();
  await scene.record({
    operationId: 'listClients',
    name: 'onAPlan',
    summary: 'The clients on a plan, by name',
    query: { plan: 'growth', sort: 'name' },
    status: 200,
  });
  await scene.record({
    operationId: 'getClient',
    name: 'byId',
    summary: 'A client with its plan and effective grants',
    path: client,
    status: 200,
  });
  await scene.record({
    operationId: 'getClient',
    name: 'NOT_FOUND',
    summary: 'No client has this id',
    path: { clientId: 999_999 },
    status: 404,
  });
  let last = await scene.record({
    operationId: 'reviseClient',
    name: 'renamed',
    summary: 'A new name',
    path: client,
    headers: ifMatch(0),
    body: { name: 'Marina Homes Real Estate Portal' },
    status: 200,
  });
  last = await scene.record({
    operationId: 'setClientControls',
    name: 'domainAndNetwork',
    summary: 'An authorised domain for live keys, an office network for test keys',
    path: client,
    headers: basedOn(last),
    body: {
      request_signing: false,
      environments: {
        live: { domain: 'portal.marinahomes.example', ip_allow: [], ip_deny: [] },
        test: { domain: null, ip_allow: ['203.0.113.0/24'], ip_deny: [] },
      },
    },
    status: 200,
  });
  last = await scene.record({
    operationId: 'setClientRestriction',
    name: 'dubaiMarina',
    summary: 'Dubai Marina and all of Abu Dhabi only',
    path: client,
    headers: basedOn(last),
    body: {
      restriction: {
        states: [
          { state_id: 1, community_ids: [1] },
          { state_id: 2, community_ids: [] },
        ],
      },
    },
    status: 200,
  });
  last = await scene.record({
    operationId: 'startEvaluation',
    name: 'sample',
    summary: 'Evaluation Mode with a sample of 50 published projects',
    path: client,
    headers: basedOn(last),
    body: { sample_size: 50 },
    status: 200,
  });
  last = await scene.record({
    operationId: 'pauseEvaluation',
    name: 'paused',
    summary: 'The evaluation paused',
    path: client,
    headers: basedOn(last),
    body: {},
    status: 200,
  });
  last = await scene.record({
    operationId: 'activateCommercialAccess',
    name: 'paid',
    summary: 'Commercial access after payment',
    path: client,
    headers: basedOn(last),
    body: { reason: 'payment' },
    status: 200,
  });
  last = await scene.record({
    operationId: 'setClientAccountToken',
    name: 'chosen',
    summary: 'An account token for the addresses of its pictures',
    path: client,
    headers: basedOn(last),
    body: { account_token: 'marina-homes' },
    status: 200,
  });
  await scene.record({
    operationId: 'setClientAccountToken',
    name: 'ACCOUNT_TOKEN_TAKEN',
    summary: 'An account token another client holds',
    path: { clientId: scene.demoClientId },
    body: { account_token: 'marina-homes' },
    status: 409,
  });
  await scene.settled();
  await scene.record({
    operationId: 'getClientHistory',
    name: 'newestFirst',
    summary: "The client's events, newest first",
    path: client,
    query: { per_page: 2 },
    status: 200,
  });
  last = await scene.record({
    operationId: 'generateClientAccountToken',
    name: 'random',
    summary: 'A new random account token',
    path: client,
    headers: basedOn(last),
    status: 200,
  });
  last = await scene.record({
    operationId: 'changeClientStatus',
    name: 'suspended',
    summary: 'The client suspended: its keys are refused',
    path: client,
    headers: basedOn(last),
    body: { status: 'suspended' },
    status: 200,
  });
  await scene.admin('PUT', `/clients/${clientId}/status`, { status: 'active' });
  return (await scene.admin('GET', `/clients/${clientId}`)).data as Json;
}

/** The client's API keys (issued, deactivated, reactivated, rotated, revoked) and its subscription. */
async function recordKeysAndSubscriptions(scene: AdminScene, client: Json): Promise<void> {
  const clientId = client.id as number;
  const issued = await scene.record({
    operationId: 'issueApiKey',
    name: 'live',
    summary: 'A live key that expires in a year: the key is in this answer only',
    path: { clientId },
    body: { environment: 'live', expires_at: '2026-05-12T00:00:00Z' },
    status: 201,
  });
  const keyId = issued.body.data.id as number;
  const key = { clientId, keyId };
  await scene.settled();
  await scene.record({
    operationId: 'listApiKeys',
    name: 'active',
    summary: "The client's active live keys (never a key or its hash)",
    path: { clientId },
    query: { status: 'active', environment: 'live' },
    status: 200,
  });
  let last = await scene.record({
    operationId: 'deactivateApiKey',
    name: 'deactivated',
    summary: 'The key deactivated for now',
    path: key,
    status: 200,
  });
  last = await scene.record({
    operationId: 'reactivateApiKey',
    name: 'reactivated',
    summary: 'The key working again',
    path: key,
    headers: basedOn(last),
    status: 200,
  });
  await scene.record({
    operationId: 'rotateApiKey',
    name: 'withOverlap',
    summary: 'A successor key; the old one keeps working for an hour',
    path: key,
    headers: basedOn(last),
    body: { overlap_seconds: 3_600 },
    status: 201,
  });
  // The rotation answers the successor; the old key is revoked without a precondition.
  await scene.record({ operationId: 'revokeApiKey', name: 'revoked', summary: 'The old key revoked at once', path: key, status: 200 });
  await scene.settled();
  await scene.record({
    operationId: 'getApiKeyHistory',
    name: 'newestFirst',
    summary: "The key's events, newest first",
    path: key,
    query: { per_page: 3 },
    status: 200,
  });

  await scene.record({
    operationId: 'setSubscription',
    name: 'annual',
    summary: 'An annual subscription, paid',
    path: { clientId },
    body: {
      status: 'active',
      period_start: '2025-05-01T00:00:00Z',
      period_end: '2026-04-30T23:59:59Z',
      trial_ends_at: null,
      payment_due_at: '2025-05-15T00:00:00Z',
      grace_days: 7,
      paid: true,
    },
    status: 200,
  });
  await scene.settled();
  await scene.record({
    operationId: 'getSubscription',
    name: 'annual',
    summary: "The client's subscription",
    path: { clientId },
    status: 200,
  });
  await scene.record({
    operationId: 'listSubscriptions',
    name: 'active',
    summary: 'The active subscriptions',
    query: { status: 'active', paid: 'true' },
    status: 200,
  });
  await scene.record({
    operationId: 'getSubscriptionHistory',
    name: 'newestFirst',
    summary: "The subscription's events, newest first",
    path: { clientId },
    query: { per_page: 5 },
    status: 200,
  });
  await scene.record({
    operationId: 'getUsageReport',
    name: 'thisMonth',
    summary: "The demo client's usage this month",
    path: { clientId: scene.demoClientId, month: '2025-05' },
    status: 200,
  });
}

/** Requests to move the client to another plan: paid and effective, authorised unpaid, rejected, withdrawn. */
async function recordPlanChanges(scene: AdminScene, client: Json): Promise<void> {
  const clientId = client.id as number;
  const submit = async (name: string, summary: string, plan: string, note: string) => {
    const submitted = await scene.record({
      operationId: 'submitPlanChange',
      name,
      summary,
      path: { clientId },
      body: { plan, note },
      status: 201,
    });
    return submitted.body.data.id as number;
  };
  const invoice = { currency: 'AED', lines: [{ description: 'Enterprise plan, 12 months', quantity: 1, unit_amount: 150_000 }] };
  const paid = await submit(
    'upgrade',
    'A request to move to the enterprise plan',
    'enterprise',
    'Needs webhooks and brochures for the new portal.',
  );
  const request = { clientId, requestId: paid };
  await scene.settled();
  await scene.record({ operationId: 'getPlanChange', name: 'submitted', summary: 'A submitted request', path: request, status: 200 });
  await scene.record({
    operationId: 'listPlanChanges',
    name: 'submitted',
    summary: 'The requests waiting for review',
    query: { status: 'submitted' },
    status: 200,
  });
  await scene.record({ operationId: 'startPlanChangeReview', name: 'underReview', summary: 'Under review', path: request, status: 200 });
  await scene.record({
    operationId: 'approvePlanChange',
    name: 'invoiced',
    summary: 'Approved, with its invoice',
    path: request,
    body: invoice,
    status: 200,
  });
  await scene.record({
    operationId: 'confirmPlanChangePayment',
    name: 'paid',
    summary: 'The invoice paid: the client is on the new plan',
    path: request,
    status: 200,
  });
  await scene.settled();
  await scene.record({
    operationId: 'getPlanChangeHistory',
    name: 'newestFirst',
    summary: "The request's events, newest first",
    path: request,
    query: { per_page: 3 },
    status: 200,
  });

  const authorised = await submit(
    'downgrade',
    'A request to move back to the growth plan',
    'growth',
    'The portal launch moved to next year.',
  );
  await scene.admin('POST', `/clients/${clientId}/plan-changes/${authorised}/review`);
  await scene.admin('POST', `/clients/${clientId}/plan-changes/${authorised}/approve`, {
    currency: 'AED',
    lines: [{ description: 'Growth plan, 12 months', quantity: 1, unit_amount: 60_000 }],
  });
  await scene.record({
    operationId: 'authorisePlanChange',
    name: 'unpaid',
    summary: 'Effective before payment, on staff authorisation',
    path: { clientId, requestId: authorised },
    status: 200,
  });
  const rejected = await submit(
    'toProfessional',
    'A request to move to the professional plan',
    'professional',
    'Trying the professional plan.',
  );
  await scene.record({
    operationId: 'rejectPlanChange',
    name: 'rejected',
    summary: 'Rejected, with the reason',
    path: { clientId, requestId: rejected },
    body: { reason: 'The professional plan does not include brochures, which the portal needs.' },
    status: 200,
  });
  const withdrawn = await submit('toEnterprise', 'Another request to move to the enterprise plan', 'enterprise', 'Upgrade again.');
  await scene.record({
    operationId: 'cancelPlanChange',
    name: 'withdrawn',
    summary: 'Withdrawn before approval',
    path: { clientId, requestId: withdrawn },
    status: 200,
  });
}

/** An agent profile of the client: created, listed, read, revised, its portrait replaced, submitted, approved, withdrawn, deleted. */
async function recordAgentProfiles(scene: AdminScene, client: Json): Promise<void> {
  const clientId = client.id as number;
  const seeded = (await scene.admin('GET', '/agent-profiles?sort=agent_name')).data as Json[];
  const [portrait, otherPortrait] = seeded.map((profile) => profile.picture).filter((picture) => picture != null) as [Json, Json];
  const created = await scene.record({
    operationId: 'createAgentProfile',
    name: 'draft',
    summary: "An agent page for the client's brochures, as a draft",
    path: { clientId },
    body: {
      agent_name: 'Sara Haddad',
      company_name: 'Marina Homes Real Estate',
      email: 'sara.haddad@marinahomes.example',
      phone: '+971 50 123 4567',
      whatsapp: '+971 50 123 4567',
      picture: portrait,
    },
    status: 201,
  });
  const agentProfileId = created.body.data.id as number;
  const profile = { agentProfileId };
  await scene.settled();
  await scene.record({
    operationId: 'listClientAgentProfiles',
    name: 'drafts',
    summary: "The client's draft profiles",
    path: { clientId },
    query: { status: 'draft' },
    status: 200,
  });
  await scene.record({ operationId: 'getAgentProfile', name: 'byId', summary: 'An agent profile', path: profile, status: 200 });
  let last = await scene.record({
    operationId: 'reviseAgentProfile',
    name: 'phone',
    summary: 'A new phone number',
    path: profile,
    headers: ifMatch(0),
    body: { phone: '+971 4 555 0199' },
    status: 200,
  });
  last = await scene.record({
    operationId: 'replaceAgentProfilePicture',
    name: 'storedPicture',
    summary: 'Another portrait already stored',
    path: profile,
    headers: basedOn(last),
    body: { picture: otherPortrait },
    status: 200,
  });
  last = await scene.record({
    operationId: 'submitAgentProfile',
    name: 'submitted',
    summary: 'Submitted for review',
    path: profile,
    headers: basedOn(last),
    status: 200,
  });
  last = await scene.record({
    operationId: 'approveAgentProfile',
    name: 'approved',
    summary: "Approved: listed to the client's keys",
    path: profile,
    headers: basedOn(last),
    status: 200,
  });
  await scene.settled();
  await scene.record({
    operationId: 'listAgentProfiles',
    name: 'approved',
    summary: "One client's approved profiles",
    query: { client_id: clientId, status: 'approved' },
    status: 200,
  });
  last = await scene.record({
    operationId: 'rejectAgentProfile',
    name: 'withdrawn',
    summary: 'The approval withdrawn, with the reason',
    path: profile,
    headers: basedOn(last),
    body: { reason: 'The portrait is not of the agent named.' },
    status: 200,
  });
  await scene.settled();
  await scene.record({
    operationId: 'getAgentProfileHistory',
    name: 'newestFirst',
    summary: "The profile's events, newest first",
    path: profile,
    query: { per_page: 3 },
    status: 200,
  });
  await scene.record({
    operationId: 'deleteAgentProfile',
    name: 'deleted',
    summary: 'The profile deleted',
    path: profile,
    headers: basedOn(last),
    status: 200,
  });
}

async function recordCurrencyRates(scene: AdminScene): Promise<void> {
  await scene.record({ operationId: 'listCurrencyRates', name: 'rates', summary: 'Every currency and its rate per AED', status: 200 });
  await scene.record({
    operationId: 'setCurrencyRate',
    name: 'euro',
    summary: "Today's euro rate",
    path: { currencyCode: 'EUR' },
    headers: ifMatch(0),
    body: { per_aed: 0.2498 },
    status: 200,
  });
  await scene.record({
    operationId: 'removeCurrencyRate',
    name: 'removed',
    summary: 'The pound removed: no brochure shows prices in it',
    path: { currencyCode: 'GBP' },
    status: 200,
  });
  await scene.settled();
  await scene.record({
    operationId: 'getCurrencyRateHistory',
    name: 'newestFirst',
    summary: "The euro rate's events, newest first",
    path: { currencyCode: 'EUR' },
    status: 200,
  });
}

/** A webhook the demo client made on /v1, as operators see it: listed, read, disabled, enabled. */
async function recordWebhooks(scene: AdminScene): Promise<void> {
  const created = await scene.recorder.send('/v1/webhooks', {
    method: 'POST',
    key: scene.liveKey,
    body: { name: 'Catalogue sync', url: WEBHOOK_URL, events: ['project.created', 'project.updated', 'project.deleted'] },
  });
  if (created.status !== 201) throw new Error(`Creating the demo webhook answered ${created.status}: ${JSON.stringify(created.body)}`);
  const webhookId = created.body.data.id as string;
  await scene.settled();
  await scene.record({
    operationId: 'listWebhooks',
    name: 'ofAClient',
    summary: "A client's webhooks",
    query: { client_id: scene.demoClientId, status: 'active' },
    status: 200,
  });
  await scene.record({ operationId: 'getWebhook', name: 'byId', summary: 'A webhook', path: { webhookId }, status: 200 });
  const disabled = await scene.record({
    operationId: 'disableWebhook',
    name: 'disabled',
    summary: 'Disabled by staff: its client cannot enable it',
    path: { webhookId },
    status: 200,
  });
  await scene.record({
    operationId: 'enableWebhook',
    name: 'enabled',
    summary: 'Enabled again',
    path: { webhookId },
    headers: basedOn(disabled),
    status: 200,
  });
  await scene.settled();
  await scene.record({
    operationId: 'getWebhookHistory',
    name: 'newestFirst',
    summary: "The webhook's events, newest first",
    path: { webhookId },
    query: { per_page: 3 },
    status: 200,
  });
}

/** An editor account and its token, which is then refused an operator's operation. */
async function recordEditors(scene: AdminScene): Promise<void> {
  const created = await scene.record({
    operationId: 'createEditor',
    name: 'editor',
    summary: 'An editor account',
    body: { name: 'Omar Khalil', role: 'editor' },
    status: 201,
  });
  const editorId = created.body.data.id as number;
  const editor = { editorId };
  const token = await scene.record({
    operationId: 'issueEditorToken',
    name: 'expiring',
    summary: 'A token that expires in six months: the token is in this answer only',
    path: editor,
    body: { expires_at: '2025-11-12T00:00:00Z' },
    status: 201,
  });
  await scene.settled();
  await scene.record({
    operationId: 'listClients',
    name: 'INSUFFICIENT_ROLE',
    summary: "An editor's token on an operation for operators",
    key: token.body.data.token as string,
    status: 403,
  });
  await scene.record({
    operationId: 'listEditors',
    name: 'editors',
    summary: 'The active editors',
    query: { role: 'editor', active: 'true' },
    status: 200,
  });
  await scene.record({ operationId: 'getEditor', name: 'byId', summary: 'An editor account with its tokens', path: editor, status: 200 });
  const revised = await scene.record({
    operationId: 'reviseEditor',
    name: 'publisher',
    summary: 'The editor may publish now',
    path: editor,
    headers: basedOn(token),
    body: { role: 'publisher' },
    status: 200,
  });
  await scene.record({
    operationId: 'revokeEditorToken',
    name: 'revoked',
    summary: 'The token revoked',
    path: { editorId, tokenId: token.body.data.token_id },
    headers: basedOn(revised),
    status: 200,
  });
  await scene.settled();
  await scene.record({
    operationId: 'getEditorHistory',
    name: 'newestFirst',
    summary: "The account's events, newest first",
    path: editor,
    query: { per_page: 3 },
    status: 200,
  });
}

const NDJSON = 'application/x-ndjson';

async function recordImports(scene: AdminScene): Promise<void> {
  const lines = [
    { type: 'state', key: 'st-dhofar', data: { name: 'Dhofar', slug: 'dhofar', country_code: 'OM', published: true } },
    {
      type: 'community',
      key: 'c-salalah-beach',
      data: { state: 'st-dhofar', name: 'Salalah Beach', slug: 'salalah-beach', published: true },
    },
  ];
  const text = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
  await scene.record({
    operationId: 'importCatalogue',
    name: 'stateAndCommunity',
    summary: 'A state and a community in it',
    textBody: { contentType: NDJSON, text },
    status: 200,
  });
  await scene.record({
    operationId: 'importCatalogue',
    name: 'CONFLICT',
    summary: 'An If-Match on an import, which has no revision to match',
    headers: ifMatch(3),
    textBody: { contentType: NDJSON, text },
    status: 409,
  });
  await scene.record({
    operationId: 'importCatalogue',
    name: 'UNSUPPORTED_MEDIA_TYPE',
    summary: 'The records as a JSON array',
    rawBody: { contentType: 'application/json', text: JSON.stringify(lines) },
    status: 415,
  });
  await scene.recorder.recordOnTheSocket(
    {
      operationId: 'importCatalogue',
      name: 'PAYLOAD_TOO_LARGE',
      summary: 'A Content-Length over the import limit',
      headers: { 'Content-Type': NDJSON, 'Content-Length': '300000000' },
      status: 413,
    },
    `POST /admin/v1/imports HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: Bearer ${scene.adminToken}\r\nContent-Type: ${NDJSON}\r\nContent-Length: 300000000\r\n\r\n`,
  );
}

/** The errors no request can cause on purpose, as the service's error middleware answers them: a bug, a store that does not answer. */
async function recordBuiltErrors(scene: AdminScene, client: Json): Promise<void> {
  await scene.recorder.recordBuilt(
    {
      operationId: 'getClient',
      name: 'INTERNAL_ERROR',
      summary: 'A bug',
      path: { clientId: client.id },
      description: 'Not provoked: what the error middleware answers for an error it does not know.',
    },
    new Error('a bug'),
  );
  await scene.recorder.recordBuilt(
    {
      operationId: 'registerClient',
      name: 'SERVICE_UNAVAILABLE',
      summary: 'The embedded store stayed locked',
      description: "Not provoked: what the error middleware answers for DependencyUnavailable('sqlite').",
    },
    new DependencyUnavailable('sqlite'),
  );
  await scene.recorder.recordBuilt(
    {
      operationId: 'getClient',
      name: 'SERVICE_UNAVAILABLE',
      summary: 'The embedded store stayed locked',
      path: { clientId: client.id },
      description: "Not provoked: what the error middleware answers for DependencyUnavailable('sqlite').",
    },
    new DependencyUnavailable('sqlite'),
  );
}

/** Last, since it stops the projector: a read that waits for a write the read models never apply. */
async function recordProjectionBehind(scene: AdminScene): Promise<void> {
  // What the service then says about its projector is what this does on purpose.
  if (process.env.LOG_LEVEL === undefined) scene.serviceLogger.level = 'silent';
  await scene.service.projector!.stop();
  const { position } = (await scene.admin('PATCH', `/clients/${scene.demoClientId}`, { name: 'Demo Agency LLC' })).meta as {
    position: string;
  };
  await scene.record({
    operationId: 'listProjects',
    name: 'PROJECTION_BEHIND',
    summary: 'The read models had not applied the write named in X-Consistent-After in time',
    headers: { 'X-Consistent-After': position },
    status: 503,
  });
}
