import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { documentFilesPaths } from '../../queries/documentFiles.js';
import { mediaFilesPaths } from '../../queries/mediaFiles.js';
import { queryRoutes } from '../../queries/index.js';
import { webhookRoutes } from '../../src/http/webhookApi.js';
import { webhookDeliveryPaths } from '../../queries/webhookEventsOpenApi.js';
import type { BrochureRequest } from '../../src/pdf/pdfOptions.js';
import { request, type Answer } from '../support/http.js';
import { imageRef, minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

let api: ApiFixture;
let key: string;
let document: any;
let ajv: Ajv2020;

const pdf = (fileKey: string) => ({
  key: fileKey,
  file_name: `${fileKey}.pdf`,
  content_type: 'application/pdf' as const,
  size_bytes: 1_000,
});

/**
 * The renderer port as a double: renders at once, hangs on 'minimal' until the worker's deadline stops it,
 * fails on 'bold'.
 */
const brochureRenderer = {
  async render(request: BrochureRequest, signal?: AbortSignal) {
    if (request.template === 'bold') throw new Error('browser crashed');
    if (request.template === 'minimal') await new Promise((resolve) => signal?.addEventListener('abort', resolve));
    return { pdf: Buffer.from(`%PDF-1.7\n% ${request.projectId}\n%%EOF\n`), pages: 1, mapDrawn: false };
  },
};

beforeAll(async () => {
  api = await startApiFixture({ env: { PDF_RENDER_TIMEOUT_MS: '1000' }, brochureRenderer });
  const events: StreamEvent[] = [
    ...publishedReferenceCatalogue(),
    projectCreated(1, { sub_community_id: 1 }, minute(1)),
    projectEvent('ProjectPublished', 1, {}, minute(1)),
    projectCreated(2, { location: null }, minute(2)),
    projectEvent('ProjectPublished', 2, {}, minute(2)),
    projectEvent('FloorPlanAdded', 1, {
      floor_plan: { floor_plan_id: 1, title: 'A', unit_type_id: null, area: '900 sq ft', price: null, image: imageRef('f1') },
    }),
    projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 1, caption: null, position: 0, image: imageRef('g1') } }),
    projectEvent('MasterPlanDocumentAttached', 1, { document: pdf('m1') }),
    projectEvent('VideoSet', 1, {
      video: {
        title: 'V',
        description: 'D',
        external_url: null,
        file: { key: 'v1', file_name: 'v1.mp4', content_type: 'video/mp4', size_bytes: 10 },
        thumbnail: null,
      },
    }),
    projectEvent('BrochureAttached', 1, { brochure: pdf('b1') }),
    projectEvent('RelatedProjectsSet', 1, { project_ids: [2] }),
    projectEvent('FloorPlatesSet', 1, { items: [{ title: 'T', floors: null, image: null }] }),
    projectEvent('ProjectRevised', 2, { changes: { name: 'Changed' } }, minute(10)),
  ];
  await api.given(events);
  key = await api.key();
  const answer = await request(api.app.baseUrl, '/v1/openapi.yaml');
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/yaml/);
  document = parse(answer.body);
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi');
});

afterAll(async () => {
  await api.close();
});

/** The answer's status is documented for the operation, and its body validates against that response's schema. */
function expectDocumented(openApiPath: string, answer: Answer, method: 'get' | 'post' = 'get'): void {
  const operation = document.paths[openApiPath]?.[method];
  expect(operation, openApiPath).toBeDefined();
  const responseNode = operation.responses[String(answer.status)];
  expect(responseNode, `${openApiPath} documents ${answer.status}`).toBeDefined();
  if (answer.status === 304) return;
  const responsePointer =
    typeof responseNode.$ref === 'string'
      ? responseNode.$ref.slice(1)
      : `/paths/${openApiPath.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses/${answer.status}`;
  const validate = ajv.compile({ $ref: `openapi#${responsePointer}/content/application~1json/schema` });
  expect(validate(answer.body), `${openApiPath} ${answer.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

const PDF_PATH = '/projects/{project}/pdf';

/** A concrete URL for every documented operation. */
const EXAMPLE_URLS: Record<string, string> = {
  listProjects: '/projects?sort=name&view=detail&ids=1,2',
  listProjectChanges: `/projects/changes?updated_since=${encodeURIComponent(minute(5))}`,
  getProject: '/projects/project-1',
  getProjectResourcesBatch: '/projects/resources?ids=1,2,3&include=media,floor-plans,amenities,payment_plans,payment_methods',
  listFloorPlans: '/projects/1/floor-plans',
  listPaymentPlans: '/projects/1/payment-plans',
  getProjectMedia: '/projects/1/media',
  getProjectVideo: '/projects/1/video',
  listAmenities: '/projects/1/amenities',
  listNearbyPlaces: '/projects/1/nearby',
  listPaymentMethods: '/projects/1/payment-methods',
  listFaqs: '/projects/1/faqs',
  listVirtualTours: '/projects/1/virtual-tours',
  listFloorPlates: '/projects/1/floor-plates',
  getProjectBrochure: '/projects/1/brochure',
  listRelatedProjects: '/projects/1/related',
  listDevelopers: '/developers',
  getDeveloper: '/developers/emaar',
  listCommunities: '/communities?state=dubai',
  getCommunity: '/communities/1',
  getState: '/states/dubai',
  listSubCommunities: '/sub-communities',
  getSubCommunity: '/sub-communities/marina-walk',
  getCatalogMetadata: '/catalog/metadata',
  listAgentProfiles: '/agent-profiles',
  listPdfTemplates: '/pdf-templates',
};

describe('GET /v1/openapi.yaml', () => {
  it('when validated against the OpenAPI 3.1 schema, then it is valid', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('when compared with the query and webhook routes, then it documents exactly the operations served (plus /health, itself, image addresses and signed links)', () => {
    const documents = [...Object.keys(mediaFilesPaths), ...Object.keys(documentFilesPaths)];
    const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
    const served = [
      '/health',
      '/openapi.yaml',
      ...documents,
      ...[...queryRoutes, ...webhookRoutes].map((route) => openApiPath(route.path)),
      ...Object.keys(webhookDeliveryPaths),
      PDF_PATH,
    ];
    expect(Object.keys(document.paths).sort()).toEqual([...new Set(served)].sort());
    for (const [path, item] of Object.entries(document.paths) as Array<[string, any]>) {
      const webhookMethods = webhookRoutes.filter((route) => openApiPath(route.path) === path).map((route) => route.method);
      const deliveryMethods = Object.keys(webhookDeliveryPaths[path] ?? {});
      const expected = documents.includes(path)
        ? ['get', 'head']
        : webhookMethods.length > 0
          ? webhookMethods
          : deliveryMethods.length > 0
            ? deliveryMethods
            : path === PDF_PATH
              ? ['post']
              : ['get'];
      expect(Object.keys(item).sort(), path).toEqual(expected.sort());
    }
  });

  it('when every operation is called, then its real 200 response validates against the document', async () => {
    expect(Object.keys(EXAMPLE_URLS).sort()).toEqual(queryRoutes.map((route) => route.operationId).sort());
    for (const route of queryRoutes) {
      const answer = await api.get(EXAMPLE_URLS[route.operationId]!, key);
      expect(answer.status, route.operationId).toBe(200);
      expectDocumented(route.path.replace(/:(\w+)/g, '{$1}'), answer);
    }
    expectDocumented('/health', await request(api.app.baseUrl, '/v1/health'));
  });

  it('when errors are provoked, then their bodies validate against the documented error responses', async () => {
    expectDocumented('/projects/{project}', await api.get('/projects/999', key));
    expectDocumented('/projects/{project}/video', await api.get('/projects/2/video', key));
    expectDocumented('/projects/{project}/brochure', await api.get('/projects/2/brochure', key));
    expectDocumented('/projects', await api.get('/projects?per_page=1000', key));
    expectDocumented('/projects', await request(api.app.baseUrl, '/v1/projects'));
    expectDocumented('/projects', await api.get(`/projects?api_key=${key}`, key));
    expectDocumented('/catalog/metadata', await api.get('/catalog/metadata', await api.key({ scopes: ['projects:read'] })));
    const etag = (await api.get('/states/1', key)).headers.get('etag')!;
    expectDocumented('/states/{idOrSlug}', await api.get('/states/1', key, { headers: { 'if-none-match': etag } }));
  });

  it('when a brochure is generated, reused or refused, then each answer validates against POST /projects/{project}/pdf', async () => {
    const post = (path: string, body?: unknown, useKey = key) =>
      api.get(path, useKey, { method: 'POST', ...(body === undefined ? {} : { body }) });
    const generated = await post('/projects/1/pdf', { template: 'classic', sections: ['cover'] });
    expect(generated.status).toBe(200);
    expect(generated.headers.get('x-pdf-quota-minute-limit')).not.toBeNull();
    expectDocumented(PDF_PATH, generated, 'post');
    const cached = await post('/projects/1/pdf', { template: 'Classic', sections: ['cover'] });
    expect(cached.body.data.cached).toBe(true);
    expectDocumented(PDF_PATH, cached, 'post');
    for (const [status, answer] of [
      [404, await post('/projects/999/pdf')],
      [422, await post('/projects/1/pdf', { template: 'baroque', colour: 'red' })],
      [415, await api.get('/projects/1/pdf', key, { method: 'POST', body: 'template=classic', headers: { 'content-type': 'text/plain' } })],
      [503, await post('/projects/1/pdf', { template: 'bold' })],
      [504, await post('/projects/1/pdf', { template: 'minimal' })],
    ] as const) {
      expect(answer.status).toBe(status);
      expectDocumented(PDF_PATH, answer, 'post');
    }
    const withKey = (idempotencyKey: string, template: string) =>
      api.get('/projects/1/pdf', key, { method: 'POST', body: { template }, headers: { 'idempotency-key': idempotencyKey } });
    const [inUse, timedOut] = await Promise.all([
      withKey('key-1', 'minimal'),
      new Promise((resolve) => setTimeout(resolve, 200)).then(() => withKey('key-1', 'minimal')),
    ]).then((answers) => answers.sort((a, b) => a.status - b.status));
    expect([inUse!.status, timedOut!.status]).toEqual([409, 504]);
    expectDocumented(PDF_PATH, inUse!, 'post');
    expect((await withKey('key-2', 'classic')).status).toBe(200);
    const reused = await withKey('key-2', 'editorial');
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expectDocumented(PDF_PATH, reused, 'post');
    const limited = await api.issue();
    expect(
      (await api.admin('PATCH', `/clients/${limited.clientId}`, { pdf_limits: { per_minute: 1, daily: 10, monthly: 10 } })).status,
    ).toBe(200);
    await api.settle();
    expect((await post('/projects/2/pdf', {}, limited.key)).status).toBe(200);
    const refused = await post('/projects/2/pdf', { language: 'ar' }, limited.key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.details.limit).toBe('pdf');
    expectDocumented(PDF_PATH, refused, 'post');
  });

  it('when the document is asked again with its ETag, then 304', async () => {
    const first = await request(api.app.baseUrl, '/v1/openapi.yaml');
    const again = await request(api.app.baseUrl, '/v1/openapi.yaml', { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('when the DESIGN.md choices are read, then the description records them', () => {
    for (const phrase of [
      'per_page` to 20',
      'VALIDATION_FAILED',
      'NOT_FOUND',
      'INSUFFICIENT_SCOPE',
      'ENTITLEMENT_REQUIRED',
      '`off_plan` or `ready`',
      'total_pages',
    ]) {
      expect(document.info.description).toContain(phrase);
    }
  });
});
