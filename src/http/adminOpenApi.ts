import { z } from 'zod';
import { createDocument, type ZodOpenApiContentObject, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { stringify } from 'yaml';
import { EDITOR_ROLES } from '../access/editor.js';
import { ACCEPTED_TYPES, type UploadField } from '../uploads/uploadKinds.js';
import type { AdminRoute } from './adminRoute.js';
import { allowedRolesOf, requiredRoleOf } from './adminRoutes/editorRoles.js';
import { importOperation } from './adminRoutes/importRoutes.js';
import { JSON_BODY_LIMIT_BYTES } from './jsonBody.js';
import {
  OPENAPI_OPTIONS,
  documentedParameters,
  errorResponse,
  finishDocument,
  internalErrorResponse,
  meta,
  protocolRefusalResponses,
  readUnavailableResponse,
  requestIdHeader,
  requestIdParameter,
  serviceUnavailableResponse,
  toOpenApiPath,
  withResponseHeaders,
  withResponses,
} from './openApiCommon.js';
import { attachExamples, recordedExamplesIn } from './openApiExamples.js';
import { IF_MATCH_PROBLEM } from './validation.js';
import { LOG_POSITION_HEADER } from './consistency.js';
import { acceptingConsistentAfter, logPositionHeader, logPositionMeta, projectionBehindResponse } from './consistencyOpenApi.js';

const etagHeader = z
  .string()
  .optional()
  .meta({
    description:
      'A record: its revision, quoted ("<revision>"); send it back as If-Match. A list: a digest of the page; send it back as If-None-Match for a 304 while the page is unchanged.',
    header: { id: 'ETag' },
  });
const ifMatchParameter = z
  .string()
  .optional()
  .meta({
    description:
      `The revision the write is based on (the ETag of a GET, or the \`revision\` a list shows); ${IF_MATCH_PROBLEM}. ` +
      'A stale one answers 409 CONFLICT and writes nothing. It names the revision of the record the path names; ' +
      "where the write makes a record for a client (an API key, a plan change request, an agent profile), the client's; " +
      "for a delivery retry, the webhook's. A create has no revision to match yet, so any revision it names is stale.",
    param: { id: 'IfMatch' },
  });

const ifNoneMatchParameter = z
  .string()
  .optional()
  .meta({
    description: 'The ETag of a GET (strong or weak, a list, or *), compared weakly per RFC 9110; a match answers 304 with an empty body.',
    param: { id: 'IfNoneMatch' },
  });

const ERROR_RESPONSES = {
  badRequest: errorResponse(
    'BadRequest',
    'The request cannot be read.',
    ['BAD_REQUEST'],
    'BAD_REQUEST: a malformed request (details.part), an HTTP/1.1 request without Host, a path that cannot be decoded, or an X-Forwarded-For ' +
      'entry from a trusted proxy that is not an IP address (details.header).',
  ),
  unauthenticated: errorResponse(
    'Unauthenticated',
    'Missing, malformed or unknown token, or an editor token that is revoked, expired or of a deactivated account (one body for all).',
    ['UNAUTHENTICATED'],
    'Always UNAUTHENTICATED.',
    { 'WWW-Authenticate': z.string().meta({ description: 'Bearer' }) },
  ),
  insufficientRole: errorResponse(
    'InsufficientRole',
    "The caller's role may not run the operation; nothing was read or written.",
    ['INSUFFICIENT_ROLE'],
    "INSUFFICIENT_ROLE: `details.role` (the caller's), `details.allowed_roles` (every role that may run the operation) and `details.required_role` (the least of them).",
  ),
  notFound: errorResponse('NotFound', 'No such resource.', ['NOT_FOUND'], 'NOT_FOUND.'),
  conflict: errorResponse(
    'Conflict',
    'The command conflicts with the current state; nothing was written.',
    ['CONFLICT', 'SLUG_TAKEN', 'PROJECT_DELETED', 'ACCOUNT_TOKEN_TAKEN'],
    'CONFLICT: If-Match names a stale revision, or someone changed the resource between read and write (reload and retry), ' +
      'or concurrent commands kept taking the id this one needed (retry). ' +
      'SLUG_TAKEN: another resource of the same type has the slug. PROJECT_DELETED: the project is deleted and takes no further commands. ' +
      "ACCOUNT_TOKEN_TAKEN: another client holds the account token asked for (`details.fields['body.account_token']`).",
  ),
  unprocessable: errorResponse(
    'ValidationFailed',
    'The request is not valid.',
    ['VALIDATION_FAILED'],
    'VALIDATION_FAILED: `details.fields` maps every offending input (`body.<path>`, `params.<name>`, `query.<name>`, `header.if-match`, `header.X-Consistent-After`) to its problem: ' +
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
  uploadTooLarge: errorResponse(
    'UploadTooLarge',
    `A JSON body over ${JSON_BODY_LIMIT_BYTES} bytes, or a file over the limit of its kind (UPLOAD_MAX_IMAGE_BYTES, UPLOAD_MAX_DOCUMENT_BYTES, UPLOAD_MAX_VIDEO_BYTES); nothing was stored.`,
    ['PAYLOAD_TOO_LARGE'],
    'PAYLOAD_TOO_LARGE: `details.limit_bytes`, and `details.field` for a file. Answered as soon as the limit is passed (at once when Content-Length says so), with `Connection: close`.',
  ),
  uploadUnsupportedMediaType: errorResponse(
    'UploadUnsupportedMediaType',
    'The body is neither JSON, multipart/form-data nor a file type this operation takes, or a file part is of a type its field does not take.',
    ['UNSUPPORTED_MEDIA_TYPE'],
    'UNSUPPORTED_MEDIA_TYPE: `details.field` and the types it takes in `details.accepted_types`.',
  ),
  uploadUnprocessable: errorResponse(
    'UploadValidationFailed',
    'The request is not valid, or a file is not what it is declared to be; nothing was appended.',
    ['VALIDATION_FAILED', 'FILE_CONTENT_MISMATCH', 'FILE_CORRUPT'],
    'VALIDATION_FAILED: as for every operation; a stored-file ref sent as JSON must name a stored file with its facts (`body.<field>.key` names no stored file, ' +
      '`body.<field>.size_bytes` and the others differ from it). FILE_CONTENT_MISMATCH: the bytes (magic numbers) are not the declared Content-Type ' +
      '(`details.field`, `details.content_type`, `details.detected_type`). FILE_CORRUPT: a picture that does not decode to its end (`details.field`).',
  ),
};

const fileNameParameter = z.string().optional().meta({
  description:
    'The file name to record for a file sent as the body (else Content-Disposition `filename`/`filename*`, else e.g. `image.jpg`); folders, control characters and bidirectional overrides are dropped, and it is cut to 255 characters.',
});

const binaryFile = (contentMediaType: string, description: string) => ({ type: 'string' as const, contentMediaType, description });
const fieldName = (field: UploadField) => field.field || 'the whole body';

/**
 * A route that takes files: JSON (refs naming stored files) as before, each of the field's file types as the
 * raw body, and multipart/form-data with the file as a part and the other fields as form fields.
 */
function uploadContent(route: AdminRoute, fields: readonly UploadField[]): ZodOpenApiContentObject {
  const raw = fields.filter((field) => !field.field.includes('*'));
  const rawContent = Object.fromEntries(
    raw.flatMap((field) =>
      ACCEPTED_TYPES[field.kind].map((type) => [
        type,
        {
          schema: binaryFile(
            type,
            `The file itself, stored and recorded as ${fieldName(field)}: key (SHA-256), size and, for a picture, width and height are read from it.`,
          ),
        },
      ]),
    ),
  );
  const partOf = (field: UploadField) =>
    binaryFile('application/octet-stream', `The file for ${fieldName(field)}: ${ACCEPTED_TYPES[field.kind].join(', ')}.`);
  // The first field's part is named `file`; the others' by their field.
  const namedParts = raw.map((field, index) => [index === 0 && field === fields[0] ? 'file' : field.field, field] as const);
  const patternProperties = Object.fromEntries(
    fields
      .filter((field) => field.field.includes('*'))
      .map((field) => [`^${field.field.replaceAll('.', '\\.').replaceAll('*', '(0|[1-9][0-9]*)')}$`, partOf(field)]),
  );
  return {
    'application/json': { schema: route.body! },
    'multipart/form-data': {
      // Each part's own Content-Type must be one its field takes.
      encoding: Object.fromEntries(namedParts.map(([name, field]) => [name, { contentType: ACCEPTED_TYPES[field.kind].join(', ') }])),
      schema: {
        type: 'object',
        description:
          'The files as parts (with a filename; their Content-Type is checked against their bytes), and the other fields of the JSON body as form fields: read as JSON where the field takes the JSON value (numbers, booleans, null, lists, objects), as text otherwise.',
        properties: Object.fromEntries(namedParts.map(([name, field]) => [name, partOf(field)])),
        ...(Object.keys(patternProperties).length > 0 ? { patternProperties } : {}),
        ...(namedParts[0]?.[0] === 'file' ? { required: ['file'] } : {}),
      },
    },
    ...rawContent,
  };
}

const takesIfMatch = (route: AdminRoute) => route.method !== 'get';

function operationOf(route: AdminRoute): ZodOpenApiOperationObject {
  const headers = z.object({
    'X-Request-Id': requestIdParameter,
    ...(takesIfMatch(route) ? { 'If-Match': ifMatchParameter } : {}),
  });
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: `Roles: ${allowedRolesOf(route.operationId).join(', ')}.`,
    'x-allowed-roles': allowedRolesOf(route.operationId),
    'x-required-role': requiredRoleOf(route.operationId),
    tags: [route.tag],
    requestParams: {
      path: route.params as z.ZodObject,
      header: headers,
      ...(route.uploads ? { query: z.object({ file_name: fileNameParameter }) } : route.query ? { query: route.query as z.ZodObject } : {}),
    },
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: route.uploads ? uploadContent(route, route.uploads) : { 'application/json': { schema: route.body } },
          },
        }
      : {}),
    responses: {
      [String(route.successStatus)]: {
        description: route.successStatus === 201 ? 'Created.' : 'OK.',
        headers: z.object({
          'X-Request-Id': requestIdHeader,
          ETag: etagHeader,
          ...(route.method === 'get' ? {} : { [LOG_POSITION_HEADER]: logPositionHeader }),
        }),
        content: {
          'application/json': {
            schema: z.object({
              data: route.response,
              meta: (route.meta ? meta.extend(route.meta.shape) : meta).extend(route.method === 'get' ? {} : { position: logPositionMeta }),
            }),
          },
        },
      },
      '401': ERROR_RESPONSES.unauthenticated,
      ...(route.path.includes(':') ? { '404': ERROR_RESPONSES.notFound } : {}),
      ...(route.method === 'get' ? {} : { '409': ERROR_RESPONSES.conflict }),
      ...(route.uploads
        ? { '413': ERROR_RESPONSES.uploadTooLarge, '415': ERROR_RESPONSES.uploadUnsupportedMediaType }
        : route.body
          ? { '413': ERROR_RESPONSES.payloadTooLarge, '415': ERROR_RESPONSES.unsupportedMediaType }
          : {}),
      '422': route.uploads ? ERROR_RESPONSES.uploadUnprocessable : ERROR_RESPONSES.unprocessable,
    },
  };
}

const DESCRIPTION = `Editor-facing commands, lists and reads of the property catalogue and of who may use it.

- Authentication: \`Authorization: Bearer <token>\`: the bootstrap token (ADMIN_TOKEN, or in embedded mode the generated DATA_DIR/admin-token file), which is an \`admin\`, or a named editor account's token (\`edt_…\`, issued by \`POST /editors/{editorId}/tokens\`, shown once, stored only as its hash, revocable, optionally expiring). A revoked or expired token, or one of a deactivated account, is 401 like an unknown one; a revocation, deactivation or role change holds once the projector has applied it (send the write's position as X-Consistent-After to be sure).
- Roles: each is a set of permission groups, not a rung of a ladder. \`editor\`: catalogue reads and edits; \`publisher\`: those and publishing (publish, unpublish, delete, currency rates); \`operator\`: access administration (plans, clients, keys, subscriptions, plan changes, usage, agent profiles, webhooks, the service status and /metrics) and catalogue reads, but no catalogue edits; \`admin\`: everything, editor accounts too. Each operation lists the roles that may run it as \`x-allowed-roles\` (and the least of them as \`x-required-role\`); another role gets 403 INSUFFICIENT_ROLE naming \`details.role\`, \`details.allowed_roles\` and \`details.required_role\`, before anything is read or stored.
- Audit: every event a write appends records its actor in its metadata: the actor id (\`editor:<id>\` or \`bootstrap\`), the account and token ids, the request id (X-Request-Id) and the client address. \`GET <record>/history\` (projects, developers, states, communities, sub-communities, unit types, plans, clients and their keys, subscriptions and plan changes, agent profiles, webhooks, currency rates, editors) answers a record's events newest first, paginated: type, time, log position, revision, actor, and the fields each one changed with their values before and after (the record folded from its stream before and after the event; a key's hash and a webhook's secrets are never shown). \`GET /projects/{projectId}?as_of=<timestamp or log position>\` answers the project as it was then (422 naming \`query.as_of\` when malformed, 404 when it did not exist yet).
- Success body \`{ data, meta }\`; error body \`{ error: { code, message, details }, meta }\`; every response carries X-Request-Id.
- All or nothing: a refused command writes nothing, not even an id allocation. Only one that loses a race to a concurrent command partway can leave a write behind: an id claimed but never used (a slug taken or the resource changed meanwhile; so ids can have gaps), or the first of the two streams a key rotation or a plan change taking effect writes to (the rotation's successor key is revoked again; repeating the plan change finishes it).
- Concurrency: every record carries its \`revision\` (the revision of its event stream), in lists too, and a GET or write of it answers \`ETag: "<revision>"\`. Every write takes \`If-Match: "<revision>"\`: when someone else changed the record meanwhile it is refused with 409 CONFLICT (\`details.expected_revision\`, \`details.current_revision\`) and nothing is written, so two editors never overwrite each other silently. A write that makes a record for a client (API key, plan change request, agent profile) matches the client's revision, a delivery retry the webhook's; a create has nothing to match, so any revision it names is stale. \`If-Match: *\` or none = no precondition beyond the server's own read-then-write check.
- Lists: \`GET /projects\` (unpublished and deleted ones too), \`/developers\`, \`/states\`, \`/communities\`, \`/sub-communities\`, \`/unit-types\`, \`/plans\`, \`/clients\`, \`/clients/{clientId}/keys\` (metadata only: never a key or its hash), \`/subscriptions\`, \`/plan-changes\`, \`/agent-profiles\`, \`/clients/{clientId}/agent-profiles\` and \`/webhooks\` are read from read models (so a write shows once the projector has applied it), filtered by their parameters, sorted by \`sort\` (a leading \`-\` descends; ties by id) and paginated as /v1 is: \`page\` (default 1) and \`per_page\` (default 20, at most 100; more is 422, never clamped), with \`meta.pagination\` \`{ page, per_page, total, total_pages }\`. A parameter a list does not take is 422 VALIDATION_FAILED naming it. Free text \`q\` matches case-insensitively anywhere in names and slugs (projects: developer and community names too). \`updated_since\` keeps records whose \`updated_at\` is later. A list's ETag is a digest of its page: \`If-None-Match\` answers 304 while it is unchanged.
- Validation: every input is parsed by strict schemas; unknown fields are refused; 422 VALIDATION_FAILED lists every problem in \`details.fields\`. Malformed JSON is 422 VALIDATION_FAILED naming \`body\` (one validation shape for clients), a non-JSON body 415, a body over 1 MB 413.
- Files: an operation that records a picture, a PDF or a video (gallery, floor plans, floor plates, developer logo, community banner, agent portrait, master plan document, brochure, video and its thumbnail) also takes the file itself, as the raw body (\`Content-Type: image/jpeg|png|webp\`, \`application/pdf\`, \`video/mp4|webm|quicktime\`; \`?file_name=\` or Content-Disposition names it) or as multipart/form-data (a \`file\` part, or parts named by their field, plus the other fields as form fields). The bytes are streamed to a staging file, limited per kind (413), sniffed (a declared type the field does not take is 415; bytes that are not the declared type 422 FILE_CONTENT_MISMATCH; a picture that does not decode 422 FILE_CORRUPT), and stored under their SHA-256 before the command runs; the field then holds the stored-file ref (key = SHA-256, size, and a picture's width and height as displayed, all read from the file). A ref sent as JSON must name a stored file with the same facts (422 otherwise), unless the resource already records that very ref.
- Agent profiles (the agent page of a client's brochures): draft → submitted → approved or rejected; only approved ones are listed to the client (\`GET /v1/agent-profiles\`). An edit that changes an approved profile (a field or the portrait) sends it back to submitted, out of that list until approved again, so what a brochure prints has always been reviewed.
- Currency rates (brochure prices in another currency, \`POST /v1/projects/{project}/pdf\` \`currency\`): \`per_aed\` is how many units one AED buys. AED is the base (1); USD and SAR stand at their dollar pegs until an editor sets a rate (removing it restores the peg); EUR, GBP and INR have a rate only once set. A brochure's fingerprint holds the rate, so a new rate makes new brochures.
- Read your own writes: every write answers the log position of its last event as \`meta.position\` and the header X-Log-Position (a write that changed nothing: the head of the log). Send it as \`X-Consistent-After\` on any GET here or on /v1 and the answer waits until every read model has applied the log up to it (at most CONSISTENCY_WAIT_MS, 2 s by default; then 503 PROJECTION_BEHIND with Retry-After), so a list read right after a write shows it, with no polling or sleeping.
- A path asked with a method it does not serve answers 405 METHOD_NOT_ALLOWED with Allow; unknown paths 404 NOT_FOUND.
- Server and protocol answers, on any operation: 500 INTERNAL_ERROR (a bug, logged with the request id), 503 SERVICE_UNAVAILABLE with Retry-After when a store the request needs does not answer; and, before a request reaches an operation, 400 BAD_REQUEST (malformed), 408 REQUEST_TIMEOUT, 417 EXPECTATION_FAILED or 431 HEADERS_TOO_LARGE, after which the connection is closed.
- Responses may gain fields: clients must ignore unknown JSON fields (no response schema here forbids them).`;

const TAG_DESCRIPTIONS: Record<string, string> = {
  States: "States, the top level of the catalogue's geography.",
  Communities: 'Communities, each in a state, with their banners.',
  'Sub-communities': 'Sub-communities, each in a community.',
  Developers: 'Developers and their logos.',
  'Unit types': 'The unit types projects list under `bedrooms` (studio, bedrooms, other).',
  Projects: 'Projects and their related collections: floor plans, payment plans, gallery, documents, video, amenities and the rest.',
  Plans: 'Plans: scopes, entitlements, detail fields and limits that clients are given.',
  Clients: 'API clients: status, network controls, catalogue restriction, evaluation, account token, subscription and usage.',
  'API keys': "A client's API keys: issue (shown once), rotate, revoke, deactivate; only metadata is ever read back.",
  'Plan changes': 'Requests to move a client to another plan, from submission through review and payment to taking effect.',
  'Agent profiles': "The agent pages of clients' brochures, reviewed before a brochure may print them.",
  'Currency rates': 'Rates of the currencies brochure prices may be shown in, per AED.',
  Webhooks: "Clients' webhooks as operators see them: enable, disable, history, and a manual retry of a delivery.",
  Editors: 'Named editor accounts, their roles and their tokens.',
  Operations: 'The state of the running service.',
  Imports: 'Catalogues imported as NDJSON, a record per line, idempotent by key.',
};

/** Whether some role may not run the operation, and so gets 403 INSUFFICIENT_ROLE (src/http/adminRoutes/editorRoles.ts). */
const refusesSomeRole = (operation: ZodOpenApiOperationObject) => allowedRolesOf(operation.operationId ?? '').length < EDITOR_ROLES.length;

/**
 * What every admin operation has in common, added to what it documents itself: the token, the request id,
 * conditional GETs, the refusals any request may meet (a role's only where some role may not run it) and
 * the server errors.
 */
function completeOperation(operation: ZodOpenApiOperationObject, method: string): ZodOpenApiOperationObject {
  const reads = method === 'get';
  const responses = { ...operation.responses };
  // A read behind X-Consistent-After: the store may be unreachable as well as behind.
  if (responses['503'] === projectionBehindResponse) responses['503'] = readUnavailableResponse;
  const { requestParams = {} } = operation;
  const ownHeaders = requestParams.header instanceof z.ZodObject ? requestParams.header.shape : {};
  const completed = withResponses(
    {
      ...operation,
      security: [{ adminToken: [] }],
      requestParams: {
        ...requestParams,
        ...(requestParams.path ? { path: documentedParameters(requestParams.path) } : {}),
        ...(requestParams.query ? { query: documentedParameters(requestParams.query) } : {}),
        header: z.object({ ...ownHeaders, ...(reads ? { 'If-None-Match': ifNoneMatchParameter } : {}) }),
      },
      responses,
    },
    {
      ...protocolRefusalResponses,
      '400': ERROR_RESPONSES.badRequest,
      ...(refusesSomeRole(operation) ? { '403': ERROR_RESPONSES.insufficientRole } : {}),
      ...(reads ? { '304': { description: 'Not modified: If-None-Match matched the current ETag. Empty body.' } } : {}),
      '500': internalErrorResponse,
      '503': serviceUnavailableResponse,
    },
  );
  return withResponseHeaders(completed, (status) => ({
    'X-Request-Id': requestIdHeader,
    ...(reads && /^(2|304)/.test(status) ? { ETag: etagHeader } : {}),
  }));
}

/** The OpenAPI 3.1 document of the admin API, generated from the same route table and schemas the router uses. */
export function createAdminOpenApiDocument(routes: readonly AdminRoute[]) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const pathItem = (paths[toOpenApiPath(route.path)] ??= {});
    const operation = route.method === 'get' ? acceptingConsistentAfter(operationOf(route)) : operationOf(route);
    pathItem[route.method] = completeOperation(operation, route.method);
  }
  paths['/imports'] = { post: completeOperation(importOperation({ ...ERROR_RESPONSES, ifMatchParameter }), 'post') };
  const tags = [...new Set([...routes.map((route) => route.tag), 'Imports'])];
  return finishDocument(
    createDocument(
      {
        openapi: '3.1.0',
        info: {
          title: 'Property catalogue admin API',
          version: '1.0.0',
          description: DESCRIPTION,
          license: { name: 'Proprietary: for the operator of this service', identifier: 'LicenseRef-Proprietary' },
        },
        servers: [{ url: '/admin/v1', description: 'The admin API, version 1, on the host serving this document.' }],
        security: [{ adminToken: [] }],
        tags: tags.map((name) => (TAG_DESCRIPTIONS[name] === undefined ? { name } : { name, description: TAG_DESCRIPTIONS[name] })),
        components: {
          securitySchemes: {
            adminToken: { type: 'http', scheme: 'bearer', description: "The bootstrap admin token, or an editor account's token." },
          },
        },
        paths,
      },
      OPENAPI_OPTIONS,
    ),
  );
}

/** Recorded by `npm run openapi:examples` (src/cli/adminOpenApiExamples.ts) from the demo catalogue. */
const RECORDED_EXAMPLES = new URL('./adminOpenApiExamples.json', import.meta.url);

/** The document as served: with the recorded examples, when there are any. */
export function adminOpenApiYaml(routes: readonly AdminRoute[]): string {
  const document = createAdminOpenApiDocument(routes);
  const examples = recordedExamplesIn(RECORDED_EXAMPLES);
  return stringify(examples === null ? document : attachExamples(document, examples), { aliasDuplicateObjects: false });
}
