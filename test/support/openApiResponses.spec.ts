import { describe, expect, it } from 'vitest';
import { createResponseChecker, type Exchange } from './openApiResponses.js';

const document = {
  openapi: '3.1.0',
  info: { title: 'Checker fixture', version: '1' },
  servers: [{ url: '/v1' }],
  components: {
    schemas: {
      Project: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'integer', format: 'int64', minimum: 1 }, name: { type: 'string' } },
      },
    },
    headers: {
      XRequestId: { required: true, schema: { type: 'string' } },
    },
  },
  paths: {
    '/projects/{project}': {
      get: {
        responses: {
          '200': {
            description: 'OK.',
            headers: {
              'X-Request-Id': { $ref: '#/components/headers/XRequestId' },
              'RateLimit-Remaining': { schema: { type: 'string', pattern: '^\\d+$' } },
            },
            content: {
              'application/json': {
                schema: { type: 'object', required: ['data'], properties: { data: { $ref: '#/components/schemas/Project' } } },
              },
            },
          },
          '304': { description: 'Not modified.' },
          '4XX': { description: 'Refused.', content: { 'application/json': { schema: { type: 'object', required: ['error'] } } } },
        },
      },
    },
    '/health': { get: { responses: { '204': { description: 'No body.' } } } },
    '/projects/changes': {
      get: { responses: { '200': { description: 'OK.', content: { 'text/csv': { schema: { type: 'string' } } } } } },
    },
  },
};

const checker = createResponseChecker([{ name: 'fixture', mount: '/v1', document }]);

function answer(path: string, status: number, body: unknown, headers: Record<string, string> = {}, method = 'GET'): Exchange {
  const json = body !== undefined;
  return {
    method,
    url: `http://127.0.0.1:4000${path}`,
    status,
    headers: new Headers({ 'x-request-id': 'r-1', ...(json ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...headers }),
    body: json ? JSON.stringify(body) : undefined,
  };
}

describe('checking answers against an OpenAPI document', () => {
  it('when an answer is what its operation documents, then nothing is reported', () => {
    expect(checker.check(answer('/v1/projects/7', 200, { data: { id: 7, name: 'Marina', extra: true } }))).toEqual([]);
    expect(checker.check(answer('/v1/projects/7', 304, undefined))).toEqual([]);
  });

  it('when the status is not documented for the operation, then the mismatch names it and the documented ones', () => {
    expect(checker.check(answer('/v1/projects/7', 500, { error: {} }))).toEqual([
      'GET /v1/projects/{project} (/v1/projects/7) answered 500: the status is not documented (documented: 200, 304, 4XX)',
    ]);
  });

  it('when a status falls in a documented range, then the range response applies', () => {
    expect(checker.check(answer('/v1/projects/7', 404, { error: {} }))).toEqual([]);
    expect(checker.check(answer('/v1/projects/7', 404, { problem: {} }))).toEqual([
      'GET /v1/projects/{project} (/v1/projects/7) answered 404: body must have required property \'error\': {"problem":{}}',
    ]);
  });

  it('when the body breaks the schema, then each problem is named with where it is and the value there', () => {
    const [mismatch] = checker.check(answer('/v1/projects/7', 200, { data: { id: 0, name: 5 } }));
    expect(mismatch).toContain('/data/id must be >= 1: 0');
    expect(mismatch).toContain('/data/name must be string: 5');
  });

  it('when a required header is missing or a documented one is malformed, then both are reported', () => {
    const exchange = answer('/v1/projects/7', 200, { data: { id: 7, name: 'Marina' } }, { 'ratelimit-remaining': 'many' });
    exchange.headers.delete('x-request-id');
    expect(checker.check(exchange)).toEqual([
      'GET /v1/projects/{project} (/v1/projects/7) answered 200: the documented header X-Request-Id is missing',
      expect.stringContaining('answered 200: header RateLimit-Remaining must match pattern "^\\d+$": "many"'),
    ]);
  });

  it('when a literal path and a template both match, then the literal one is the operation', () => {
    const csv = { ...answer('/v1/projects/changes', 200, undefined), headers: new Headers({ 'content-type': 'text/csv' }) };
    expect(checker.check(csv)).toEqual([]);
    expect(checker.check(answer('/v1/projects/changes', 200, { data: [] }))).toEqual([
      'GET /v1/projects/changes (/v1/projects/changes) answered 200: a application/json body, but the response documents text/csv',
    ]);
  });

  it('when a documented body is missing, or a body comes where none is documented, then that is reported', () => {
    expect(checker.check(answer('/v1/projects/7', 200, undefined))).toEqual([
      'GET /v1/projects/{project} (/v1/projects/7) answered 200: no body, but application/json is documented',
    ]);
    expect(checker.check(answer('/v1/health', 204, { status: 'ok' }))).toEqual([
      'GET /v1/health (/v1/health) answered 204: a application/json body, but the response documents no body',
    ]);
  });

  it('when HEAD is not documented, then its answer is checked as the GET without a body', () => {
    expect(checker.check(answer('/v1/projects/7', 200, undefined, {}, 'HEAD'))).toEqual([]);
    expect(checker.check(answer('/v1/projects/7', 201, undefined, {}, 'HEAD'))[0]).toContain('the status is not documented');
  });

  it('when no operation of the document serves the method or path, then the answer is not the document’s to check', () => {
    expect(checker.check(answer('/v1/projects/7', 405, { error: {} }, {}, 'DELETE'))).toEqual([]);
    expect(checker.check(answer('/v1/unknown', 404, { error: {} }))).toEqual([]);
    expect(checker.check(answer('/livez', 200, { status: 'ok' }))).toEqual([]);
  });
});
