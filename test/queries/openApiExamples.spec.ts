import { existsSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { queryRoutes } from '../../queries/index.js';
import { apiOpenApiYaml, createApiOpenApiDocument } from '../../queries/openApi.js';
import { openApiExamplesSchema, recordedExamplesIn } from '../../src/http/openApiExamples.js';
import { operationsOf, resolveIn, type DocumentedOperation } from '../support/openApiRules.js';

/*
 * The examples of /v1/openapi.yaml are recorded from the service by `npm run openapi:examples`
 * (src/cli/openApiExamples.ts) into queries/openApiExamples.json. These tests check that the recording covers
 * the document as it is now (rerun the generator when one fails after a change of the API) and that every
 * example in the served document validates against the schema it illustrates.
 */

const EXAMPLES_FILE = new URL('../../queries/openApiExamples.json', import.meta.url);
const recorded = recordedExamplesIn(EXAMPLES_FILE);
/** As the service serves it. */
const document: any = parse(apiOpenApiYaml(queryRoutes));
const bare: any = createApiOpenApiDocument(queryRoutes, { examples: null });

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(document, 'openapi');

const resolve = (node: any): any => resolveIn(document, node);
const pointer = (...segments: Array<string | number>) =>
  segments.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
const validators = new Map<string, ReturnType<Ajv2020['compile']>>();
/** Validates `value` against the schema at `schemaPointer` in the served document; the errors when it does not. */
function problems(schemaPointer: string, value: unknown): string | null {
  const validate = validators.get(schemaPointer) ?? ajv.compile({ $ref: `openapi#${schemaPointer}` });
  validators.set(schemaPointer, validate);
  return validate(value) ? null : JSON.stringify(validate.errors);
}

/** Where a response lives in the document: its component when it refers to one. */
function responsePointer({ path, method }: DocumentedOperation, status: string): string {
  const node = document.paths[path][method].responses[status];
  return typeof node.$ref === 'string' ? node.$ref.slice(1) : pointer('paths', path, method, 'responses', status);
}

/** The examples of a response: those of its media types, or (for one without a body) of its headers. */
function responseExamples(operation: DocumentedOperation, status: string): Array<{ where: string; schema: string; example: any }> {
  const at = responsePointer(operation, status);
  const response = resolve(operation.operation.responses[status]);
  const ofContent = Object.entries(response.content ?? {}).flatMap(([mediaType, media]: [string, any]) =>
    Object.entries(media.examples ?? {}).map(([name, example]) => ({
      where: `${operation.operation.operationId} ${status} ${mediaType} ${name}`,
      schema: `${at}${pointer('content', mediaType, 'schema')}`,
      example,
    })),
  );
  const ofHeaders = Object.entries(response.headers ?? {})
    .filter(([, header]: [string, any]) => resolve(header).example !== undefined)
    .map(([name, header]: [string, any]) => ({
      where: `${operation.operation.operationId} ${status} header ${name}`,
      schema: typeof header.$ref === 'string' ? `${header.$ref.slice(1)}/schema` : `${at}${pointer('headers', name, 'schema')}`,
      example: { value: resolve(header).example },
    }));
  return [...ofContent, ...ofHeaders];
}

const statusesOf = (operation: DocumentedOperation) => Object.keys(operation.operation.responses);
/** The answers an operation gives when it does what it is for: its 2xx, or (a redirecting link) its 302. */
const successStatuses = (operation: DocumentedOperation) => {
  const successes = statusesOf(operation).filter((status) => status.startsWith('2'));
  return successes.length > 0 ? successes : statusesOf(operation).filter((status) => /^3/.test(status) && status !== '304');
};
const errorStatuses = (operation: DocumentedOperation) => statusesOf(operation).filter((status) => Number(status) >= 400);
/** Path and query parameters written out in the operation (the shared header components carry none). */
const ownParameters = ({ operation }: DocumentedOperation) =>
  (operation.parameters ?? []).filter((parameter: any) => parameter.$ref === undefined && ['path', 'query'].includes(parameter.in));

describe('the recorded OpenAPI examples (queries/openApiExamples.json)', () => {
  it('when the file is read, then it fits the examples schema', () => {
    expect(existsSync(EXAMPLES_FILE), 'queries/openApiExamples.json is missing: run npm run openapi:examples').toBe(true);
    const parsed = openApiExamplesSchema.safeParse(JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')));
    expect(parsed.error?.issues ?? [], 'queries/openApiExamples.json is of another shape: run npm run openapi:examples').toEqual([]);
  });

  it('when the file is read, then it records every operation of the document and none it no longer has', () => {
    const documented = operationsOf(bare).map(({ operation }) => operation.operationId as string);
    expect(Object.keys(recorded?.operations ?? {}).sort()).toEqual([...documented].sort());
  });

  it('when an example is compared with its operation, then it was sent to its path with its method and answered a documented status', () => {
    const stale: string[] = [];
    for (const { path, method, operation } of operationsOf(bare)) {
      const template = new RegExp(`^/v1${path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?|$)`);
      for (const [name, example] of Object.entries(recorded?.operations[operation.operationId] ?? {})) {
        const { request, response } = example;
        if (request.method !== method.toUpperCase() || !template.test(request.target))
          stale.push(`${operation.operationId} ${name}: ${request.target}`);
        if (operation.responses[String(response.status)] === undefined) stale.push(`${operation.operationId} ${name}: ${response.status}`);
      }
    }
    expect(stale, 'examples of another request or status than the document has: run npm run openapi:examples').toEqual([]);
  });
});

describe('the examples in /v1/openapi.yaml', () => {
  it('when every operation is read, then each has an example of the answer it succeeds with', () => {
    const missing = operationsOf(document)
      .filter((operation) => successStatuses(operation).every((status) => responseExamples(operation, status).length === 0))
      .map(({ operation }) => operation.operationId);
    expect(missing).toEqual([]);
  });

  it('when every operation is read, then each error status it documents has an example', () => {
    const missing = operationsOf(document).flatMap((operation) =>
      errorStatuses(operation)
        .filter((status) => responseExamples(operation, status).length === 0)
        .map((status) => `${operation.operation.operationId} ${status}`),
    );
    expect(missing).toEqual([]);
  });

  it('when an operation takes parameters or a body, then its request has an example: every required parameter, and the body', () => {
    const missing = operationsOf(document).flatMap((operation) => {
      const parameters = ownParameters(operation);
      const withoutExample = parameters.filter((parameter: any) => Object.keys(parameter.examples ?? {}).length === 0);
      const body = operation.operation.requestBody?.content?.['application/json'];
      return [
        ...withoutExample
          .filter((parameter: any) => parameter.required)
          .map((parameter: any) => `${operation.operation.operationId} ${parameter.name}`),
        ...(parameters.length > 0 && withoutExample.length === parameters.length
          ? [`${operation.operation.operationId}: no parameter`]
          : []),
        ...(body !== undefined && Object.keys(body.examples ?? {}).length === 0 ? [`${operation.operation.operationId}: body`] : []),
      ];
    });
    expect(missing).toEqual([]);
  });

  it('when the examples are validated, then each parameter, body and answer example fits the schema it illustrates', () => {
    const invalid: string[] = [];
    const check = (where: string, schema: string, value: unknown) => {
      const problem = problems(schema, value);
      if (problem !== null) invalid.push(`${where}: ${problem}`);
    };
    let checked = 0;
    for (const operation of operationsOf(document)) {
      const { path, method, operation: documented } = operation;
      documented.parameters?.forEach((parameter: any, index: number) => {
        for (const [name, example] of Object.entries<any>(parameter.examples ?? {})) {
          check(
            `${documented.operationId} ${parameter.name} ${name}`,
            pointer('paths', path, method, 'parameters', index, 'schema'),
            example.value,
          );
          checked++;
        }
      });
      for (const [mediaType, media] of Object.entries<any>(documented.requestBody?.content ?? {})) {
        for (const [name, example] of Object.entries<any>(media.examples ?? {})) {
          check(
            `${documented.operationId} body ${name}`,
            pointer('paths', path, method, 'requestBody', 'content', mediaType, 'schema'),
            example.value,
          );
          checked++;
        }
      }
      for (const status of statusesOf(operation)) {
        for (const { where, schema, example } of responseExamples(operation, status)) {
          check(where, schema, example.value);
          checked++;
        }
      }
    }
    expect(invalid).toEqual([]);
    expect(checked).toBeGreaterThan(operationsOf(document).length * 2);
  });

  it('when an error example is read, then it is named after its code and says which request it answers', () => {
    const wrong: string[] = [];
    for (const operation of operationsOf(document)) {
      for (const status of errorStatuses(operation)) {
        for (const { where, example } of responseExamples(operation, status)) {
          if (!/Recorded answer to `[A-Z]+ \/v1\//.test(example.description)) wrong.push(`${where}: ${example.description as string}`);
          const code = example.value?.error?.code;
          if (code !== undefined && !where.endsWith(code) && !where.includes(` ${code}`)) wrong.push(`${where}: code ${code as string}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
