import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { queryRoutes } from '../../queries/index.js';
import { createApiOpenApiDocument } from '../../queries/openApi.js';
import type { BrochureRequest } from '../../src/pdf/pdfOptions.js';
import { request, type Answer } from '../support/http.js';
import { closedResponseSchemas, inlineObjects, integersOf, openRequestBodies, operationsOf, resolveIn } from '../support/openApiRules.js';
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

const resolve = (node: any): any => resolveIn(document, node);

/**
 * The answer's status is documented for the operation, it carries every header the response documents as
 * required, and its body validates against that response's schema.
 */
function expectDocumented(openApiPath: string, answer: Answer, method: 'get' | 'post' = 'get'): void {
  const operation = document.paths[openApiPath]?.[method];
  expect(operation, openApiPath).toBeDefined();
  const responseNode = operation.responses[String(answer.status)];
  expect(responseNode, `${openApiPath} documents ${answer.status}`).toBeDefined();
  for (const [name, header] of Object.entries(resolve(responseNode).headers ?? {})) {
    if (resolve(header).required) expect(answer.headers.get(name), `${openApiPath} ${answer.status} sends ${name}`).not.toBeNull();
  }
  if (answer.status === 304) return;
  const responsePointer =
    typeof responseNode.$ref === 'string'
      ? responseNode.$ref.slice(1)
      : `/paths/${openApiPath.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses/${answer.status}`;
  const validate = ajv.compile({ $ref: `openapi#${responsePointer}/content/application~1json/schema` });
  expect(validate(answer.body), `${openApiPath} ${answer.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

const operations = () => operationsOf(document);

/** The query parameters of GET `path`, by name. */
function queryParameters(path: string): Record<string, any> {
  const parameters = document.paths[path].get.parameters.map(resolve).filter((parameter: any) => parameter.in === 'query');
  return Object.fromEntries(parameters.map((parameter: any) => [parameter.name, parameter]));
}

/** A query value as a client writes it, read as its parameter's schema says (a list: comma-separated, `style: form`). */
function documentedValue(schema: any, raw: string): unknown {
  const scalar = (type: string | undefined, text: string) =>
    (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  return schema.type === 'array' ? raw.split(',').map((item) => scalar(schema.items?.type, item)) : scalar(schema.type, raw);
}

/** Whether a validator holding only the document would let this GET through (an unknown parameter it cannot refuse). */
function documentAccepts(url: string): boolean {
  const [path, query = ''] = url.split('?');
  const parameters = queryParameters(path!);
  return [...new URLSearchParams(query)].every(([name, raw]) => {
    const parameter = parameters[name];
    return parameter === undefined || ajv.validate(parameter.schema, documentedValue(parameter.schema, raw));
  });
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

  it('when every operation is called, then its real 200 response validates against the document', async () => {
    expect(Object.keys(EXAMPLE_URLS).sort()).toEqual(queryRoutes.map((route) => route.operationId).sort());
    for (const route of queryRoutes) {
      const answer = await api.get(EXAMPLE_URLS[route.operationId]!, key);
      expect(answer.status, route.operationId).toBe(200);
      expectDocumented(route.path.replace(/:(\w+)/g, '{$1}'), answer);
    }
    expectDocumented('/health', await request(api.app.baseUrl, '/v1/health'));
    const summaries = await api.get('/projects?ids=1,2', key);
    expect(summaries.body.meta.representation).toBe('project_summary');
    expectDocumented('/projects', summaries);
    expect((await api.get(EXAMPLE_URLS.listProjects!, key)).body.meta.representation).toBe('project_detail');
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

  it('when response schemas are read, then none forbids unknown fields, while every JSON request body refuses them', () => {
    expect(closedResponseSchemas(document)).toEqual([]);
    expect(operations().filter(({ operation }) => operation.requestBody?.content?.['application/json']).length).toBeGreaterThan(0);
    expect(openRequestBodies(document)).toEqual([]);
  });

  it('when the list parameters are read, then each is typed and bounded as the service parses it', () => {
    const listProjects = queryParameters('/projects');
    expect(listProjects.page.schema).toMatchObject({ type: 'integer', format: 'int32', minimum: 1, maximum: 1_000_000, default: 1 });
    expect(listProjects.per_page.schema).toMatchObject({ type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 });
    expect(listProjects.min_price.schema).toMatchObject({ type: 'number', minimum: 0 });
    expect(listProjects.ids).toMatchObject({
      style: 'form',
      explode: false,
      schema: { type: 'array', maxItems: 100, uniqueItems: true, items: { type: 'integer', format: 'int64', minimum: 1 } },
    });
    expect(listProjects.view.schema.description).toContain('needs explicit unique ids');
    const batch = queryParameters('/projects/resources');
    expect(batch.ids.schema).toMatchObject({ type: 'array', maxItems: 25, uniqueItems: true });
    expect(batch.include).toMatchObject({ style: 'form', explode: false, schema: { type: 'array', maxItems: 5, uniqueItems: true } });
    expect(batch.include.schema.items.enum).toEqual(expect.arrayContaining(['media', 'floor_plans', 'floor-plans', 'payment_methods']));
    for (const path of ['/projects/changes', '/webhooks', '/webhooks/{id}/deliveries', '/developers']) {
      expect(queryParameters(path).per_page.schema, path).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    }
    const unbounded = operations().flatMap(({ operation }) =>
      (operation.parameters ?? [])
        .map(resolve)
        .filter(
          (parameter: any) => parameter.schema.type === 'string' && parameter.schema.maxLength === undefined && !parameter.schema.enum,
        )
        .map((parameter: any) => `${operation.operationId} ${parameter.name}`),
    );
    expect(unbounded).toEqual([]);
  });

  it('when deliberately invalid queries are sent, then the document refuses each rule it can express, as the service does', async () => {
    const ids = (count: number) => Array.from({ length: count }, (_, index) => index + 1).join(',');
    // [URL, whether the service accepts it, whether the document does]: they differ only for rules OpenAPI cannot express.
    const cases: Array<[string, boolean, boolean]> = [
      ['/projects?page=1&per_page=100', true, true],
      ['/projects?page=0', false, false],
      ['/projects?page=1000001', false, false],
      ['/projects?per_page=0', false, false],
      ['/projects?per_page=101', false, false],
      ['/projects?per_page=ten', false, false],
      ['/projects?min_price=1500000.50&max_price=2000000', true, true],
      ['/projects?min_price=-1', false, false],
      ['/projects?max_price=cheap', false, false],
      [`/projects?ids=${ids(100)}`, true, true],
      [`/projects?ids=${ids(101)}`, false, false],
      ['/projects?ids=1,1', false, false],
      ['/projects?ids=0', false, false],
      ['/projects?ids=1,2&view=detail', true, true],
      ['/projects?view=full', false, false],
      ['/projects?sort=price', false, false],
      ['/projects?nature=new', false, false],
      ['/projects/changes?cursor=start&per_page=101', false, false],
      ['/webhooks?page=0', false, false],
      [`/projects/resources?ids=${ids(25)}&include=media`, true, true],
      [`/projects/resources?ids=${ids(26)}&include=media`, false, false],
      ['/projects/resources?ids=1,1&include=media', false, false],
      ['/projects/resources?ids=1&include=media,media', false, false],
      ['/projects/resources?ids=1&include=videos', false, false],
      ['/projects/resources?ids=1&include=floor-plans,payment_plans', true, true],
      // What OpenAPI cannot say, each stated in the description of its parameter (or, for unknown ones, of the API).
      ['/projects?colour=red', false, true],
      ['/projects?view=detail', false, true],
      ['/projects?min_price=10&max_price=5', false, true],
      ['/projects/resources?ids=1&include=floor_plans,floor-plans', false, true],
    ];
    for (const [url, accepted, documented] of cases) {
      const answer = await api.get(url, key);
      expect(answer.status, url).toBe(accepted ? 200 : 422);
      expect(documentAccepts(url), url).toBe(documented);
    }
  });

  it('when integers are read, then ids start at 1, counts at 0, none at -(2^53 - 1), and each has a format', () => {
    const integers = integersOf(document);
    expect(integers.length).toBeGreaterThan(50);
    expect(integers.filter(({ schema }) => !['int32', 'int64'].includes(schema.format))).toEqual([]);
    expect(integers.filter(({ schema }) => schema.minimum === -Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(integers.filter(({ name, schema }) => /^(id|.+_id)$/.test(name) && schema.minimum !== 1)).toEqual([]);
    expect(integers.filter(({ name, schema }) => /_count$|^total$/.test(name) && schema.minimum !== 0)).toEqual([]);
  });

  it('when schemas are read, then every object has a name and the project list has one schema per representation', () => {
    expect(inlineObjects(document)).toEqual([]);
    const list = document.paths['/projects'].get.responses['200'].content['application/json'].schema;
    expect(list.anyOf).toEqual([{ $ref: '#/components/schemas/ProjectSummaryPage' }, { $ref: '#/components/schemas/ProjectDetailPage' }]);
    const page = (name: string) => resolve({ $ref: `#/components/schemas/${name}` });
    expect(page('ProjectSummaryPage').properties.data.items).toEqual({ $ref: '#/components/schemas/ProjectSummary' });
    expect(page('ProjectDetailPage').properties.data.items).toEqual({ $ref: '#/components/schemas/ProjectDetail' });
    expect(resolve(page('ProjectDetailPage').properties.meta).properties.representation.const).toBe('project_detail');
  });

  it('when responses are read, then each operation names the statuses it can answer, with the error body and its headers', () => {
    const keyless = ['/health', '/openapi.yaml'];
    const errorCodes = (response: any) => resolve(resolve(response).content['application/json'].schema).properties.error;
    for (const { path, method, operation } of operations()) {
      const statuses = Object.keys(operation.responses);
      const isKeyed = !keyless.includes(path) && !path.startsWith('/media/') && !path.startsWith('/documents/');
      expect(statuses, operation.operationId).toEqual(expect.arrayContaining(['400', '408', '417', '431', '500']));
      if (isKeyed) expect(statuses, operation.operationId).toEqual(expect.arrayContaining(['401', '403', '429', '503']));
      for (const [status, node] of Object.entries(operation.responses)) {
        const response = resolve(node);
        const headers = Object.keys(response.headers ?? {});
        expect(headers, `${operation.operationId} ${status}`).toContain('X-Request-Id');
        if (/^[45]/.test(status) && !(path === '/health' && status === '503')) {
          expect(resolve(errorCodes(node)).properties.code.enum, `${operation.operationId} ${status}`).toBeDefined();
        }
        const refusal = status === '429' || (status === '503' && path !== '/health');
        if (refusal) expect(headers, `${operation.operationId} ${status}`).toContain('Retry-After');
        if (isKeyed && /^(2|304)/.test(status)) {
          expect(headers, `${operation.operationId} ${status}`).toEqual(expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining']));
          if (method === 'get') expect(headers, `${operation.operationId} ${status}`).toContain('ETag');
        }
      }
    }
    const batch = document.paths['/projects/resources'].get.responses;
    expect(Object.keys(batch['200'].headers)).toContain('X-Quota-Units');
    expect(resolve(errorCodes(batch['403'])).properties.code.enum).toEqual(
      expect.arrayContaining(['INSUFFICIENT_SCOPE', 'ENTITLEMENT_REQUIRED', 'API_KEY_REVOKED']),
    );
    // The batch serves Evaluation Mode (preview media): test/http/openApiErrorCodes.spec.ts holds each 403 to its operation.
    expect(resolve(errorCodes(batch['403'])).properties.code.enum).not.toContain('EVALUATION_PREVIEW_ONLY');
    expect(resolve(errorCodes(batch['429'])).properties.code.enum).toEqual([
      'BURST_LIMIT_EXCEEDED',
      'PER_MINUTE_LIMIT_EXCEEDED',
      'DAILY_LIMIT_EXCEEDED',
      'MONTHLY_LIMIT_EXCEEDED',
    ]);
    expect(resolve(errorCodes(batch['503'])).properties.code.enum).toEqual(['SERVICE_UNAVAILABLE', 'PROJECTION_BEHIND']);
  });

  it('when security is read, then keyless routes say so and every other operation needs the key', () => {
    for (const { path, operation } of operations()) {
      const keyless = ['/health', '/openapi.yaml'].includes(path) || path.startsWith('/media/') || path.startsWith('/documents/');
      expect(operation.security, operation.operationId).toEqual(keyless ? [] : [{ apiKey: [] }]);
    }
    expect(document.info.description).toContain('Only /health, /openapi.yaml, image addresses (/media/...) and signed document links');
  });

  it('when servers are read, then the relative /v1 stands in unless a public base URL is configured', () => {
    expect(document.servers.map((server: any) => server.url)).toEqual(['/v1']);
    const configured = createApiOpenApiDocument(queryRoutes, { publicBaseUrl: 'https://api.example.test/v1' });
    expect(configured.servers?.map((server) => server.url)).toEqual(['https://api.example.test/v1']);
  });

  it('when tags and the licence are read, then each tag says what it holds', () => {
    expect(document.info.license.name).toMatch(/^Proprietary/);
    const used = new Set(operations().flatMap(({ operation }) => operation.tags));
    expect(document.tags.map((tag: any) => tag.name).sort()).toEqual([...used].sort());
    expect(document.tags.filter((tag: any) => !tag.description)).toEqual([]);
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
