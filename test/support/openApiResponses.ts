import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// Checks an HTTP answer against the OpenAPI document that describes it: the status is one the operation
// documents, the documented headers are there and well formed, and a JSON body validates against the
// response's schema. The schemas are validated by ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1)
// with the document's own components; this module only finds the operation and the response.

/** An answer as the client received it. `body` is the text of a JSON body; undefined when none was read. */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  body: string | undefined;
}

/** A served OpenAPI document and the path its operations are below (its server's path: `/v1`, `/admin/v1`). */
export interface DescribedApi {
  name: string;
  mount: string;
  document: any;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const JSON_MEDIA_TYPE = /^application\/(.+\+)?json$/;

interface PathTemplate {
  template: string;
  pattern: RegExp;
  /** More specific templates win, as OpenAPI says: `/projects/changes` before `/projects/{project}`. */
  parameters: number;
  literalLength: number;
}

function pathTemplate(template: string): PathTemplate {
  const parts = template.split(/(\{[^}]+\})/).filter(Boolean);
  const source = parts.map((part) => (part.startsWith('{') ? '[^/]+?' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('');
  const literals = parts.filter((part) => !part.startsWith('{'));
  return {
    template,
    pattern: new RegExp(`^${source}$`),
    parameters: parts.length - literals.length,
    literalLength: literals.join('').length,
  };
}

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** The node at a JSON pointer of the document. */
function nodeAt(document: any, pointer: string): any {
  return pointer
    .split('/')
    .slice(1)
    .reduce((node, segment) => node?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')], document);
}

/** Where a node ends up once its local `$ref`s are followed: its pointer and the node. */
function followed(document: any, pointer: string): { pointer: string; node: any } {
  const node = nodeAt(document, pointer);
  if (typeof node?.$ref === 'string' && node.$ref.startsWith('#')) return followed(document, node.$ref.slice(1));
  return { pointer, node };
}

/** Whether a documented media type (`application/json`, `image/*`, `*\/*`) covers the one an answer names. */
function mediaTypeCovers(documented: string, received: string): boolean {
  if (documented === received || documented === '*/*') return true;
  return documented.endsWith('/*') && received.startsWith(documented.slice(0, -1));
}

/** ajv's errors of the last validation, each with where it is in the value and what is there. */
function problems(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map(
      (error) =>
        `${error.instancePath && `${error.instancePath} `}${(error.message ?? '').slice(0, 100)}: ${JSON.stringify(error.data)?.slice(0, 120)}`,
    )
    .join('; ');
}

export interface ResponseChecker {
  /** What about the answer contradicts its document; empty when nothing does, or no document describes the URL. */
  check(exchange: Exchange): string[];
}

/** A checker for the answers of these APIs; ajv compiles each schema the first time an answer needs it. */
export function createResponseChecker(apis: readonly DescribedApi[]): ResponseChecker {
  // verbose: each error carries the value it is about, which the mismatch then shows.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, verbose: true });
  addFormats.default(ajv);
  // OpenAPI's own formats: integers that fit 32 or 64 bits (JavaScript numbers hold 53), and file contents.
  ajv.addFormat('int32', {
    type: 'number',
    validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isInteger(value) });
  ajv.addFormat('binary', true);
  for (const api of apis) ajv.addSchema(api.document, api.name);

  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (api: DescribedApi, pointer: string): ValidateFunction => {
    const id = `${api.name}#${pointer}`;
    let validate = validators.get(id);
    if (!validate) {
      validate = ajv.compile({ $ref: id });
      validators.set(id, validate);
    }
    return validate;
  };

  const templates = new Map(
    apis.map((api) => {
      const list = Object.keys(api.document.paths ?? {}).map(pathTemplate);
      list.sort((a, b) => a.parameters - b.parameters || b.literalLength - a.literalLength);
      return [api, list] as const;
    }),
  );

  const apiOf = (pathname: string) => apis.find((api) => pathname === api.mount || pathname.startsWith(`${api.mount}/`));

  /** The operation answering `method` at `pathname`, or undefined when the document has none. */
  function operationFor(api: DescribedApi, method: string, pathname: string) {
    const path = pathname.slice(api.mount.length).replace(/(.)\/$/, '$1') || '/';
    const methods = method === 'head' ? ['head', 'get'] : [method];
    for (const { template, pattern } of templates.get(api)!) {
      if (!pattern.test(path)) continue;
      const item = api.document.paths[template];
      const documented = methods.find((candidate) => item[candidate] !== undefined);
      if (documented) return { template, pointer: `/paths/${escapePointer(template)}/${documented}` };
    }
    return undefined;
  }

  function check(exchange: Exchange): string[] {
    const url = new URL(exchange.url);
    const api = apiOf(url.pathname);
    const method = exchange.method.toLowerCase();
    if (!api || !HTTP_METHODS.includes(method)) return [];
    const operation = operationFor(api, method, url.pathname);
    // A path or method no operation serves (404 or 405 for any path) is outside the document's operations.
    if (!operation) return [];
    const where = `${exchange.method.toUpperCase()} ${api.mount}${operation.template} (${url.pathname}${url.search}) answered ${exchange.status}`;
    const responses = nodeAt(api.document, `${operation.pointer}/responses`) ?? {};
    const status = String(exchange.status);
    const documentedStatus = [status, `${status[0]}XX`, 'default'].find((key) => responses[key] !== undefined);
    if (documentedStatus === undefined)
      return [`${where}: the status is not documented (documented: ${Object.keys(responses).join(', ')})`];

    const mismatches: string[] = [];
    const response = followed(api.document, `${operation.pointer}/responses/${documentedStatus}`);
    for (const name of Object.keys(response.node.headers ?? {})) {
      // OpenAPI: a response header named Content-Type is ignored (the media types say it).
      if (name.toLowerCase() === 'content-type') continue;
      const definition = followed(api.document, `${response.pointer}/headers/${escapePointer(name)}`);
      const value = exchange.headers.get(name);
      if (value === null) {
        if (definition.node.required === true) mismatches.push(`${where}: the documented header ${name} is missing`);
        continue;
      }
      if (definition.node.schema !== undefined) {
        const validate = validatorAt(api, `${definition.pointer}/schema`);
        if (!validate(value)) mismatches.push(`${where}: header ${name} ${problems(validate)}`);
      }
    }

    // A HEAD answer and a 304 have no body, whatever the GET documents.
    if (method === 'head' || exchange.status === 304) return mismatches;
    const content: Record<string, unknown> = response.node.content ?? {};
    const contentType = exchange.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
    const hasBody = contentType !== undefined && exchange.headers.get('content-length') !== '0';
    if (!hasBody) {
      if (Object.keys(content).length > 0) mismatches.push(`${where}: no body, but ${Object.keys(content).join(', ')} is documented`);
      return mismatches;
    }
    const mediaType = Object.keys(content).find((documented) => mediaTypeCovers(documented, contentType));
    if (mediaType === undefined) {
      const documented = Object.keys(content).join(', ') || 'no body';
      return [...mismatches, `${where}: a ${contentType} body, but the response documents ${documented}`];
    }
    if (!JSON_MEDIA_TYPE.test(contentType) || exchange.body === undefined) return mismatches;
    let body: unknown;
    try {
      body = JSON.parse(exchange.body);
    } catch {
      return [...mismatches, `${where}: the ${contentType} body is not JSON`];
    }
    const validate = validatorAt(api, `${response.pointer}/content/${escapePointer(mediaType)}/schema`);
    if (!validate(body)) mismatches.push(`${where}: body ${problems(validate)}`);
    return mismatches;
  }

  return { check };
}
