import { fileURLToPath } from 'node:url';
import { queryRoutes } from '../../queries/index.js';
import { createApiOpenApiDocument } from '../../queries/openApi.js';
import { RenderTimeout, RendererUnavailable } from '../../queries/projectPdf.js';
import type { Config } from '../config.js';
import { DependencyUnavailable } from '../http/dependencyFailures.js';
import type { Logger } from '../logger.js';
import { recordAdminExamples } from './adminOpenApiExamples.js';
import {
  PUBLIC_BASE_URL,
  Recorder,
  withExampleService,
  writeExamples,
  type Answer,
  type Exchange,
  type ExampleService,
  type Json,
  type RandomValue,
} from './exampleRecording.js';
import { runCli } from './runCli.js';

/*
 * `npm run openapi:examples`: records the examples of /v1/openapi.yaml and of /admin/v1/openapi.yaml from the
 * service itself (src/cli/exampleRecording.ts starts it; the admin document's are recorded by
 * src/cli/adminOpenApiExamples.ts, on a service of its own). For /v1 it makes a realistic request of every
 * public operation and provokes every documented error answer it can (a bad parameter, no key, a plan without
 * the scope, a client with a one-request minute, a render in progress, a stale read...), and writes requests
 * and answers to queries/openApiExamples.json, which queries/openApi.ts attaches to the document. The few
 * errors no request can cause on purpose (a bug, an unreachable store, a failed render) are the bodies the
 * service's own error middleware writes for its own error classes.
 *
 * The output is deterministic, so that a rerun changes the file only where the service's answers changed:
 * besides the service's example clock and fixed secrets, request ids are sent, and the few random values
 * (webhook ids and secrets, event ids, the bytes of a fresh PDF) are replaced by stand-ins, the same one for
 * the same value.
 */

const EXAMPLES_FILE = fileURLToPath(new URL('../../queries/openApiExamples.json', import.meta.url));
const WEBHOOK_URL = 'https://hooks.demo-agency.example/catalogue';
const DOCUMENTS = ['public', 'admin'] as const;
type DocumentName = (typeof DOCUMENTS)[number];
const USAGE =
  'usage: npm run openapi:examples [-- public|admin]   (both when none is named; writes queries/openApiExamples.json, src/http/adminOpenApiExamples.json)';

/**
 * Values the service draws at random. A fresh PDF's bytes (and so its key and link signature) differ on
 * every render.
 */
const RANDOM_VALUES: readonly RandomValue[] = [
  { kind: 'webhook', pattern: /wh_[0-9a-f]{24}/g, standIn: (hex) => `wh_${hex.slice(0, 24)}` },
  {
    kind: 'secret',
    pattern: /whsec_[A-Za-z0-9_-]{43}/g,
    standIn: (hex) => `whsec_${Buffer.from(hex, 'hex').toString('base64url').slice(0, 43)}`,
  },
  { kind: 'event', pattern: /evt_[0-9a-f]{32}/g, standIn: (hex) => `evt_${hex.slice(0, 32)}` },
  { kind: 'pdf', pattern: /(?<=\/documents\/pdf\/)[0-9a-f]{64}/g, standIn: (hex) => hex },
  { kind: 'pdf-signature', pattern: /(?<=\/documents\/pdf\/[^"?]+\?expires=\d+&signature=)[0-9a-f]{64}/g, standIn: (hex) => hex },
];

async function recordPublicExamples(config: Config, logger: Logger): Promise<void> {
  await withExampleService(config, logger, {}, async (running) => {
    const document = createApiOpenApiDocument(queryRoutes, { publicBaseUrl: PUBLIC_BASE_URL, examples: null }) as Json;
    const recorder = new Recorder(running.origin, running.clock, { document, basePath: '/v1' });
    await recordExchanges({
      ...running,
      recorder,
      async admin(method, path, body) {
        const answer = await recorder.send(`/admin/v1${path}`, {
          method,
          key: running.adminToken,
          ...(body === undefined ? {} : { body }),
        });
        if (answer.status >= 300) throw new Error(`${method} /admin/v1${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        return answer.body as Json;
      },
    });
    await writeExamples(
      EXAMPLES_FILE,
      recorder,
      'npm run openapi:examples (src/cli/openApiExamples.ts): recorded from the demo catalogue; do not edit.',
      RANDOM_VALUES,
    );
  });
}

interface Scene extends ExampleService {
  recorder: Recorder;
  /** An admin API call that must succeed; its body (`data`, `meta`). */
  admin(method: string, path: string, body?: unknown): Promise<Json>;
}

/** The first project (newest edit first) whose `resource` answers as `wanted`: each example shows a collection that has something in it. */
async function projectWhere(scene: Scene, projects: readonly Json[], resource: string, wanted: (answer: Answer) => boolean): Promise<Json> {
  for (const project of projects) {
    if (wanted(await scene.recorder.send(`/v1/projects/${project.slug as string}/${resource}`, { key: scene.liveKey }))) return project;
  }
  throw new Error(`No demo project answers ${resource} as the example needs; seed more projects.`);
}

const projectWith = (scene: Scene, projects: readonly Json[], resource: string, wanted: (data: any) => boolean) =>
  projectWhere(scene, projects, resource, (answer) => answer.status === 200 && wanted(answer.body.data));

const nonEmpty = (data: unknown) => Array.isArray(data) && data.length > 0;

async function recordExchanges(scene: Scene): Promise<void> {
  const { recorder, liveKey: key } = scene;
  const record = (exchange: Exchange) => recorder.record(exchange);
  // Refusals before a request reaches an operation: the request head is still arriving when the server gives
  // up on it after HTTP_HEADERS_TIMEOUT_MS, so that one runs beside the rest.
  const timedOut = refusedOnTheSocket(scene, 'REQUEST_TIMEOUT', 'GET /v1/health HTTP/1.1\r\nHost: api.example.com\r\n', {
    summary: 'The request head did not arrive within HTTP_HEADERS_TIMEOUT_MS',
    status: 408,
  });
  // Reported where it is awaited, not as an unhandled rejection when something before fails.
  timedOut.catch(() => undefined);

  await record({ operationId: 'getHealth', name: 'ok', summary: 'Every check passed', status: 200 });
  await record({ operationId: 'getOpenApiDocument', name: 'document', summary: 'This document (its first lines)', status: 200 });
  await refusedOnTheSocket(scene, 'BAD_REQUEST', 'GET /v1/health HTTP/1.1\r\nHost: api.example.com\r\nThis line is no header\r\n\r\n', {
    summary: 'A request line or header that cannot be read',
    status: 400,
  });
  await refusedOnTheSocket(scene, 'EXPECTATION_FAILED', 'GET /v1/health HTTP/1.1\r\nHost: api.example.com\r\nExpect: 200-ok\r\n\r\n', {
    summary: 'An Expect header other than 100-continue',
    status: 417,
  });
  await refusedOnTheSocket(
    scene,
    'HEADERS_TOO_LARGE',
    `GET /v1/health HTTP/1.1\r\nHost: api.example.com\r\nX-Padding: ${'x'.repeat(17_000)}\r\n\r\n`,
    {
      summary: 'Request line and headers over 16 KB',
      status: 431,
    },
  );

  // Projects: lists, the change feed, one project and its collections.
  const projects = (await recorder.send('/v1/projects?per_page=100', { key })).body.data as Json[];
  const [newest, second] = projects as [Json, Json];
  await record({
    operationId: 'listProjects',
    name: 'summaries',
    summary: 'Off-plan projects in Dubai, cheapest first, two per page',
    query: { state: 'dubai', nature: 'off_plan', sort: 'starting_from', per_page: 2 },
    key,
    status: 200,
  });
  await record({
    operationId: 'listProjects',
    name: 'detailBatch',
    summary: 'Two projects by id, in detail',
    query: { ids: [newest.id, second.id], view: 'detail' },
    key,
    status: 200,
  });
  await record({
    operationId: 'listProjects',
    name: 'API_KEY_IN_QUERY',
    summary: 'An API key in the query string',
    query: { api_key: 'svc_live_in_the_url' },
    key,
    status: 400,
  });
  await record({ operationId: 'listProjects', name: 'UNAUTHENTICATED', summary: 'No API key', status: 401 });
  await record({
    operationId: 'listProjects',
    name: 'VALIDATION_FAILED',
    summary: 'per_page over 100 and an unknown parameter',
    query: { per_page: 101, colour: 'blue' },
    key,
    status: 422,
  });
  const firstPage = await record({
    operationId: 'listProjectChanges',
    name: 'fromTheStart',
    summary: 'The first page of a sync from the start of the feed',
    query: { cursor: 'start', per_page: 2 },
    key,
    status: 200,
  });
  await record({
    operationId: 'listProjectChanges',
    name: 'nextPage',
    summary: "The next page: the previous page's meta.cursor sent back",
    query: { cursor: firstPage.body.meta.cursor as string, per_page: 2 },
    key,
    status: 200,
  });
  await record({
    operationId: 'getProjectResourcesBatch',
    name: 'floorPlansAndPaymentPlans',
    summary: 'Floor plans and payment plans of two projects in one request',
    query: { ids: [newest.id, second.id], include: ['floor_plans', 'payment_plans'] },
    key,
    status: 200,
  });
  await record({
    operationId: 'getProject',
    name: 'bySlug',
    summary: 'A project by its slug',
    path: { project: newest.slug },
    key,
    status: 200,
  });
  await record({
    operationId: 'getProject',
    name: 'NOT_FOUND',
    summary: 'No published project has this slug',
    path: { project: 'no-such-project' },
    key,
    status: 404,
  });
  const collections: ReadonlyArray<[operationId: string, resource: string, summary: string]> = [
    ['listFloorPlans', 'floor-plans', "A project's floor plans"],
    ['listPaymentPlans', 'payment-plans', "A project's payment plans"],
    ['listAmenities', 'amenities', "A project's amenities"],
    ['listNearbyPlaces', 'nearby', 'Places near a project'],
    ['listPaymentMethods', 'payment-methods', 'How a project can be paid for'],
    ['listFaqs', 'faqs', "A project's frequently asked questions"],
    ['listVirtualTours', 'virtual-tours', "A project's virtual tours"],
    ['listFloorPlates', 'floor-plates', "A project's floor plates"],
    ['listRelatedProjects', 'related', 'Projects related to a project'],
  ];
  for (const [operationId, resource, summary] of collections) {
    const project = await projectWith(scene, projects, resource, nonEmpty);
    await record({ operationId, name: 'ofAProject', summary, path: { project: project.slug }, key, status: 200 });
  }
  const gallery = await projectWith(scene, projects, 'media', (data) => nonEmpty(data.items));
  const media = await record({
    operationId: 'getProjectMedia',
    name: 'gallery',
    summary: "A project's pictures",
    path: { project: gallery.slug },
    key,
    status: 200,
  });
  const withVideoFile = await projectWith(scene, projects, 'video', (data) => data.file_url != null);
  await record({
    operationId: 'getProjectVideo',
    name: 'videoFile',
    summary: 'A project video stored by the service',
    path: { project: withVideoFile.slug },
    key,
    status: 200,
  });
  const withExternalVideo = await projectWith(scene, projects, 'video', (data) => data.external_url != null);
  await record({
    operationId: 'getProjectVideo',
    name: 'externalVideo',
    summary: 'A project video on another site',
    path: { project: withExternalVideo.slug },
    key,
    status: 200,
  });
  const withoutVideo = await projectWhere(scene, projects, 'video', (answer) => answer.body?.error?.code === 'VIDEO_NOT_AVAILABLE');
  await record({
    operationId: 'getProjectVideo',
    name: 'VIDEO_NOT_AVAILABLE',
    summary: 'The project has no video',
    path: { project: withoutVideo.slug },
    key,
    status: 404,
  });

  await recordDocuments(scene, projects);
  const picture = await recordImages(scene, media.body.data.items[0].image.url_800 as string);
  await recordReferenceData(scene);
  await recordWebhooks(scene);
  await recordPdf(scene, gallery);
  await recordBuiltErrors(scene, gallery, picture);
  await recordRefusals(scene, gallery);
  await timedOut;
  await recordUnavailable(scene);
}

interface LinkParameters {
  path: { kind: string; file_name: string; key?: string; url?: string };
  query: { expires: string; signature: string };
}

/** A signed link from an answer, as the path and query parameters of the document routes. */
function linkParameters(link: string): LinkParameters {
  const url = new URL(link);
  const [kind = '', ...rest] = url.pathname.slice(`${new URL(PUBLIC_BASE_URL).pathname}/documents/`.length).split('/');
  const fileName = decodeURIComponent(rest.pop()!);
  const path = rest[0] === 'external' ? { kind, url: rest[1]!, file_name: fileName } : { kind, key: rest[0]!, file_name: fileName };
  return { path, query: { expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! } };
}

/** Brochures and their signed links: a stored one, a legacy one on another host, a link altered, expired, or to a file gone. */
async function recordDocuments(scene: Scene, projects: readonly Json[]): Promise<void> {
  const { recorder, liveKey: key } = scene;
  const withBrochure = await projectWith(scene, projects, 'brochure', () => true);
  const brochure = await recorder.record({
    operationId: 'getProjectBrochure',
    name: 'storedBrochure',
    summary: "A project's brochure: a signed link to the PDF",
    path: { project: withBrochure.slug },
    key,
    status: 200,
  });
  const withoutBrochure = await projectWhere(scene, projects, 'brochure', (answer) => answer.status === 404);
  await recorder.record({
    operationId: 'getProjectBrochure',
    name: 'DOCUMENT_UNAVAILABLE',
    summary: 'The project has no brochure',
    path: { project: withoutBrochure.slug },
    key,
    status: 404,
  });
  const stored = linkParameters(brochure.body.data.download_url as string);
  await recorder.record({ operationId: 'downloadDocument', name: 'brochure', summary: 'The brochure PDF', ...stored, status: 200 });
  await recorder.record({
    operationId: 'headDocument',
    name: 'brochure',
    summary: "The brochure PDF's size and type",
    ...stored,
    status: 200,
  });
  const altered = stored.query.signature.replace(/.$/, (digit) => (digit === '0' ? '1' : '0'));
  await recorder.record({
    operationId: 'downloadDocument',
    name: 'LINK_INVALID',
    summary: 'A link whose signature was altered',
    path: stored.path,
    query: { ...stored.query, signature: altered },
    status: 403,
  });

  // An editor attaches a brochure kept on the developer's own site: its link redirects there.
  await scene.admin('PUT', `/projects/${withoutBrochure.id as number}/brochure`, {
    external_url: `https://downloads.${withoutBrochure.developer.slug as string}.example/brochures/${withoutBrochure.slug as string}.pdf`,
    file_name: `${withoutBrochure.slug as string}-brochure.pdf`,
  });
  const legacy = await recorder.send(`/v1/projects/${withoutBrochure.slug as string}/brochure`, { key });
  const external = linkParameters(legacy.body.data.download_url as string);
  await recorder.record({
    operationId: 'followExternalDocument',
    name: 'legacyBrochure',
    summary: 'A brochure kept on another host',
    ...external,
    status: 302,
  });
  await recorder.record({
    operationId: 'headExternalDocument',
    name: 'legacyBrochure',
    summary: 'A brochure kept on another host',
    ...external,
    status: 302,
  });

  // A stored brochure whose bytes are no longer in the blob store.
  const other = await projectWith(
    scene,
    projects.filter((project) => project.id !== withBrochure.id),
    'brochure',
    (data) => data.size_bytes !== null,
  );
  const gone = linkParameters(
    (await recorder.send(`/v1/projects/${other.slug as string}/brochure`, { key })).body.data.download_url as string,
  );
  await scene.service.blobStore.delete(gone.path.key!);
  await recorder.record({
    operationId: 'downloadDocument',
    name: 'DOCUMENT_UNAVAILABLE',
    summary: 'The file behind the link is gone',
    ...gone,
    status: 404,
  });

  // The first link, an hour later: links live minutes.
  scene.clock.advance(60 * 60 * 1000);
  await recorder.record({
    operationId: 'downloadDocument',
    name: 'LINK_EXPIRED',
    summary: 'A genuine link past its expiry',
    ...stored,
    status: 403,
  });
}

/** A picture at its address, through the demo client's account token, and the refusals of image addresses. */
async function recordImages(scene: Scene, pictureLink: string): Promise<Record<string, string>> {
  const { recorder } = scene;
  const [mediaId, file] = pictureLink.slice(`${PUBLIC_BASE_URL}/media/`.length).split('/') as [string, string];
  const picture = { media_id: mediaId, file };
  await recorder.record({
    operationId: 'getImage',
    name: 'gallery800',
    summary: 'A gallery picture, 800 pixels wide',
    path: picture,
    status: 200,
  });
  await recorder.record({
    operationId: 'headImage',
    name: 'gallery800',
    summary: "A gallery picture's size and type",
    path: picture,
    status: 200,
  });
  await recorder.record({
    operationId: 'getImage',
    name: 'NOT_FOUND',
    summary: 'A key the media id never showed',
    path: { media_id: mediaId, file: `${'0'.repeat(64)}-800.webp` },
    status: 404,
  });
  await recorder.record({
    operationId: 'getImage',
    name: 'BAD_REQUEST',
    summary: 'A malformed percent-encoding in the address',
    path: picture,
    target: `/v1/media/${mediaId}/%E0%A4%A-800.webp`,
    status: 400,
  });
  await recorder.record({
    operationId: 'getImage',
    name: 'RANGE_NOT_SATISFIABLE',
    summary: 'A byte range past the end of the file',
    path: picture,
    headers: { Range: 'bytes=100000000-' },
    status: 416,
  });
  const accountToken = 'demoAgencyMedia2025xyz';
  await scene.admin('PUT', `/clients/${scene.demoClientId}/account-token`, { account_token: accountToken });
  const ofAccount = { account_token: accountToken, ...picture };
  await recorder.record({
    operationId: 'getAccountImage',
    name: 'gallery800',
    summary: "A gallery picture under the client's account token",
    path: ofAccount,
    status: 200,
  });
  await recorder.record({
    operationId: 'headAccountImage',
    name: 'gallery800',
    summary: "A gallery picture's size and type",
    path: ofAccount,
    status: 200,
  });
  return picture;
}

/** Developers, communities, states, sub-communities, catalogue metadata, agent profiles and PDF designs. */
async function recordReferenceData(scene: Scene): Promise<void> {
  const { recorder, liveKey: key } = scene;
  const developers = await recorder.record({
    operationId: 'listDevelopers',
    name: 'firstPage',
    summary: 'Developers, two per page',
    query: { per_page: 2 },
    key,
    status: 200,
  });
  await recorder.record({
    operationId: 'getDeveloper',
    name: 'bySlug',
    summary: 'A developer by its slug',
    path: { idOrSlug: developers.body.data[0].slug },
    key,
    status: 200,
  });
  const communities = await recorder.record({
    operationId: 'listCommunities',
    name: 'inAState',
    summary: 'Communities in Dubai, by name',
    query: { state: 'dubai', sort: 'name', per_page: 2 },
    key,
    status: 200,
  });
  await recorder.record({
    operationId: 'getCommunity',
    name: 'bySlug',
    summary: 'A community by its slug',
    path: { idOrSlug: communities.body.data[0].slug },
    key,
    status: 200,
  });
  await recorder.record({
    operationId: 'getState',
    name: 'bySlug',
    summary: 'A state by its slug',
    path: { idOrSlug: 'dubai' },
    key,
    status: 200,
  });
  const subCommunities = await recorder.record({
    operationId: 'listSubCommunities',
    name: 'inAState',
    summary: 'Sub-communities in Dubai, two per page',
    query: { state: 'dubai', per_page: 2 },
    key,
    status: 200,
  });
  await recorder.record({
    operationId: 'getSubCommunity',
    name: 'bySlug',
    summary: 'A sub-community by its slug',
    path: { idOrSlug: subCommunities.body.data[0].slug },
    key,
    status: 200,
  });
  await recorder.record({
    operationId: 'getCatalogMetadata',
    name: 'metadata',
    summary: 'Unit types and other reference values',
    key,
    status: 200,
  });
  await recorder.record({
    operationId: 'listAgentProfiles',
    name: 'approved',
    summary: "The client's approved agent profiles, by name",
    query: { sort: 'agent_name' },
    key,
    status: 200,
  });
  await recorder.record({
    operationId: 'listPdfTemplates',
    name: 'designs',
    summary: 'The brochure designs the client may use',
    key,
    status: 200,
  });
}

/** A webhook's life: created, read, changed, its secret rotated, a test event sent and its delivery, disabled by staff, deleted. */
async function recordWebhooks(scene: Scene): Promise<void> {
  const { recorder, liveKey: key } = scene;
  const events = ['project.created', 'project.updated', 'project.deleted'];
  const created = await recorder.record({
    operationId: 'createWebhook',
    name: 'catalogueSync',
    summary: 'A webhook for project changes',
    body: { name: 'Catalogue sync', url: WEBHOOK_URL, events },
    key,
    status: 201,
  });
  const id = created.body.data.id as string;
  await recorder.record({
    operationId: 'createWebhook',
    name: 'VALIDATION_FAILED',
    summary: 'An empty name, a URL with a fragment and an unknown event type',
    body: { name: '', url: `${WEBHOOK_URL}#top`, events: ['project.renamed'] },
    key,
    status: 422,
  });
  await recorder.record({
    operationId: 'createWebhook',
    name: 'PAYLOAD_TOO_LARGE',
    summary: 'A body over 1 MB',
    rawBody: { contentType: 'application/json', text: JSON.stringify({ name: 'x'.repeat(1_100_000), url: WEBHOOK_URL, events }) },
    key,
    status: 413,
  });
  await recorder.record({
    operationId: 'createWebhook',
    name: 'UNSUPPORTED_MEDIA_TYPE',
    summary: 'A body that is not JSON',
    rawBody: { contentType: 'application/x-www-form-urlencoded', text: 'name=Catalogue+sync' },
    key,
    status: 415,
  });
  await recorder.record({
    operationId: 'listWebhooks',
    name: 'firstPage',
    summary: "The client's webhooks",
    query: { page: 1, per_page: 20 },
    key,
    status: 200,
  });
  await recorder.record({ operationId: 'getWebhook', name: 'catalogueSync', summary: 'One webhook', path: { id }, key, status: 200 });
  await recorder.record({
    operationId: 'updateWebhook',
    name: 'renamed',
    summary: 'A new name and one more event type',
    path: { id },
    body: { name: 'Catalogue sync (production)', events: [...events, 'project.status_changed'] },
    key,
    status: 200,
  });
  await recorder.record({
    operationId: 'rotateWebhookSecret',
    name: 'rotated',
    summary: 'A new signing secret',
    path: { id },
    key,
    status: 200,
  });
  await recorder.record({
    operationId: 'sendWebhookTestEvent',
    name: 'queued',
    summary: 'A webhook.test event queued',
    path: { id },
    key,
    status: 202,
  });
  // The worker tries the delivery at once, and again at once and 5 s later (this machine refuses the
  // connection); the next try is minutes away, so the example shows three, whenever it is recorded.
  await deliveryAttempted(scene, id, 1);
  scene.clock.advance(1_000);
  await deliveryAttempted(scene, id, 2);
  scene.clock.advance(6_000);
  await deliveryAttempted(scene, id, 3);
  await recorder.record({
    operationId: 'listWebhookDeliveries',
    name: 'testEvent',
    summary: 'The test delivery: three attempts, the next one scheduled',
    path: { id },
    key,
    status: 200,
  });
  await recorder.record({
    operationId: 'listWebhookDeliveries',
    name: 'NOT_FOUND',
    summary: "Another client's webhook, or none",
    path: { id: `wh_${'0'.repeat(24)}` },
    key,
    status: 404,
  });
  await recorder.record({
    operationId: 'listWebhookDeliveries',
    name: 'VALIDATION_FAILED',
    summary: 'Not a webhook id',
    path: { id: 'catalogue-sync' },
    key,
    status: 422,
  });
  await scene.admin('POST', `/webhooks/${id}/disable`);
  await recorder.record({
    operationId: 'updateWebhook',
    name: 'CONFLICT',
    summary: 'Enabling a webhook an administrator disabled',
    path: { id },
    body: { status: 'active' },
    key,
    status: 409,
  });
  await recorder.record({
    operationId: 'sendWebhookTestEvent',
    name: 'CONFLICT',
    summary: 'A disabled webhook',
    path: { id },
    key,
    status: 409,
  });
  await recorder.record({ operationId: 'deleteWebhook', name: 'deleted', summary: 'The webhook deleted', path: { id }, key, status: 200 });
}

/** Waits (without moving the clock) until the webhook's deliveries show attempt `attempt`. */
async function deliveryAttempted(scene: Scene, webhookId: string, attempt: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await scene.recorder.peek(`/v1/webhooks/${webhookId}/deliveries`, { key: scene.liveKey });
    if (answer.status !== 200) throw new Error(`Listing the test delivery answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    if ((answer.body.data as Json[]).some((delivery) => delivery.attempt === attempt)) return;
    if (Date.now() > deadline) throw new Error(`The test delivery's attempt ${attempt} did not come within 30 s.`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * A brochure rendered by Chromium (while it renders, the same Idempotency-Key is refused), then refused for a
 * bad currency and, once the client's PDF minute is spent, by the PDF limit.
 */
async function recordPdf(scene: Scene, project: Json): Promise<void> {
  const { recorder, liveKey: key } = scene;
  const agents = (await recorder.send('/v1/agent-profiles', { key })).body.data as Json[];
  const pdf = {
    operationId: 'generateProjectPdf',
    path: { project: project.slug },
    body: { template: 'classic', agent_profile_id: agents[0]!.id, currency: 'USD' },
    headers: { 'Idempotency-Key': `brochure-${project.slug as string}-classic-usd` },
    key,
  };
  const rendered = recorder.record({
    ...pdf,
    name: 'rendered',
    summary: 'A brochure rendered for an agent, prices in US dollars',
    status: 200,
  });
  rendered.catch(() => undefined);
  // The render takes seconds: the same key meanwhile is refused.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await recorder.record({
    ...pdf,
    name: 'IDEMPOTENCY_KEY_IN_USE',
    summary: 'The same Idempotency-Key while the first request is answered',
    status: 409,
  });
  await rendered;
  await recorder.record({
    ...pdf,
    name: 'replayed',
    summary: 'The same request and Idempotency-Key again: the first answer, a fresh link',
    status: 200,
  });
  await recorder.record({
    ...pdf,
    headers: {},
    body: { template: 'classic', sections: ['cover', 'gallery', 'cover'] },
    name: 'VALIDATION_FAILED',
    summary: 'A section asked for twice',
    status: 422,
  });
  await scene.admin('PATCH', `/clients/${scene.demoClientId}`, { pdf_limits: { per_minute: 1, daily: 100, monthly: 1_000 } });
  await recorder.record({
    ...pdf,
    headers: {},
    body: { template: 'minimal', language: 'ar' },
    name: 'PER_MINUTE_LIMIT_EXCEEDED',
    summary: 'Another brochure within the minute of a client allowed one PDF a minute',
    status: 429,
  });
}
/**
 * The errors no request can cause on purpose, as the service's error middleware answers its own error
 * classes: a bug (500), a store that does not answer (503), a render that failed or ran out of time.
 */
async function recordBuiltErrors(scene: Scene, project: Json, picture: Record<string, string>): Promise<void> {
  const built: ReadonlyArray<{
    operationId: string;
    name: string;
    summary: string;
    path: Record<string, unknown>;
    error: Error;
    description: string;
  }> = [
    {
      operationId: 'getProject',
      name: 'INTERNAL_ERROR',
      summary: 'A bug',
      path: { project: project.slug },
      error: new Error('a bug'),
      description: 'Not provoked: what the error middleware answers for an error it does not know.',
    },
    {
      operationId: 'getImage',
      name: 'SERVICE_UNAVAILABLE',
      summary: 'The embedded store stayed locked',
      path: picture,
      error: new DependencyUnavailable('sqlite'),
      description: "Not provoked: what the error middleware answers for DependencyUnavailable('sqlite').",
    },
    {
      operationId: 'generateProjectPdf',
      name: 'RENDERER_UNAVAILABLE',
      summary: 'The render failed',
      path: { project: project.slug },
      error: new RendererUnavailable(),
      description: 'Not provoked: what the error middleware answers for RendererUnavailable.',
    },
    {
      operationId: 'generateProjectPdf',
      name: 'RENDER_TIMEOUT',
      summary: 'The render ran out of time',
      path: { project: project.slug },
      error: new RenderTimeout(),
      description: 'Not provoked: what the error middleware answers for RenderTimeout.',
    },
  ];
  for (const { error, ...exchange } of built) await scene.recorder.recordBuilt(exchange, error);
}

/** Refusals of keys that verified: a plan or client without the operation's scope, a client whose minute is spent. */
async function recordRefusals(scene: Scene, project: Json): Promise<void> {
  const { recorder } = scene;
  /** A client on `plan` (revised as `revision` says) and a live key of it. */
  const clientWithKey = async (name: string, plan: string, revision?: Json) => {
    const clientId = (await scene.admin('POST', '/clients', { name, plan })).data.id as number;
    if (revision !== undefined) await scene.admin('PATCH', `/clients/${clientId}`, revision);
    return (await scene.admin('POST', `/clients/${clientId}/keys`, { environment: 'live' })).data.key as string;
  };
  const starterKey = await clientWithKey('Marina Homes Portal', 'starter');
  await recorder.record({
    operationId: 'listWebhooks',
    name: 'INSUFFICIENT_SCOPE',
    summary: "The plan's scopes do not include webhooks:manage",
    key: starterKey,
    status: 403,
  });
  const oneAMinute = await clientWithKey('Gulf Listings Widget', 'professional', {
    limits: {
      burst: { requests: 20, window_ms: 2_000 },
      per_minute: 1,
      daily: 1_000,
      monthly: 20_000,
      test_daily: 100,
      overage: null,
    },
  });
  await recorder.record({
    operationId: 'listProjects',
    name: 'onePerMinute',
    summary: 'The one request of the minute',
    query: { per_page: 1 },
    key: oneAMinute,
    status: 200,
  });
  await recorder.record({
    operationId: 'listProjects',
    name: 'PER_MINUTE_LIMIT_EXCEEDED',
    summary: 'The next request within the minute of a client allowed one request a minute',
    query: { per_page: 1 },
    key: oneAMinute,
    status: 429,
  });
  // Each operation's 403 lists the codes it can answer, and operations with the same list share a response:
  // one example for each such list.
  await recorder.record({
    operationId: 'getProjectBrochure',
    name: 'INSUFFICIENT_SCOPE',
    summary: "The plan's scopes do not include brochures:read",
    path: { project: project.slug },
    key: starterKey,
    status: 403,
  });
  const projectsOnly = await clientWithKey('Harbour View Listings', 'starter', { scopes: ['projects:read'] });
  await recorder.record({
    operationId: 'getState',
    name: 'INSUFFICIENT_SCOPE',
    summary: "The client's own scopes do not include states:read",
    path: { idOrSlug: 'dubai' },
    key: projectsOnly,
    status: 403,
  });
}

/**
 * Last, since they take the service apart: a read that waits for a write the projector (stopped) never
 * applies, and the health check once the read store is closed.
 */
async function recordUnavailable(scene: Scene): Promise<void> {
  // What the service then says about its stores is what this does on purpose.
  if (process.env.LOG_LEVEL === undefined) scene.serviceLogger.level = 'silent';
  await scene.service.projector!.stop();
  const { position } = (await scene.admin('PATCH', `/clients/${scene.demoClientId}`, { name: 'Demo Agency LLC' })).meta as {
    position: string;
  };
  await scene.recorder.record({
    operationId: 'listProjects',
    name: 'PROJECTION_BEHIND',
    summary: 'The read models had not applied the write named in X-Consistent-After in time',
    headers: { 'X-Consistent-After': position },
    key: scene.liveKey,
    status: 503,
  });
  await scene.service.readStore.close();
  await scene.recorder.record({ operationId: 'getHealth', name: 'degraded', summary: 'The read store does not answer', status: 503 });
}

/** A request written to a socket as it is, for getHealth (every operation shares these refusals' answers). */
async function refusedOnTheSocket(
  scene: Scene,
  name: string,
  request: string,
  expected: { summary: string; status: number },
): Promise<void> {
  await scene.recorder.recordOnTheSocket({ operationId: 'getHealth', name, ...expected }, request);
}

function parseArguments(argv: readonly string[]): { documents: readonly DocumentName[] } | { error: string } {
  if (argv.length === 0) return { documents: DOCUMENTS };
  const [document, ...rest] = argv;
  if (rest.length > 0 || !DOCUMENTS.includes(document as DocumentName))
    return { error: `unknown argument ${JSON.stringify(argv.join(' '))}` };
  return { documents: [document as DocumentName] };
}

process.exitCode = await runCli({
  name: 'openapi-examples',
  usage: USAGE,
  parse: parseArguments,
  run: async (config, { documents }, logger) => {
    // One after the other, each on a fresh service: the admin recording writes what would change the public answers.
    if (documents.includes('public')) await recordPublicExamples(config, logger);
    if (documents.includes('admin')) await recordAdminExamples(config, logger);
  },
  failure: 'recording the OpenAPI examples failed',
});
