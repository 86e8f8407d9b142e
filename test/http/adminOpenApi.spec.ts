import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { request } from '../support/http.js';
import { closedResponseSchemas, inlineObjects, integersOf, openRequestBodies, operationsOf, resolveIn } from '../support/openApiRules.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

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

  it('when an operation is read, then it has its success envelope, the error responses and the headers', () => {
    const revise = document.paths['/states/{stateId}'].patch;
    const parameters = revise.parameters.map((parameter: unknown) => resolveIn(document, parameter));
    expect(revise.operationId).toBe('reviseState');
    expect(parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'path', name: 'stateId', required: true }),
        expect.objectContaining({ in: 'header', name: 'If-Match' }),
        expect.objectContaining({ in: 'header', name: 'X-Request-Id' }),
      ]),
    );
    expect(resolveIn(document, revise.requestBody.content['application/json'].schema).additionalProperties).toBe(false);
    expect(Object.keys(revise.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '408',
      '409',
      '413',
      '415',
      '417',
      '422',
      '431',
      '500',
      '503',
    ]);
    expect(Object.keys(revise.responses['200'].headers).sort()).toEqual(['ETag', 'X-Log-Position', 'X-Request-Id']);
    expect(resolveIn(document, revise.responses['200'].content['application/json'].schema).required).toEqual(['data', 'meta']);
    const errorCodes = (status: string) => {
      const response = resolveIn(document, revise.responses[status]);
      expect(Object.keys(response.headers)).toContain('X-Request-Id');
      return resolveIn(document, resolveIn(document, response.content['application/json'].schema).properties.error).properties.code.enum;
    };
    expect(errorCodes('401')).toEqual(['UNAUTHENTICATED']);
    expect(errorCodes('403')).toEqual(['INSUFFICIENT_ROLE']);
    expect(errorCodes('404')).toEqual(['NOT_FOUND']);
    expect(errorCodes('409')).toEqual(['CONFLICT', 'SLUG_TAKEN', 'PROJECT_DELETED', 'ACCOUNT_TOKEN_TAKEN']);
    expect(errorCodes('422')).toEqual(['VALIDATION_FAILED']);
    expect(errorCodes('500')).toEqual(['INTERNAL_ERROR']);
    expect(errorCodes('503')).toEqual(['SERVICE_UNAVAILABLE']);
    expect(errorCodes('400')).toEqual(['BAD_REQUEST']);

    const create = document.paths['/states'].post;
    expect(Object.keys(create.responses)).toContain('201');
    const createHeaders = create.parameters.map((parameter: unknown) => resolveIn(document, parameter).name);
    expect(createHeaders).toContain('If-Match');
  });

  it('when the operations are read, then every write takes If-Match and every list its pagination, sort and meta.pagination', () => {
    const operations = operationsOf(document).map(({ method, operation }) => [method, operation] as [string, any]);
    const parameterNames = (operation: any) => operation.parameters.map((parameter: unknown) => resolveIn(document, parameter).name);
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
      const body = resolveIn(document, operation.responses['200'].content['application/json'].schema);
      expect(resolveIn(document, body.properties.meta).required).toContain('pagination');
      expect(body.properties.data.type).toBe('array');
    }
    const projects = document.paths['/projects'].get;
    expect(parameterNames(projects)).toEqual(
      expect.arrayContaining(['q', 'status', 'published', 'deleted', 'developer', 'state', 'community', 'updated_since']),
    );
    expect(parameterNames(document.paths['/clients'].get)).toEqual(expect.arrayContaining(['q', 'status', 'plan', 'evaluation']));
    expect(resolveIn(document, document.components.schemas.AdminProjectListItem).required).toContain('revision');
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
    expect(resolveIn(document, add.requestBody.content['multipart/form-data'].schema)).toMatchObject({
      properties: { file: { type: 'string' } },
      required: ['file'],
    });
    expect(add.parameters.map((parameter: unknown) => resolveIn(document, parameter))).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'query', name: 'file_name' })]),
    );
    const codes = (status: string) =>
      resolveIn(
        document,
        resolveIn(document, resolveIn(document, add.responses[status]).content['application/json'].schema).properties.error,
      ).properties.code.enum;
    expect(codes('413')).toEqual(['PAYLOAD_TOO_LARGE']);
    expect(codes('415')).toEqual(['UNSUPPORTED_MEDIA_TYPE']);
    expect(codes('422')).toEqual(['VALIDATION_FAILED', 'FILE_CONTENT_MISMATCH', 'FILE_CORRUPT']);

    const plates = document.paths['/projects/{projectId}/floor-plates'].put.requestBody.content;
    expect(Object.keys(plates)).toEqual(['application/json', 'multipart/form-data']);
    expect(Object.keys(resolveIn(document, plates['multipart/form-data'].schema).patternProperties)).toEqual([
      '^items\\.(0|[1-9][0-9]*)\\.image$',
    ]);
    const video = document.paths['/projects/{projectId}/video'].put.requestBody.content;
    expect(Object.keys(resolveIn(document, video['multipart/form-data'].schema).properties).sort()).toEqual(['file', 'thumbnail']);
    expect(Object.keys(video)).toEqual(expect.arrayContaining(['video/mp4', 'image/jpeg']));
  });

  it('when security is read, then every operation needs the admin bearer token', () => {
    expect(document.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ adminToken: [] }]);
    const others = operationsOf(document).filter(({ operation }) => JSON.stringify(operation.security) !== '[{"adminToken":[]}]');
    expect(others.map(({ operation }) => operation.operationId)).toEqual([]);
  });

  it('when schemas are read, then responses are open, request bodies strict, integers bounded and every object named', () => {
    expect(closedResponseSchemas(document)).toEqual([]);
    expect(openRequestBodies(document)).toEqual([]);
    const integers = integersOf(document);
    expect(integers.filter(({ schema }) => !['int32', 'int64'].includes(schema.format))).toEqual([]);
    expect(integers.filter(({ schema }) => schema.minimum === -Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(integers.filter(({ name, schema }) => /^(id|.+_id)$/.test(name) && schema.minimum !== 1)).toEqual([]);
    expect(inlineObjects(document)).toEqual([]);
    const list = document.paths['/projects'].get.parameters.map((parameter: unknown) => resolveIn(document, parameter));
    expect(list.find((parameter: any) => parameter.name === 'per_page').schema).toMatchObject({
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
  });

  it('when responses are read, then every operation names the refusals any request may meet, and every answer its request id', () => {
    for (const { method, operation } of operationsOf(document)) {
      expect(Object.keys(operation.responses), operation.operationId).toEqual(
        expect.arrayContaining(['400', '401', '408', '417', '431', '500', '503']),
      );
      // 403 INSUFFICIENT_ROLE only where some role may not run it: test/http/openApiErrorCodes.spec.ts.
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = Object.keys(resolveIn(document, response).headers ?? {});
        expect(headers, `${operation.operationId} ${status}`).toContain('X-Request-Id');
        if (status === '503') expect(headers, `${operation.operationId} ${status}`).toContain('Retry-After');
      }
      if (method !== 'get') continue;
      expect(Object.keys(operation.responses), operation.operationId).toContain('304');
      const names = operation.parameters.map((parameter: unknown) => resolveIn(document, parameter).name);
      expect(names, operation.operationId).toEqual(expect.arrayContaining(['If-None-Match', 'X-Consistent-After']));
      const unavailable = resolveIn(document, resolveIn(document, operation.responses['503']).content['application/json'].schema);
      expect(resolveIn(document, unavailable.properties.error).properties.code.enum).toEqual(['SERVICE_UNAVAILABLE', 'PROJECTION_BEHIND']);
    }
  });

  it('when tags and the licence are read, then each tag says what it holds', () => {
    expect(document.info.license.name).toMatch(/^Proprietary/);
    expect(document.tags.filter((tag: { description?: string }) => !tag.description)).toEqual([]);
  });

  it('when asked again with its ETag, then 304', async () => {
    const first = await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken });
    const etag = first.headers.get('etag')!;
    const again = await request(app.baseUrl, '/admin/openapi.yaml', { token: app.adminToken, headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});
