import { existsSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { queryRoutes } from '../../queries/index.js';
import { apiOpenApiYaml, createApiOpenApiDocument } from '../../queries/openApi.js';
import { adminOpenApiYaml, createAdminOpenApiDocument } from '../../src/http/adminOpenApi.js';
import { adminRoutes } from '../../src/http/adminRouter.js';
import { openApiExamplesSchema, recordedExamplesIn } from '../../src/http/openApiExamples.js';
import { operationsOf, resolveIn, type DocumentedOperation } from '../support/openApiRules.js';

/*
 * The examples of /v1/openapi.yaml and /admin/v1/openapi.yaml are recorded from the service by
 * `npm run openapi:examples` (src/cli/openApiExamples.ts, src/cli/adminOpenApiExamples.ts) into
 * queries/openApiExamples.json and src/http/adminOpenApiExamples.json. These tests check that each recording
 * covers its document as it is now (rerun the generator when one fails after a change of the API) and that
 * every example in the served document validates against the schema it illustrates.
 */

interface ExampledDocument {
  /** The examples file, as the repository names it. */
  name: string;
  file: URL;
  /** The path the document's `servers` put before its paths. */
  basePath: string;
  /** As the service serves it. */
  served: () => string;
  /** Without examples. */
  bare: () => object;
}

const DOCUMENTS: readonly ExampledDocument[] = [
  {
    name: 'queries/openApiExamples.json',
    file: new URL('../../queries/openApiExamples.json', import.meta.url),
    basePath: '/v1',
    served: () => apiOpenApiYaml(queryRoutes),
    bare: () => createApiOpenApiDocument(queryRoutes, { examples: null }),
  },
  {
    name: 'src/http/adminOpenApiExamples.json',
    file: new URL('../../src/http/adminOpenApiExamples.json', import.meta.url),
    basePath: '/admin/v1',
    served: () => adminOpenApiYaml(adminRoutes),
    bare: () => createAdminOpenApiDocument(adminRoutes),
  },
];

const pointer = (...segments: Array<string | number>) =>
  segments.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
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

/** Validation of values against the schemas of one served document, and the examples of its responses. */
function examplesOf(document: any) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi');
  const validators = new Map<string, ReturnType<Ajv2020['compile']>>();
  const resolve = (node: any): any => resolveIn(document, node);

  /** Where a response lives in the document: its component when it refers to one. */
  const responsePointer = ({ path, method }: DocumentedOperation, status: string): string => {
    const node = document.paths[path][method].responses[status];
    return typeof node.$ref === 'string' ? node.$ref.slice(1) : pointer('paths', path, method, 'responses', status);
  };

  return {
    /** Validates `value` against the schema at `schemaPointer` in the document; the errors when it does not. */
    problems(schemaPointer: string, value: unknown): string | null {
      const validate = validators.get(schemaPointer) ?? ajv.compile({ $ref: `openapi#${schemaPointer}` });
      validators.set(schemaPointer, validate);
      return validate(value) ? null : JSON.stringify(validate.errors);
    },

    /** The examples of a response: those of its media types, or (for one without a body) of its headers. */
    responseExamples(operation: DocumentedOperation, status: string): Array<{ where: string; schema: string; example: any }> {
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
    },
  };
}

/** The body media type a request example is expected for: JSON where the operation takes it, else its only one (NDJSON). */
function exampledBody(operation: DocumentedOperation): any {
  const content = operation.operation.requestBody?.content ?? {};
  const mediaTypes = Object.keys(content);
  if (content['application/json'] !== undefined) return content['application/json'];
  return mediaTypes.length === 1 ? content[mediaTypes[0]!] : undefined;
}

describe.each(DOCUMENTS)('the recorded OpenAPI examples of $basePath', ({ name, file, basePath, served, bare: bareDocument }) => {
  const recorded = recordedExamplesIn(file);
  const document: any = parse(served());
  const bare: any = bareDocument();
  const { problems, responseExamples } = examplesOf(document);

  it(`when ${name} is read, then it fits the examples schema`, () => {
    expect(existsSync(file), `${name} is missing: run npm run openapi:examples`).toBe(true);
    const parsed = openApiExamplesSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    expect(parsed.error?.issues ?? [], `${name} is of another shape: run npm run openapi:examples`).toEqual([]);
  });

  it(`when ${name} is read, then it records every operation of the document and none it no longer has`, () => {
    const documented = operationsOf(bare).map(({ operation }) => operation.operationId as string);
    expect(Object.keys(recorded?.operations ?? {}).sort()).toEqual([...documented].sort());
  });

  it('when an example is compared with its operation, then it was sent to its path with its method and answered a documented status', () => {
    const stale: string[] = [];
    for (const { path, method, operation } of operationsOf(bare)) {
      const template = new RegExp(`^${basePath}${path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?|$)`);
      for (const [exampleName, example] of Object.entries(recorded?.operations[operation.operationId] ?? {})) {
        const { request, response } = example;
        if (request.method !== method.toUpperCase() || !template.test(request.target))
          stale.push(`${operation.operationId} ${exampleName}: ${request.target}`);
        if (operation.responses[String(response.status)] === undefined)
          stale.push(`${operation.operationId} ${exampleName}: ${response.status}`);
      }
    }
    expect(stale, 'examples of another request or status than the document has: run npm run openapi:examples').toEqual([]);
  });

  it('when every served operation is read, then each has an example of the answer it succeeds with', () => {
    const missing = operationsOf(document)
      .filter((operation) => successStatuses(operation).every((status) => responseExamples(operation, status).length === 0))
      .map(({ operation }) => operation.operationId);
    expect(missing).toEqual([]);
  });

  it('when every served operation is read, then each error status it documents has an example', () => {
    const missing = operationsOf(document).flatMap((operation) =>
      errorStatuses(operation)
        .filter((status) => responseExamples(operation, status).length === 0)
        .map((status) => `${operation.operation.operationId} ${status}`),
    );
    expect(missing).toEqual([]);
  });

  it('when a served operation takes parameters or a body, then its request has an example: every required parameter, and the body', () => {
    const missing = operationsOf(document).flatMap((operation) => {
      const parameters = ownParameters(operation);
      const withoutExample = parameters.filter((parameter: any) => Object.keys(parameter.examples ?? {}).length === 0);
      const body = exampledBody(operation);
      const bodyWithoutExample = body !== undefined && Object.keys(body.examples ?? {}).length === 0;
      return [
        ...withoutExample
          .filter((parameter: any) => parameter.required)
          .map((parameter: any) => `${operation.operation.operationId} ${parameter.name}`),
        // Optional parameters alone (a file name for a file sent as the body) need none where the body shows the request.
        ...(parameters.length > 0 && withoutExample.length === parameters.length && (body === undefined || bodyWithoutExample)
          ? [`${operation.operation.operationId}: no parameter`]
          : []),
        ...(bodyWithoutExample ? [`${operation.operation.operationId}: body`] : []),
      ];
    });
    expect(missing).toEqual([]);
  });

  it('when the served examples are validated, then each parameter, body and answer example fits the schema it illustrates', () => {
    const invalid: string[] = [];
    const check = (where: string, schema: string, value: unknown) => {
      const problem = problems(schema, value);
      if (problem !== null) invalid.push(`${where}: ${problem}`);
    };
    let checked = 0;
    for (const operation of operationsOf(document)) {
      const { path, method, operation: documented } = operation;
      documented.parameters?.forEach((parameter: any, index: number) => {
        for (const [exampleName, example] of Object.entries<any>(parameter.examples ?? {})) {
          check(
            `${documented.operationId} ${parameter.name} ${exampleName}`,
            pointer('paths', path, method, 'parameters', index, 'schema'),
            example.value,
          );
          checked++;
        }
      });
      for (const [mediaType, media] of Object.entries<any>(documented.requestBody?.content ?? {})) {
        for (const [exampleName, example] of Object.entries<any>(media.examples ?? {})) {
          check(
            `${documented.operationId} body ${exampleName}`,
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

  it('when a served error example is read, then it is named after its code and says which request it answers', () => {
    const answers = new RegExp(`Recorded answer to \`[A-Z]+ ${basePath.replaceAll('/', '\\/')}/`);
    const wrong: string[] = [];
    for (const operation of operationsOf(document)) {
      for (const status of errorStatuses(operation)) {
        for (const { where, example } of responseExamples(operation, status)) {
          if (!answers.test(example.description)) wrong.push(`${where}: ${example.description as string}`);
          const code = example.value?.error?.code;
          if (code !== undefined && !where.endsWith(code) && !where.includes(` ${code}`)) wrong.push(`${where}: code ${code as string}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
