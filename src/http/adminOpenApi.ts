import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { stringify } from 'yaml';
import type { AdminRoute } from './adminRoute.js';
import { JSON_BODY_LIMIT_BYTES } from './jsonBody.js';
import { errorResponse, meta, requestIdHeader, requestIdParameter, toOpenApiPath } from './openApiCommon.js';
import { IF_MATCH_PROBLEM } from './validation.js';

const etagHeader = z
  .string()
  .optional()
  .meta({
    description: 'The revision of the resource, quoted ("<revision>"); send it back as If-Match.',
    header: { id: 'ETag' },
  });
const ifMatchParameter = z
  .string()
  .optional()
  .meta({
    description: `The revision the edit is based on (the ETag of a GET); ${IF_MATCH_PROBLEM}. A stale one answers 409 CONFLICT and writes nothing.`,
    param: { id: 'IfMatch' },
  });

const ERROR_RESPONSES = {
  unauthenticated: errorResponse(
    'Unauthenticated',
    'Missing, malformed or wrong admin token (one body for all three).',
    ['UNAUTHENTICATED'],
    'Always UNAUTHENTICATED.',
    { 'WWW-Authenticate': z.string().meta({ description: 'Bearer' }) },
  ),
  notFound: errorResponse('NotFound', 'No such resource.', ['NOT_FOUND'], 'NOT_FOUND.'),
  conflict: errorResponse(
    'Conflict',
    'The command conflicts with the current state; nothing was written.',
    ['CONFLICT', 'SLUG_TAKEN', 'PROJECT_DELETED'],
    'CONFLICT: If-Match names a stale revision, or someone changed the resource between read and write (reload and retry), ' +
      'or concurrent commands kept taking the id this one needed (retry). ' +
      'SLUG_TAKEN: another resource of the same type has the slug. PROJECT_DELETED: the project is deleted and takes no further commands.',
  ),
  unprocessable: errorResponse(
    'ValidationFailed',
    'The request is not valid.',
    ['VALIDATION_FAILED'],
    'VALIDATION_FAILED: `details.fields` maps every offending input (`body.<path>`, `params.<name>`, `header.if-match`) to its problem: ' +
      'schema violations, unknown body fields, referenced ids that do not exist, malformed JSON (under `body`).',
  ),
  payloadTooLarge: errorResponse(
    'PayloadTooLarge',
    `The body exceeds ${JSON_BODY_LIMIT_BYTES} bytes.`,
    ['PAYLOAD_TOO_LARGE'],
    'PAYLOAD_TOO_LARGE.',
  ),
  unsupportedMediaType: errorResponse(
    'UnsupportedMediaType',
    'The body is not application/json.',
    ['UNSUPPORTED_MEDIA_TYPE'],
    'UNSUPPORTED_MEDIA_TYPE.',
  ),
};

const takesIfMatch = (route: AdminRoute) => route.method !== 'get' && route.path.includes(':');

function operationOf(route: AdminRoute): ZodOpenApiOperationObject {
  const headers = z.object({
    'X-Request-Id': requestIdParameter,
    ...(takesIfMatch(route) ? { 'If-Match': ifMatchParameter } : {}),
  });
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    requestParams: { path: route.params as z.ZodObject, header: headers },
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    responses: {
      [String(route.successStatus)]: {
        description: route.successStatus === 201 ? 'Created.' : 'OK.',
        headers: z.object({ 'X-Request-Id': requestIdHeader, ETag: etagHeader }),
        content: { 'application/json': { schema: z.object({ data: route.response, meta }) } },
      },
      '401': ERROR_RESPONSES.unauthenticated,
      ...(route.path.includes(':') ? { '404': ERROR_RESPONSES.notFound } : {}),
      ...(route.method === 'get' ? {} : { '409': ERROR_RESPONSES.conflict }),
      ...(route.body ? { '413': ERROR_RESPONSES.payloadTooLarge, '415': ERROR_RESPONSES.unsupportedMediaType } : {}),
      '422': ERROR_RESPONSES.unprocessable,
    },
  };
}

const DESCRIPTION = `Editor-facing commands and write-side reads of the property catalogue.

- Authentication: \`Authorization: Bearer <admin token>\` (ADMIN_TOKEN, or in embedded mode the generated DATA_DIR/admin-token file).
- Success body \`{ data, meta }\`; error body \`{ error: { code, message, details }, meta }\`; every response carries X-Request-Id.
- All or nothing: a refused command writes nothing, not even an id allocation. Only one that loses a race to a concurrent command partway can leave a write behind: an id claimed but never used (a slug taken or the resource changed meanwhile; so ids can have gaps), or the first of the two streams a key rotation or a plan change taking effect writes to (the rotation's successor key is revoked again; repeating the plan change finishes it).
- Concurrency: responses carry \`ETag: "<revision>"\`; send it as \`If-Match\` on an edit to refuse it (409 CONFLICT) when someone else changed the resource meanwhile. \`If-Match: *\` or none = no precondition beyond the server's own read-then-write check.
- Validation: every input is parsed by strict schemas; unknown fields are refused; 422 VALIDATION_FAILED lists every problem in \`details.fields\`. Malformed JSON is 422 VALIDATION_FAILED naming \`body\` (one validation shape for clients), a non-JSON body 415, a body over 1 MB 413.
- A path asked with a method it does not serve answers 405 METHOD_NOT_ALLOWED with Allow; unknown paths 404 NOT_FOUND.`;

/** The OpenAPI 3.1 document of the admin API, generated from the same route table and schemas the router uses. */
export function createAdminOpenApiDocument(routes: readonly AdminRoute[]) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const pathItem = (paths[toOpenApiPath(route.path)] ??= {});
    pathItem[route.method] = operationOf(route);
  }
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'Property catalogue admin API', version: '1.0.0', description: DESCRIPTION },
    servers: [{ url: '/admin/v1' }],
    security: [{ adminToken: [] }],
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name })),
    components: {
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token.' } },
    },
    paths,
  });
}

export function adminOpenApiYaml(routes: readonly AdminRoute[]): string {
  return stringify(createAdminOpenApiDocument(routes), { aliasDuplicateObjects: false });
}
