import { Validator } from '@seriousme/openapi-schema-validator';
import type { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { noStoredFiles } from '../../src/catalogue/storedFiles.js';
import { adminRoutes, createAdminRouter } from '../../src/http/adminRouter.js';
import { statusAdminRoutes } from '../../src/http/adminRoutes/statusRoutes.js';
import { webhookDeliveryAdminRoutes } from '../../src/http/adminRoutes/webhookDeliveryRoutes.js';
import type { JobQueue } from '../../src/jobQueue/jobQueue.js';
import type { UploadReceiver } from '../../src/uploads/uploadReceiver.js';
import { request } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** (method, path) pairs an express router serves, read from its own route stack, in OpenAPI spelling. */
function servedOperations(router: Router): string[] {
  return router.stack.flatMap((layer) => {
    const route = layer.route as { path: string; methods: Record<string, boolean> } | undefined;
    if (!route) return [];
    return Object.keys(route.methods)
      .filter((method) => method !== '_all')
      .map((method) => `${method.toUpperCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
  });
}

function documentedOperations(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** Follows a local `$ref` (e.g. `#/components/responses/Conflict`) inside the document. */
function resolve(document: any, node: any): any {
  if (typeof node?.$ref !== 'string') return node;
  return node.$ref
    .slice(2)
    .split('/')
    .reduce((current: any, segment: string) => current[segment], document);
}

describe('GET /admin/openapi.yaml', () => {
  let app: TestApp;
  let document: any;
  beforeAll(async () => {
    app = await startTestApp();
    const answer = await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/yaml/);
    document = parse(answer.body);
  });
  afterAll(() => app.close());

  it('when validated against the OpenAPI 3.1 schema, then it is valid', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('when compared with the admin router, then it documents exactly the operations the router serves', () => {
    const uploads: UploadReceiver = { receive: () => Promise.reject(new Error('no upload is sent')) };
    // The app adds the manual retry of webhook deliveries, made on its queue; listing the operations calls none.
    const unused = () => Promise.reject(new Error('no job is queued here'));
    const noQueue: JobQueue = { add: unused, retry: unused, counts: unused, close: unused, consume: () => ({ stop: unused }) };
    // And the status, made on this process's heartbeat and lag probe.
    const noStatus = { status: () => Promise.reject(new Error('no status is asked here')) };
    const router = createAdminRouter([...adminRoutes, ...webhookDeliveryAdminRoutes(noQueue), ...statusAdminRoutes(noStatus)], {
      eventStore: app.eventStore,
      readStore: app.readStore,
      clock: () => new Date(),
      storedFiles: noStoredFiles,
      uploads,
    });
    const served = servedOperations(router);
    expect(served.length).toBeGreaterThan(0);
    expect(new Set(served).size).toBe(served.length);
    expect(documentedOperations(document).sort()).toEqual([...served].sort());
  });

  it('when an operation is read, then it has its success envelope, the error responses and the headers', () => {
    const revise = document.paths['/states/{stateId}'].patch;
    const parameters = revise.parameters.map((parameter: unknown) => resolve(document, parameter));
    expect(revise.operationId).toBe('reviseState');
    expect(parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'path', name: 'stateId', required: true }),
        expect.objectContaining({ in: 'header', name: 'If-Match' }),
        expect.objectContaining({ in: 'header', name: 'X-Request-Id' }),
      ]),
    );
    expect(revise.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(Object.keys(revise.responses).sort()).toEqual(['200', '401', '403', '404', '409', '413', '415', '422']);
    expect(Object.keys(revise.responses['200'].headers).sort()).toEqual(['ETag', 'X-Log-Position', 'X-Request-Id']);
    expect(revise.responses['200'].content['application/json'].schema.required).toEqual(['data', 'meta']);
    const errorCodes = (status: string) => {
      const response = resolve(document, revise.responses[status]);
      expect(Object.keys(response.headers)).toContain('X-Request-Id');
      return resolve(document, resolve(document, response.content['application/json'].schema).properties.error).properties.code.enum;
    };
    expect(errorCodes('401')).toEqual(['UNAUTHENTICATED']);
    expect(errorCodes('403')).toEqual(['INSUFFICIENT_ROLE']);
    expect(errorCodes('404')).toEqual(['NOT_FOUND']);
    expect(errorCodes('409')).toEqual(['CONFLICT', 'SLUG_TAKEN', 'PROJECT_DELETED']);
    expect(errorCodes('422')).toEqual(['VALIDATION_FAILED']);

    const create = document.paths['/states'].post;
    expect(Object.keys(create.responses)).toContain('201');
    const createHeaders = create.parameters.map((parameter: unknown) => resolve(document, parameter).name);
    expect(createHeaders).toContain('If-Match');
  });

  it('when the operations are read, then every write takes If-Match and every list its pagination, sort and meta.pagination', () => {
    const operations = Object.values(document.paths).flatMap((item: any) =>
      Object.entries(item).filter(([method]) => HTTP_METHODS.includes(method)),
    ) as Array<[string, any]>;
    const parameterNames = (operation: any) => operation.parameters.map((parameter: unknown) => resolve(document, parameter).name);
    const writesWithoutIfMatch = operations
      .filter(([method, operation]) => method !== 'get' && !parameterNames(operation).includes('If-Match'))
      .map(([, operation]) => operation.operationId);
    expect(writesWithoutIfMatch).toEqual([]);

    // A record's history pages too, newest first, without a sort (test/http/history.spec.ts).
    const lists = operations.filter(
      ([method, operation]) =>
        method === 'get' && parameterNames(operation).includes('per_page') && !operation.operationId.endsWith('History'),
    );
    expect(lists.map(([, operation]) => operation.operationId).sort()).toEqual(
      [
        'listAgentProfiles',
        'listApiKeys',
        'listClientAgentProfiles',
        'listClients',
        'listCommunities',
        'listDevelopers',
        'listEditors',
        'listPlanChanges',
        'listPlans',
        'listProjects',
        'listStates',
        'listSubCommunities',
        'listSubscriptions',
        'listUnitTypes',
        'listWebhooks',
      ].sort(),
    );
    for (const [, operation] of lists) {
      expect(parameterNames(operation)).toEqual(expect.arrayContaining(['page', 'per_page', 'sort']));
      const body = operation.responses['200'].content['application/json'].schema;
      expect(body.properties.meta.required).toContain('pagination');
      expect(body.properties.data.type).toBe('array');
    }
    const projects = document.paths['/projects'].get;
    expect(parameterNames(projects)).toEqual(
      expect.arrayContaining(['q', 'status', 'published', 'deleted', 'developer', 'state', 'community', 'updated_since']),
    );
    expect(parameterNames(document.paths['/clients'].get)).toEqual(expect.arrayContaining(['q', 'status', 'plan', 'evaluation']));
    expect(resolve(document, document.components.schemas.AdminProjectListItem).required).toContain('revision');
  });

  it('when an operation that records a file is read, then it takes JSON, the raw file and multipart, and names the upload refusals', () => {
    const add = document.paths['/projects/{projectId}/gallery'].post;
    expect(Object.keys(add.requestBody.content)).toEqual([
      'application/json',
      'multipart/form-data',
      'image/jpeg',
      'image/png',
      'image/webp',
    ]);
    expect(add.requestBody.content['multipart/form-data'].schema).toMatchObject({
      properties: { file: { type: 'string' } },
      required: ['file'],
    });
    expect(add.parameters.map((parameter: unknown) => resolve(document, parameter))).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'query', name: 'file_name' })]),
    );
    const codes = (status: string) =>
      resolve(document, resolve(document, resolve(document, add.responses[status]).content['application/json'].schema).properties.error)
        .properties.code.enum;
    expect(codes('413')).toEqual(['PAYLOAD_TOO_LARGE']);
    expect(codes('415')).toEqual(['UNSUPPORTED_MEDIA_TYPE']);
    expect(codes('422')).toEqual(['VALIDATION_FAILED', 'FILE_CONTENT_MISMATCH', 'FILE_CORRUPT']);

    const plates = document.paths['/projects/{projectId}/floor-plates'].put.requestBody.content;
    expect(Object.keys(plates)).toEqual(['application/json', 'multipart/form-data']);
    expect(Object.keys(plates['multipart/form-data'].schema.patternProperties)).toEqual(['^items\\.(0|[1-9][0-9]*)\\.image$']);
    const video = document.paths['/projects/{projectId}/video'].put.requestBody.content;
    expect(Object.keys(video['multipart/form-data'].schema.properties).sort()).toEqual(['file', 'thumbnail']);
    expect(Object.keys(video)).toEqual(expect.arrayContaining(['video/mp4', 'image/jpeg']));
  });

  it('when security is read, then every operation needs the admin bearer token', () => {
    expect(document.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ adminToken: [] }]);
  });

  it('when asked again with its ETag, then 304', async () => {
    const first = await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken });
    const etag = first.headers.get('etag')!;
    const again = await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});
