import { z } from 'zod';
import type { CreateDocumentOptions, ZodOpenApiOperationObject, ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { MAX_REQUEST_HEAD_BYTES } from './httpServer.js';
import { DEFAULT_PER_PAGE, paginationSchema } from './pagination.js';

// Pieces both OpenAPI documents (/admin/openapi.yaml and /v1/openapi.yaml) describe alike, and the rules both
// generators apply to what zod-openapi renders, so that every operation added later inherits them.

/** Express `:param` → OpenAPI `{param}`. */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** `listProjects` → `ListProjects`, `project.created` → `ProjectCreated`: the stem of the names of an operation's schemas. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

export const meta = z
  .object({
    request_id: z.string().meta({ description: 'Same value as the X-Request-Id response header.' }),
    generated_at: z.iso.datetime().meta({ description: 'When the response was generated.' }),
  })
  .meta({ id: 'ResponseMeta' });

/** The `meta` of every paginated list: one component for all of them. */
const paginatedMeta = meta.extend({ pagination: paginationSchema }).meta({ id: 'PaginatedMeta' });

/** `meta` of a success body with what the operation adds to it. */
export function metaWith(extra: z.ZodObject | undefined): z.ZodObject {
  if (!extra) return meta;
  const { pagination, ...rest } = extra.shape;
  return pagination === paginationSchema && Object.keys(rest).length === 0 ? paginatedMeta : meta.extend(extra.shape);
}

const errorBody = (id: string, codes: readonly [string, ...string[]], description: string) =>
  z
    .object({
      error: z
        .object({
          code: z.enum(codes).meta({ description }),
          message: z.string().meta({ description: 'Human-readable; may change. Branch on `code`.' }),
          details: z.record(z.string(), z.unknown()),
        })
        .meta({ id: `${id}Problem` }),
      meta,
    })
    .meta({ id: `${id}Error` });

const REQUEST_ID_DESCRIPTION =
  'Identifies the request in logs. An incoming X-Request-Id of 1-128 characters [A-Za-z0-9._:-] is kept; otherwise a uuid is generated.';
export const requestIdParameter = z
  .string()
  .optional()
  .meta({ description: REQUEST_ID_DESCRIPTION, param: { id: 'XRequestId' } });
export const requestIdHeader = z.string().meta({ description: REQUEST_ID_DESCRIPTION, header: { id: 'XRequestId' } });
export const errorResponse = (
  id: string,
  description: string,
  codes: readonly [string, ...string[]],
  codeDescription: string,
  extraHeaders: Record<string, z.ZodType> = {},
): ZodOpenApiResponseObject => ({
  id,
  description,
  headers: z.object({ 'X-Request-Id': requestIdHeader, ...extraHeaders }),
  content: { 'application/json': { schema: errorBody(id, codes, codeDescription) } },
});

/**
 * The error responses of one status, one per set of codes an operation can answer with it: each lists only
 * those codes (the enum on `code`, and what each means in its description), so that an operation neither
 * documents a refusal it never sends nor lacks one it does. `always` are the codes every operation of the
 * status can answer; the others are the operation's own, and a set is one component named `id` followed by
 * them (`ForbiddenInsufficientScope`), the same set the same component.
 */
export function errorResponsesByCodes<Code extends string>(options: {
  id: string;
  description: string;
  /** Every code the status can carry with what it means, in the order the enum lists them. */
  meanings: Readonly<Record<Code, string>>;
  always: readonly NoInfer<Code>[];
}): (ownCodes: readonly Code[]) => ZodOpenApiResponseObject {
  const { id, description, meanings, always } = options;
  const made = new Map<string, ZodOpenApiResponseObject>();
  return (ownCodes) => {
    const codes = (Object.keys(meanings) as Code[]).filter((code) => always.includes(code) || ownCodes.includes(code));
    const key = codes.join(' ');
    const existing = made.get(key);
    if (existing) return existing;
    const own = codes.filter((code) => !always.includes(code)).map((code) => pascalCase(code.toLowerCase()));
    const response = errorResponse(
      `${id}${own.join('')}`,
      description,
      codes as [Code, ...Code[]],
      codes.map((code) => `${code}: ${meanings[code]}`).join(' '),
    );
    made.set(key, response);
    return response;
  };
}

const retryAfterHeader = z
  .string()
  .regex(/^\d+$/)
  .meta({ description: 'Seconds after which the same request may succeed.', header: { id: 'RetryAfter' } });

/** 500: a bug; the error body says nothing about it, the logs know it by the request id. */
export const internalErrorResponse = errorResponse(
  'InternalServer',
  'An unexpected error on our side. Nothing is said about its cause; it is logged with the request id (quote X-Request-Id when reporting it).',
  ['INTERNAL_ERROR'],
  'INTERNAL_ERROR.',
);

const SERVICE_UNAVAILABLE_CODE =
  'SERVICE_UNAVAILABLE: a store or service the request needs did not answer, or an embedded store stayed locked by another process ' +
  '(details.dependency: eventstoredb, mongodb, redis or sqlite, never its address; details.retry_after_seconds).';

/** 503 from src/http/dependencyFailures.ts: a dependency did not answer, so a retry may succeed. */
export const serviceUnavailableResponse = errorResponse(
  'ServiceUnavailable',
  'A dependency did not answer; the request was fine and may succeed after Retry-After seconds.',
  ['SERVICE_UNAVAILABLE'],
  SERVICE_UNAVAILABLE_CODE,
  { 'Retry-After': retryAfterHeader },
);

/**
 * 503 of a read that takes X-Consistent-After (src/http/consistency.ts): a dependency did not answer, or the
 * read models had not caught up with the position asked for in time.
 */
export const readUnavailableResponse = errorResponse(
  'ReadUnavailable',
  'A dependency did not answer, or the read models had not applied the log up to X-Consistent-After within CONSISTENCY_WAIT_MS; ' +
    'nothing was read (and, on /v1, no quota spent). Retry after Retry-After seconds.',
  ['SERVICE_UNAVAILABLE', 'PROJECTION_BEHIND'],
  `${SERVICE_UNAVAILABLE_CODE} PROJECTION_BEHIND: details.position (the position asked for), details.waited_ms, details.retry_after_seconds.`,
  { 'Retry-After': retryAfterHeader },
);

/**
 * What Node's HTTP server refuses for any path before an operation sees the request (src/http/httpServer.ts),
 * in the same error body; the connection is closed after it.
 */
export const protocolRefusalResponses: Record<string, ZodOpenApiResponseObject> = {
  '400': errorResponse(
    'MalformedRequest',
    'The request cannot be read: a malformed request line, header or body framing, an HTTP/1.1 request without Host, or a path that cannot be decoded.',
    ['BAD_REQUEST'],
    'BAD_REQUEST: details.part (the malformed part) or details.header, when one is named.',
  ),
  '408': errorResponse(
    'RequestTimeout',
    'The request head or body did not arrive within HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS.',
    ['REQUEST_TIMEOUT'],
    'REQUEST_TIMEOUT: details.headers_timeout_ms and details.request_timeout_ms.',
  ),
  '417': errorResponse(
    'ExpectationFailed',
    'An `Expect` header other than `100-continue`.',
    ['EXPECTATION_FAILED'],
    'EXPECTATION_FAILED: details.header.',
  ),
  '431': errorResponse(
    'HeadersTooLarge',
    'The request line and headers exceed 16 KB.',
    ['HEADERS_TOO_LARGE'],
    'HEADERS_TOO_LARGE: details.limit_bytes.',
  ),
};

/** The responses an operation lacks from `standard`, added; those it documents itself stay. Statuses in numeric order. */
export function withResponses(
  operation: ZodOpenApiOperationObject,
  standard: Record<string, ZodOpenApiResponseObject>,
): ZodOpenApiOperationObject {
  const responses: ZodOpenApiResponsesObject = { ...standard, ...operation.responses };
  const ordered = Object.entries(responses).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
  return { ...operation, responses: Object.fromEntries(ordered) as ZodOpenApiResponsesObject };
}

/**
 * `headersFor(status)` added to each response the operation writes out itself, before the headers it names
 * (a shared response component carries its own and is left as it is).
 */
export function withResponseHeaders(
  operation: ZodOpenApiOperationObject,
  headersFor: (status: string) => Record<string, z.ZodType>,
): ZodOpenApiOperationObject {
  const responses = Object.entries(operation.responses ?? {}).map(([status, response]) => {
    if ('$ref' in response || response.id !== undefined) return [status, response] as const;
    if (response.headers !== undefined && !(response.headers instanceof z.ZodObject)) return [status, response] as const;
    return [status, { ...response, headers: z.object({ ...headersFor(status), ...response.headers?.shape }) }] as const;
  });
  return { ...operation, responses: Object.fromEntries(responses) };
}

const metaOf = (schema: z.ZodType) => z.globalRegistry.get(schema) ?? {};

/**
 * A query or path parameter as its value: text parsed into a number or a list (`.pipe()` to a schema) is
 * documented as that number or list with its bounds, since that is what a client sends; a parameter whose
 * parsing OpenAPI cannot express keeps its text form (and may say more through `.meta({ override })`).
 */
export function documentedParameters(parameters: unknown): z.ZodObject | undefined {
  if (!(parameters instanceof z.ZodObject)) return undefined;
  const documented = Object.entries(parameters.shape as Record<string, z.ZodType>).map(([name, schema]) => {
    const optional = schema instanceof z.ZodOptional;
    const value = optional ? (schema.unwrap() as z.ZodType) : schema;
    if (!(value instanceof z.ZodPipe) || value.out instanceof z.ZodTransform) return [name, schema] as const;
    const parsed = (value.out as z.ZodType).meta({ ...metaOf(value), ...metaOf(schema) });
    return [name, optional ? parsed.optional() : parsed] as const;
  });
  return z.object(Object.fromEntries(documented));
}

/**
 * Both documents are rendered with these: a response may gain fields within v1 (spec, Versioning rule 2),
 * so no response schema forbids unknown ones, while request bodies keep `additionalProperties: false` from
 * their strict schemas (the service refuses unknown fields with 422).
 */
export const OPENAPI_OPTIONS: CreateDocumentOptions = {
  override: ({ jsonSchema, io }) => {
    if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
  },
};

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
/** In both APIs an id is a positive integer (so are page numbers and sizes), and these name counts and measures, never negative. */
const POSITIVE_NAME = /^(id|.+_id|page|per_page)$/;
const COUNT_NAME = /^(total|total_pages|used|remaining|limit|units|bytes|pages|.+_(count|units|bytes|seconds|ms))$/;

/**
 * One integer schema: zod's safe-integer bounds (±2^53 - 1) are dropped, an exclusive bound becomes the
 * inclusive one, an id without a lower bound starts at 1 and a count at 0, and the format says whether the
 * value fits 32 bits.
 */
function normalizeInteger(schema: Json, name: string): void {
  if (typeof schema.exclusiveMinimum === 'number' && Number.isInteger(schema.exclusiveMinimum)) {
    schema.minimum = schema.exclusiveMinimum + 1;
    delete schema.exclusiveMinimum;
  }
  if (typeof schema.exclusiveMaximum === 'number' && Number.isInteger(schema.exclusiveMaximum)) {
    schema.maximum = schema.exclusiveMaximum - 1;
    delete schema.exclusiveMaximum;
  }
  if (schema.minimum === -Number.MAX_SAFE_INTEGER) delete schema.minimum;
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  if (schema.minimum === undefined && POSITIVE_NAME.test(name)) schema.minimum = 1;
  if (schema.minimum === undefined && COUNT_NAME.test(name)) schema.minimum = 0;
  const { minimum, maximum } = schema;
  const fits32 = typeof minimum === 'number' && typeof maximum === 'number' && minimum >= INT32.min && maximum <= INT32.max;
  schema.format ??= fits32 ? 'int32' : 'int64';
}

const isInteger = (schema: Json) => schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));

/** Every schema under `node`, with the name of the property, parameter or header it describes ('' when none). */
function visitSchemas(node: unknown, name: string, visit: (schema: Json, name: string) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) visitSchemas(item, name, visit);
    return;
  }
  if (!isJson(node)) return;
  visit(node, name);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && isJson(value)) {
      for (const [property, schema] of Object.entries(value)) visitSchemas(schema, property, visit);
    } else if (key === 'items') {
      // The items of `project_ids` are project ids.
      visitSchemas(value, name.endsWith('_ids') ? name.slice(0, -1) : '', visit);
    } else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') {
      visitSchemas(value, name, visit);
    } else if (key === 'schema') {
      visitSchemas(value, typeof node.name === 'string' ? node.name : name, visit);
    } else if (key === 'headers' && isJson(value)) {
      for (const [header, object] of Object.entries(value)) visitSchemas(object, header, visit);
    } else {
      visitSchemas(value, '', visit);
    }
  }
}

/** Every operation of `paths` (or of the `webhooks` map), with its path and method. */
function operationsOf(paths: unknown): Array<{ path: string; method: string; operation: Json }> {
  if (!isJson(paths)) return [];
  return Object.entries(paths).flatMap(([path, item]) =>
    isJson(item) ? HTTP_METHODS.flatMap((method) => (isJson(item[method]) ? [{ path, method, operation: item[method] as Json }] : [])) : [],
  );
}

/**
 * A list in a query is comma-separated (`ids=1,2,3`) and a set: the service refuses a repeated item. Text
 * without a bound of its own is bounded by what the server reads of a request head (431 beyond it).
 */
function documentParameters(document: Json): void {
  const components = isJson(document.components) ? document.components : {};
  const parameters = [
    ...Object.values(isJson(components.parameters) ? components.parameters : {}),
    ...operationsOf(document.paths).flatMap(({ operation }) => (Array.isArray(operation.parameters) ? operation.parameters : [])),
  ].filter(isJson);
  for (const parameter of parameters) {
    const schema = isJson(parameter.schema) ? parameter.schema : {};
    if (schema.type === 'string' && schema.maxLength === undefined && schema.enum === undefined) schema.maxLength = MAX_REQUEST_HEAD_BYTES;
    if (parameter.in !== 'query') continue;
    if (schema.type === 'array') {
      parameter.style ??= 'form';
      parameter.explode ??= false;
      schema.uniqueItems ??= true;
    }
    // DESIGN.md: every list pages alike.
    if (parameter.name === 'page') schema.default ??= 1;
    if (parameter.name === 'per_page') schema.default ??= DEFAULT_PER_PAGE;
  }
}

const isNamedObject = (schema: Json) =>
  (schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'))) &&
  isJson(schema.properties) &&
  Object.keys(schema.properties).length > 0;

/**
 * Moves every object schema written inline into `components.schemas` under a name made from where it is
 * (`ListFloorPlansResponseData`, `ProjectMediaGalleryItem`), so that a generated client has a name for each
 * type. The same name for the same schema is one component; a different schema of the same name is numbered.
 */
function nameInlineObjects(document: Json): void {
  const components = (document.components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Json;
  const reference = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  const register = (schema: Json, name: string): string => {
    const shape = JSON.stringify(schema);
    for (let suffix = 1; ; suffix++) {
      const candidate = suffix === 1 ? name : `${name}${suffix}`;
      const existing = schemas[candidate];
      if (existing === undefined) {
        schemas[candidate] = schema;
        return candidate;
      }
      if (JSON.stringify(existing) === shape) return candidate;
    }
  };

  /** `schema`'s inline parts named after `name`; `schema` itself too unless it already has a name. */
  const name = (schema: unknown, as: string, named: boolean): unknown => {
    if (!isJson(schema) || '$ref' in schema) return schema;
    if (isJson(schema.properties)) {
      for (const [property, child] of Object.entries(schema.properties)) {
        schema.properties[property] = name(child, `${as}${pascalCase(property)}`, false);
      }
    }
    if (schema.items !== undefined) schema.items = name(schema.items, `${as}Item`, false);
    if (isJson(schema.additionalProperties)) schema.additionalProperties = name(schema.additionalProperties, `${as}Value`, false);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const options = schema[key];
      if (!Array.isArray(options)) continue;
      const objects = options.filter((option) => isJson(option) && option.type !== 'null');
      // `X | null` is X: its object keeps the name of the whole.
      schema[key] = options.map((option, index) =>
        objects.length === 1 ? name(option, as, named) : name(option, `${as}Option${index + 1}`, false),
      );
    }
    return !named && isNamedObject(schema) ? reference(register(schema, as)) : schema;
  };

  for (const [component, schema] of Object.entries(schemas)) schemas[component] = name(schema, component, true);
  const operations = [...operationsOf(document.paths), ...operationsOf(document.webhooks)];
  for (const { path, method, operation } of operations) {
    const stem = pascalCase(typeof operation.operationId === 'string' ? operation.operationId : `${method} ${path}`);
    const bodies: Array<[unknown, string]> = [];
    if (isJson(operation.requestBody)) bodies.push([operation.requestBody.content, `${stem}Request`]);
    if (isJson(operation.responses)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (isJson(response)) bodies.push([response.content, `${stem}${/^2/.test(status) ? '' : status}Response`]);
      }
    }
    for (const [content, stemOfBody] of bodies) {
      if (!isJson(content)) continue;
      for (const [mediaType, media] of Object.entries(content)) {
        if (!isJson(media)) continue;
        const suffix = mediaType === 'application/json' ? '' : pascalCase(mediaType.split('/')[1] ?? mediaType);
        media.schema = name(media.schema, `${stemOfBody}${suffix}`, false);
      }
    }
  }
}

/**
 * What both generators do to the document zod-openapi made: integers bounded and formatted as they are, list
 * parameters as comma-separated sets with the pagination defaults, every object schema a named component.
 */
export function finishDocument<Document extends object>(document: Document): Document {
  const json = document as Json;
  visitSchemas(json, '', (schema, name) => {
    if (isInteger(schema)) normalizeInteger(schema, name);
  });
  documentParameters(json);
  nameInlineObjects(json);
  return document;
}

/** `servers`: the configured public base URL when there is one (the one links are built on), else the relative path. */
export function serversFor(baseUrl: string | undefined, relativePath: string, description: string) {
  return baseUrl === undefined ? [{ url: relativePath, description }] : [{ url: baseUrl, description }];
}
