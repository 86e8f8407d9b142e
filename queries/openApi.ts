import { z } from 'zod';
import { ACCESS_REFUSALS, type AccessRefusalCode } from '../src/access/accessRefusals.js';
import type { Entitlement, Scope } from '../src/access/accessContext.js';
import type { LimitCode } from '../src/limits/limits.js';
import type { PdfLimitCode } from '../src/pdf/pdfLimits.js';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { stringify } from 'yaml';
import {
  OPENAPI_OPTIONS,
  documentedParameters,
  errorResponse,
  errorResponsesByCodes,
  finishDocument,
  internalErrorResponse,
  meta,
  metaWith,
  pascalCase,
  protocolRefusalResponses,
  readUnavailableResponse,
  requestIdHeader,
  requestIdParameter,
  serversFor,
  serviceUnavailableResponse,
  toOpenApiPath,
  withResponseHeaders,
  withResponses,
} from '../src/http/openApiCommon.js';
import { acceptingConsistentAfter, getsAcceptingConsistentAfter, projectionBehindResponse } from '../src/http/consistencyOpenApi.js';
import { JSON_BODY_LIMIT_BYTES } from '../src/http/jsonBody.js';
import { attachExamples, recordedExamplesIn, type OpenApiExamples } from '../src/http/openApiExamples.js';
import { WEBHOOK_ENTITLEMENTS, WEBHOOK_SCOPES, webhookRoutes, type WebhookRoute } from '../src/http/webhookApi.js';
import { documentFilesPaths } from './documentFiles.js';
import { healthResponseSchema } from './health.js';
import { mediaFilesPaths } from './mediaFiles.js';
import { idempotencyKeySchema } from '../src/pdf/idempotencyStore.js';
import { PDF_CURRENCIES, pdfRequestBodySchema, pdfRequestQuerySchema } from '../src/pdf/pdfOptions.js';
import { PDF_ENTITLEMENTS, PDF_SCOPES, PROJECT_PDF_PATH, pdfResultSchema } from './projectPdf.js';
import { projectParams } from './projects.js';
import { webhookDeliveryPaths, webhookEvents } from './webhookEventsOpenApi.js';
import type { QueryRoute } from './queryRoute.js';

const accessModeHeader = z.enum(['commercial', 'evaluation']).meta({
  description: 'evaluation while the account is in Evaluation Mode (a frozen sample, preview media only), else commercial.',
  header: { id: 'X-Access-Mode' },
});

const sandboxHeader = z.enum(['true', 'false']).meta({
  description: 'true for a test (sandbox) key: never billed, no monthly allowance.',
  header: { id: 'X-Sandbox' },
});

const integerHeader = (id: string, description: string) => z.string().regex(/^\d+$/).meta({ description, header: { id } });

/** On every response that reached quota checking (200, 304 and 429); the X-Quota ones where that cap applies. */
const limitHeaders = {
  'RateLimit-Limit': integerHeader(
    'RateLimit-Limit',
    "Requests per rolling minute of the key's plan; absent when the deployment checks no limits (RATE_LIMITS=off).",
  ).optional(),
  'RateLimit-Remaining': integerHeader(
    'RateLimit-Remaining',
    'Requests left in the current rolling minute; absent when the deployment checks no limits (RATE_LIMITS=off).',
  ).optional(),
  'X-Quota-Daily-Limit': integerHeader('X-Quota-Daily-Limit', 'Units per Asia/Dhaka day; absent when no daily cap applies.').optional(),
  'X-Quota-Daily-Remaining': integerHeader('X-Quota-Daily-Remaining', 'Units left today.').optional(),
  'X-Quota-Daily-Reset': integerHeader('X-Quota-Daily-Reset', 'Unix time of the next Asia/Dhaka midnight.').optional(),
  'X-Quota-Monthly-Limit': integerHeader(
    'X-Quota-Monthly-Limit',
    'Units per Asia/Dhaka month; absent for test keys and uncapped plans.',
  ).optional(),
  'X-Quota-Monthly-Remaining': integerHeader('X-Quota-Monthly-Remaining', 'Units left this month.').optional(),
  'X-Quota-Monthly-Reset': integerHeader('X-Quota-Monthly-Reset', 'Unix time of midnight Asia/Dhaka on the 1st of next month.').optional(),
  'X-Quota-Overage': z
    .literal('true')
    .meta({ description: 'This request went past the monthly allowance and is billed as overage.', header: { id: 'X-Quota-Overage' } })
    .optional(),
  'X-Quota-Overage-Price-Per-Request': z
    .string()
    .meta({
      description: 'Price and currency of one overage request, e.g. `0.002 AED`.',
      header: { id: 'X-Quota-Overage-Price-Per-Request' },
    })
    .optional(),
};

const quotaSchema = z
  .object({
    limit: z.number().int().nullable().meta({ description: 'null when no such cap applies (e.g. the monthly quota of a test key).' }),
    used: z.number().int(),
    remaining: z.number().int().nullable(),
  })
  .meta({ id: 'Quota' });

const quotaUnitsHeader = z
  .string()
  .meta({ description: 'Weighted cost of this batch in quota units (same value as meta.quota_units).', header: { id: 'XQuotaUnits' } });

/**
 * What a 429 can carry, in the order the limits are checked: every keyed operation is checked against each
 * request limit and charges quota (a 304 aside), and a PDF limit refuses with one of the same codes. A record
 * of both types, so that a limit added to either does not compile until it is documented here.
 */
const LIMIT_CODES = Object.keys({
  BURST_LIMIT_EXCEEDED: true,
  PER_MINUTE_LIMIT_EXCEEDED: true,
  DAILY_LIMIT_EXCEEDED: true,
  MONTHLY_LIMIT_EXCEEDED: true,
} satisfies Record<LimitCode | PdfLimitCode, true>) as [LimitCode, ...LimitCode[]];

const tooManyRequests: ZodOpenApiResponseObject = {
  id: 'TooManyRequests',
  description:
    'A rate limit or quota is reached. Checked in the order burst, per minute, daily, monthly. A refused request consumes no quota. ' +
    'Retry-After (seconds) says when the same request could pass.',
  headers: z.object({
    'X-Request-Id': requestIdHeader,
    'Retry-After': integerHeader('Retry-After', 'Seconds until the limit that refused the request frees up.'),
    ...limitHeaders,
    'X-Quota-Units': quotaUnitsHeader.optional(),
  }),
  content: {
    'application/json': {
      schema: z
        .object({
          success: z.literal(false),
          error: z
            .object({
              code: z.enum(LIMIT_CODES),
              message: z.string(),
              details: z.object({
                reset_at: z.iso.datetime(),
                retry_after_seconds: z.number().int(),
                daily: quotaSchema,
                monthly: quotaSchema,
              }),
            })
            .meta({ id: 'TooManyRequestsProblem' }),
          meta,
        })
        .meta({ id: 'TooManyRequestsError' }),
    },
  },
};

const etagHeader = z.string().meta({
  description: 'Strong validator of the payload at this URL (data and the stable meta fields). Send it back as If-None-Match.',
  header: { id: 'ETag' },
});
const ifNoneMatchParameter = z
  .string()
  .optional()
  .meta({
    description: 'Entity tags (strong or weak, a list, or *) compared weakly per RFC 9110; a match answers 304 with an empty body.',
    param: { id: 'IfNoneMatch' },
  });
const SIGNED_ONLY =
  'Required when request signing is enabled for the client (see Request signing in the API description); ignored otherwise.';
// The formats src/http/requestSigning.ts checks.
const signingParameters = {
  'X-API-Timestamp': z
    .string()
    .regex(/^\d{1,12}$/)
    .optional()
    .meta({
      description: `Unix time in whole seconds (digits only), within the signature window of the server time. ${SIGNED_ONLY}`,
      param: { id: 'XApiTimestamp' },
    }),
  'X-API-Nonce': z
    .string()
    .min(16)
    .max(128)
    .regex(/^[\x21-\x7E]+$/)
    .optional()
    .meta({
      description: `16 to 128 printable ASCII characters without spaces, new for every request. ${SIGNED_ONLY}`,
      param: { id: 'XApiNonce' },
    }),
  'X-API-Signature': z
    .string()
    .regex(/^v1=[0-9a-fA-F]{64}$/)
    .optional()
    .meta({
      description: `\`v1=\` followed by the HMAC-SHA256 of the signed string as 64 hex digits. ${SIGNED_ONLY}`,
      param: { id: 'XApiSignature' },
    }),
};

const ERROR_RESPONSES = {
  badRequest: errorResponse(
    'BadRequest',
    'The request cannot be used as sent.',
    ['API_KEY_IN_QUERY', 'BAD_REQUEST', 'HOST_NOT_ALLOWED'],
    'API_KEY_IN_QUERY: a key was sent in the query string; it is not used (and must be rotated). BAD_REQUEST: an undecodable URL, a malformed request ' +
      '(details.part), an HTTP/1.1 request without Host, or an X-Forwarded-For entry from a trusted proxy that is not an IP address (details.header). ' +
      'HOST_NOT_ALLOWED: a deployment without a configured public base URL builds links on the Host header, and this one does not name the machine (details.header).',
  ),
  unauthenticated: errorResponse(
    'Unauthenticated',
    'Key missing, malformed, unknown or not usable here (one body whatever the reason, so nothing about any account is revealed); or, for a client that must sign its requests, a missing, malformed, expired or wrong signature or a reused nonce.',
    ['UNAUTHENTICATED', 'SIGNATURE_REQUIRED', 'SIGNATURE_INVALID', 'SIGNATURE_EXPIRED', 'NONCE_REUSED'],
    'UNAUTHENTICATED: the key was not accepted. The signing codes come only once the key verified: SIGNATURE_REQUIRED (details.missing_headers), ' +
      'SIGNATURE_INVALID (details.headers maps each malformed header, or X-API-Signature when it does not match, to the problem), ' +
      'SIGNATURE_EXPIRED (details.server_time in Unix seconds, details.window_seconds), NONCE_REUSED (details.header).',
    { 'WWW-Authenticate': z.string().optional().meta({ description: 'Bearer; sent with UNAUTHENTICATED.' }) },
  ),
  notFound: errorResponse(
    'NotFound',
    "Not available: missing, unpublished or outside the caller's access (one answer for all).",
    ['NOT_FOUND'],
    'NOT_FOUND.',
  ),
  videoNotAvailable: errorResponse(
    'VideoNotAvailable',
    'The project is not available, or has no video.',
    ['NOT_FOUND', 'VIDEO_NOT_AVAILABLE'],
    'NOT_FOUND: the project; VIDEO_NOT_AVAILABLE: its video.',
  ),
  documentUnavailable: errorResponse(
    'DocumentUnavailable',
    'The project is not available, or the document cannot be located.',
    ['NOT_FOUND', 'DOCUMENT_UNAVAILABLE'],
    'NOT_FOUND: the project; DOCUMENT_UNAVAILABLE: its document.',
  ),
  unprocessable: errorResponse(
    'ValidationFailed',
    'The request is not valid.',
    ['VALIDATION_FAILED'],
    'VALIDATION_FAILED: details.fields maps every offending input (`query.<name>`, `params.<name>`) to its problem: unknown parameters, bad ' +
      'types or enum values, per_page over 100, more ids than allowed, duplicate ids, a bad sort field. Nothing is ignored or clamped.',
  ),
};

/**
 * The access refusals an operation's own handler answers (declared by its route); every other one comes from
 * authentication (src/http/lookupAccess.ts and the request checks src/http/app.ts mounts with it), which any
 * keyed request passes through.
 */
const OPERATION_REFUSALS = ['EVALUATION_PREVIEW_ONLY'] as const satisfies readonly AccessRefusalCode[];
type OperationRefusal = (typeof OPERATION_REFUSALS)[number];
const AUTHENTICATION_REFUSALS = (Object.keys(ACCESS_REFUSALS) as AccessRefusalCode[]).filter(
  (code): code is Exclude<AccessRefusalCode, OperationRefusal> => !(OPERATION_REFUSALS as readonly string[]).includes(code),
);

/** 403 of a keyed operation: the refusals of authentication, and those of what the operation declares. */
const forbiddenResponses = errorResponsesByCodes({
  id: 'Forbidden',
  description: 'The key verified, but may not be used now, or lacks what the operation needs.',
  meanings: {
    INSUFFICIENT_SCOPE:
      'details.missing_scopes lists the scopes the key lacks (details.missing_entitlements those of the plan, maybe none).',
    ENTITLEMENT_REQUIRED: 'details.missing_entitlements lists the plan entitlements missing (details.missing_scopes is empty).',
    ...ACCESS_REFUSALS,
  },
  always: AUTHENTICATION_REFUSALS,
});

/** What a keyed operation declares that its 403 may name: the grants it checks, and whether it refuses Evaluation Mode. */
interface OperationAccess {
  scopes: readonly Scope[];
  entitlements: readonly Entitlement[];
  refusesEvaluation: boolean;
}

function forbiddenResponse({ scopes, entitlements, refusesEvaluation }: OperationAccess): ZodOpenApiResponseObject {
  return forbiddenResponses([
    ...(scopes.length > 0 ? (['INSUFFICIENT_SCOPE'] as const) : []),
    ...(entitlements.length > 0 ? (['ENTITLEMENT_REQUIRED'] as const) : []),
    ...(refusesEvaluation ? (['EVALUATION_PREVIEW_ONLY'] as const) : []),
  ]);
}

/** A /v1 read's grants: those checked before parsing and every one its query may ask for; its declared refusals. */
const accessOfRoute = (route: QueryRoute): OperationAccess => ({
  scopes: [...route.scopes, ...(route.queryGrants?.possible.scopes ?? [])],
  entitlements: [...route.entitlements, ...(route.queryGrants?.possible.entitlements ?? [])],
  refusesEvaluation: route.errors.includes('evaluationPreviewOnly'),
});

const WEBHOOK_ACCESS: OperationAccess = { scopes: WEBHOOK_SCOPES, entitlements: WEBHOOK_ENTITLEMENTS, refusesEvaluation: false };
const PDF_ACCESS: OperationAccess = { scopes: PDF_SCOPES, entitlements: PDF_ENTITLEMENTS, refusesEvaluation: true };

const WEBHOOK_ERROR_RESPONSES = {
  conflict: errorResponse(
    'WebhookConflict',
    'The change conflicts with the webhook as it is now; nothing was written.',
    ['CONFLICT'],
    'CONFLICT: enabling a webhook an administrator disabled, or another change to the same webhook at the same moment (reload and retry).',
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
  unprocessable: errorResponse(
    'WebhookValidationFailed',
    'The request is not valid, or the client has as many webhooks as it may.',
    ['VALIDATION_FAILED', 'WEBHOOK_LIMIT_REACHED'],
    'VALIDATION_FAILED: details.fields maps every offending input (`body.<field>`, `params.id`, `query.<name>`) to its problem: unknown fields, ' +
      'a name that is empty, too long or not one line, an unknown or repeated event type, an empty event list, a malformed id, and a `url` ' +
      'that is not an absolute https URL, carries credentials or a fragment, is over 2048 characters, does not resolve, or resolves to a loopback, ' +
      'private, link-local, multicast or metadata address. Malformed JSON is named `body`. WEBHOOK_LIMIT_REACHED: the client has its maximum ' +
      'of webhooks (details.limit).',
  ),
};

/**
 * A /v1/webhooks operation: keyed, limited and signed like every /v1 call (keyedOperation adds what they have
 * in common); its scope and entitlement in the description.
 */
function webhookOperationOf(route: WebhookRoute): ZodOpenApiOperationObject {
  const reads = route.method === 'get';
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: `${route.description}\n\nScope: ${WEBHOOK_SCOPES.join(', ')}.\n\nEntitlement: ${WEBHOOK_ENTITLEMENTS.join(', ')}.`,
    tags: ['Webhooks'],
    requestParams: { path: route.params as z.ZodObject, query: route.query as z.ZodObject },
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    responses: {
      [String(route.successStatus)]: {
        description: route.successStatus === 201 ? 'Created.' : 'OK.',
        content: { 'application/json': { schema: z.object({ data: route.response, meta: metaWith(route.meta) }) } },
      },
      ...(route.namesWebhook ? { '404': ERROR_RESPONSES.notFound } : {}),
      ...(reads ? {} : { '409': WEBHOOK_ERROR_RESPONSES.conflict }),
      ...(route.body ? { '413': WEBHOOK_ERROR_RESPONSES.payloadTooLarge, '415': WEBHOOK_ERROR_RESPONSES.unsupportedMediaType } : {}),
      '422': WEBHOOK_ERROR_RESPONSES.unprocessable,
    },
  };
}

const PDF_QUOTA_PERIODS = [
  ['Minute', 'the rolling minute', 'Unix time when the oldest unit leaves the rolling minute (now when none is in it).'],
  ['Daily', 'today (Asia/Dhaka)', 'Unix time of the next Asia/Dhaka midnight.'],
  ['Monthly', 'this month (Asia/Dhaka)', 'Unix time of midnight Asia/Dhaka on the 1st of next month.'],
] as const;

/** X-Pdf-Quota-*: sent with an answer that spent a PDF unit or was refused one; absent on cached reuse and idempotent replays. */
const pdfQuotaHeaders = Object.fromEntries(
  PDF_QUOTA_PERIODS.flatMap(([period, span, reset]) => [
    [`X-Pdf-Quota-${period}-Limit`, integerHeader(`X-Pdf-Quota-${period}-Limit`, `PDF generations allowed in ${span}.`).optional()],
    [`X-Pdf-Quota-${period}-Remaining`, integerHeader(`X-Pdf-Quota-${period}-Remaining`, `PDF generations left in ${span}.`).optional()],
    [`X-Pdf-Quota-${period}-Reset`, integerHeader(`X-Pdf-Quota-${period}-Reset`, reset).optional()],
  ]),
);

const pdfQuotaSchema = z
  .object({ limit: z.number().int(), used: z.number().int(), remaining: z.number().int() })
  .meta({ id: 'PdfMinuteQuota' });

const PDF_ERROR_RESPONSES = {
  unprocessable: errorResponse(
    'PdfValidationFailed',
    'The brochure cannot be made as asked, or the Idempotency-Key was used for another request.',
    ['VALIDATION_FAILED', 'IDEMPOTENCY_KEY_REUSED'],
    'IDEMPOTENCY_KEY_REUSED: the key was used by this client in the last 24 hours with a different request (details.header). ' +
      'VALIDATION_FAILED: details.fields maps every offending input to its problem: `body.<field>` (unknown fields, bad types, a repeated ' +
      "section or unit type, an unknown language or section, a currency that is neither the project's own nor one with a kept rate, a " +
      "unit type that is not the project's), `query.agent_profile_id` (not an integer, or different from the body's), `body.template` (the " +
      'message names it and lists the usable designs) and `body.agent_profile_id` (the message names the id and why: it does not exist, ' +
      "is not one of the caller's profiles, or is not approved) and `header.Idempotency-Key` (not 1 to 255 visible ASCII characters). " +
      'Malformed JSON is named `body`.',
  ),
  idempotencyKeyInUse: errorResponse(
    'IdempotencyKeyInUse',
    'A request with this Idempotency-Key is still being answered. Nothing was done; retry after a moment to get its result (a replay).',
    ['IDEMPOTENCY_KEY_IN_USE'],
    'IDEMPOTENCY_KEY_IN_USE: details.header names the header.',
  ),
  rendererUnavailable: errorResponse(
    'RendererUnavailable',
    'The brochure could not be rendered: no renderer took the job, or the browser failed. Nothing was cached; the PDF unit spent is not refunded. ' +
      'Or (SERVICE_UNAVAILABLE) a store the request needs, such as the one that checks Idempotency-Key, did not answer. Retry later.',
    ['RENDERER_UNAVAILABLE', 'SERVICE_UNAVAILABLE'],
    'RENDERER_UNAVAILABLE: the render failed. SERVICE_UNAVAILABLE: a store did not answer (details.dependency, details.retry_after_seconds).',
    { 'Retry-After': integerHeader('Retry-After', 'With SERVICE_UNAVAILABLE: seconds after which the request may succeed.').optional() },
  ),
  renderTimeout: errorResponse(
    'RenderTimeout',
    'The brochure was not rendered within the render deadline (the render was stopped). Nothing was cached; the PDF unit spent is not refunded. Retry later.',
    ['RENDER_TIMEOUT'],
    'RENDER_TIMEOUT.',
  ),
};

const pdfTooManyRequests: ZodOpenApiResponseObject = {
  id: 'PdfTooManyRequests',
  description:
    'A request limit (as on every operation; details without `limit`) or, for a brochure that has to be rendered, a PDF generation limit ' +
    '(details.limit `pdf`, with the minute, daily and monthly PDF quotas, and the X-Pdf-Quota-* headers) refused the request. PDF limits ' +
    'are checked in the order minute, daily, monthly, per client across its keys; a refused request spends nothing. Retry-After (seconds) ' +
    'says when the same request could pass.',
  headers: z.object({
    'X-Request-Id': requestIdHeader,
    'Retry-After': integerHeader('Retry-After', 'Seconds until the limit that refused the request frees up.'),
    ...limitHeaders,
    ...pdfQuotaHeaders,
  }),
  content: {
    'application/json': {
      schema: z
        .object({
          success: z.literal(false),
          error: z
            .object({
              code: z.enum(LIMIT_CODES),
              message: z.string(),
              details: z.object({
                limit: z
                  .literal('pdf')
                  .optional()
                  .meta({ description: 'Present (`pdf`) when a PDF generation limit refused the request.' }),
                reset_at: z.iso.datetime(),
                retry_after_seconds: z.number().int(),
                minute: pdfQuotaSchema.optional().meta({ description: 'PDF limits only: the rolling minute.' }),
                daily: quotaSchema,
                monthly: quotaSchema,
              }),
            })
            .meta({ id: 'PdfTooManyRequestsProblem' }),
          meta,
        })
        .meta({ id: 'PdfTooManyRequestsError' }),
    },
  },
};

const PROJECT_PDF_DESCRIPTION = `Generates the project's brochure as a PDF (or reuses one) and answers a short-lived signed link to it.

The body is optional JSON; every field has a default (see PdfRequest). \`template\` matches a design's key or name, case-insensitive; \`agent_profile_id\` may also be sent as a query parameter (both given: they must be equal). Currencies: the project's own, or one of ${PDF_CURRENCIES.join(', ')} converted at the rate kept for it (AED, USD and SAR at their pegs); a currency without a kept rate is 422 naming \`currency\`.

Every brochure has a fingerprint (SHA-256 of the project, its last update, the design and its version, the branding page setting, the agent profile and its revision, language, currency and rate, sections, unit types). When a PDF of the fingerprint exists it is reused: \`cached: true\`, no PDF unit spent (it is still an ordinary request for the request limits). Otherwise one PDF unit is spent and the brochure is rendered by a worker while the request waits (up to the render deadline, 30 s by default); concurrent requests of one fingerprint render it once. A failed render (503 RENDERER_UNAVAILABLE, 504 RENDER_TIMEOUT) is not cached and its unit is not refunded; the next request renders again.

Idempotency-Key (optional, 1 to 255 visible ASCII characters) is remembered per client for 24 hours from the answer. The same key with the same request (the same project and the same brochure asked for, even if the project was edited since; the request is still checked first) answers the first result again with a fresh link and \`idempotent_replay: true\`: no render, no PDF unit. The same key with a different request is 422 IDEMPOTENCY_KEY_REUSED. While the first request is still being answered, the key is 409 IDEMPOTENCY_KEY_IN_USE (nothing is done; retry to get the replay). A request that fails (4xx after the checks, 429, 503, 504) leaves the key free for its retry.

404 for a project the key cannot see (as GET /projects/{project}); 403 EVALUATION_PREVIEW_ONLY in Evaluation Mode.`;

/** POST /v1/projects/{project}/pdf: keyed, limited and signed like every /v1 call, with the PDF limits on top. */
function projectPdfOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'generateProjectPdf',
    summary: "Generate (or reuse) the project's brochure PDF",
    description: `${PROJECT_PDF_DESCRIPTION}\n\nScope: ${PDF_SCOPES.join(', ')}.\n\nEntitlement: ${PDF_ENTITLEMENTS.join(', ')}.`,
    tags: ['Project PDF generation'],
    requestParams: {
      path: projectParams,
      query: pdfRequestQuerySchema,
      header: z.object({ 'Idempotency-Key': idempotencyKeySchema }),
    },
    requestBody: { required: false, content: { 'application/json': { schema: pdfRequestBodySchema } } },
    responses: {
      '200': {
        description:
          'The brochure: rendered now (`cached: false`), reused (`cached: true`), or the answer of an earlier request with the same Idempotency-Key (`idempotent_replay: true`).',
        headers: z.object({
          'Cache-Control': z
            .literal('no-store')
            .meta({ description: 'The link in the body is short-lived.', header: { id: 'CacheControlNoStore' } }),
          ...pdfQuotaHeaders,
        }),
        content: { 'application/json': { schema: z.object({ data: pdfResultSchema, meta }) } },
      },
      '404': ERROR_RESPONSES.notFound,
      '409': PDF_ERROR_RESPONSES.idempotencyKeyInUse,
      '413': WEBHOOK_ERROR_RESPONSES.payloadTooLarge,
      '415': WEBHOOK_ERROR_RESPONSES.unsupportedMediaType,
      '422': PDF_ERROR_RESPONSES.unprocessable,
      '429': pdfTooManyRequests,
      '503': PDF_ERROR_RESPONSES.rendererUnavailable,
      '504': PDF_ERROR_RESPONSES.renderTimeout,
    },
  };
}

function notFoundResponse(route: QueryRoute): Record<string, ZodOpenApiResponseObject> {
  if (route.errors.includes('videoNotAvailable')) return { '404': ERROR_RESPONSES.videoNotAvailable };
  if (route.errors.includes('documentUnavailable')) return { '404': ERROR_RESPONSES.documentUnavailable };
  if (route.errors.includes('notFound')) return { '404': ERROR_RESPONSES.notFound };
  return {};
}

/** `{ data, meta }`; one named schema per representation where the shape of `data` depends on the query. */
function successBody(route: QueryRoute): z.ZodType {
  if (!route.representations) return z.object({ data: route.response, meta: metaWith(route.meta as z.ZodObject | undefined) });
  const shapes = Object.entries(route.representations).map(([representation, { response, meta: extra }]) =>
    z
      .object({ data: response, meta: metaWith(extra.extend({ representation: z.literal(representation) })) })
      .meta({ id: `${pascalCase(representation)}Page` }),
  );
  // anyOf, not oneOf: the pages exclude each other only through meta.representation, one level down, where
  // neither a discriminator (top-level properties only) nor a linter can see it; anyOf claims no more than
  // a validator can check, and a generated client gets the same union.
  return z.union(shapes).meta({ description: 'Told apart by meta.representation: each page fixes it to its own value.' });
}

function operationOf(route: QueryRoute): ZodOpenApiOperationObject {
  const grants = [
    route.scopes.length > 0 ? `Scope: ${route.scopes.join(', ')}.` : '',
    route.entitlements.length > 0 ? `Entitlement: ${route.entitlements.join(', ')}.` : '',
  ].filter(Boolean);
  const weighted = route.weighted ? { 'X-Quota-Units': quotaUnitsHeader.optional() } : {};
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: [route.description ?? '', ...grants].filter(Boolean).join('\n\n'),
    tags: [route.tag],
    requestParams: { path: route.params as z.ZodObject, query: route.query as z.ZodObject },
    responses: {
      '200': {
        description: 'OK.',
        headers: z.object(weighted),
        content: { 'application/json': { schema: successBody(route) } },
      },
      '304': { description: NOT_MODIFIED, headers: z.object(weighted) },
      ...notFoundResponse(route),
      '422': ERROR_RESPONSES.unprocessable,
    },
  };
}

const NOT_MODIFIED = 'Not modified: If-None-Match matched the current ETag. Empty body. Costs no quota; counts toward the rate limits.';

/** The headers of a keyed success (and of its 304): the request id, the access mode and the limits it was counted against. */
const keyedSuccessHeaders = (reads: boolean) => ({
  'X-Request-Id': requestIdHeader,
  ...(reads ? { ETag: etagHeader } : {}),
  'X-Access-Mode': accessModeHeader,
  'X-Sandbox': sandboxHeader,
  ...limitHeaders,
});

/**
 * Everything an operation behind the API key has in common, added to what it documents itself: the key,
 * the request id, signing and conditional-request headers, the refusals of authentication, access checks and
 * limits, the server errors, and the headers every answer that passed the key carries.
 */
function keyedOperation(operation: ZodOpenApiOperationObject, method: string, access: OperationAccess): ZodOpenApiOperationObject {
  const reads = method === 'get';
  const { requestParams = {} } = operation;
  const ownHeaders = requestParams.header instanceof z.ZodObject ? requestParams.header.shape : {};
  const responses = { ...operation.responses };
  // A read behind X-Consistent-After: the store may be unreachable as well as behind.
  if (responses['503'] === projectionBehindResponse) responses['503'] = readUnavailableResponse;
  const standard = withResponses(
    {
      ...operation,
      security: [{ apiKey: [] }],
      requestParams: {
        ...requestParams,
        header: z.object({
          'X-Request-Id': requestIdParameter,
          ...(reads ? { 'If-None-Match': ifNoneMatchParameter } : {}),
          ...ownHeaders,
          ...signingParameters,
        }),
      },
      responses,
    },
    {
      ...protocolRefusalResponses,
      ...(reads ? { '304': { description: NOT_MODIFIED } } : {}),
      '400': ERROR_RESPONSES.badRequest,
      '401': ERROR_RESPONSES.unauthenticated,
      '403': forbiddenResponse(access),
      '429': tooManyRequests,
      '500': internalErrorResponse,
      '503': serviceUnavailableResponse,
    },
  );
  return documentedOperation(
    withResponseHeaders(standard, (status) => (/^(2|304)/.test(status) ? keyedSuccessHeaders(reads) : { 'X-Request-Id': requestIdHeader })),
  );
}

/**
 * An operation that needs no key (`security: []`), with the answers any request may get: the protocol
 * refusals, a bug, and an unreachable store for those that read one.
 */
function keylessOperation(operation: ZodOpenApiOperationObject, { readsStores }: { readsStores: boolean }): ZodOpenApiOperationObject {
  const standard = withResponses(
    { ...operation, security: [] },
    { ...protocolRefusalResponses, '500': internalErrorResponse, ...(readsStores ? { '503': serviceUnavailableResponse } : {}) },
  );
  return documentedOperation(withResponseHeaders(standard, () => ({ 'X-Request-Id': requestIdHeader })));
}

/** Path and query parameters documented as the values they are parsed into. */
function documentedOperation(operation: ZodOpenApiOperationObject): ZodOpenApiOperationObject {
  const { requestParams } = operation;
  if (!requestParams) return operation;
  const { path, query } = requestParams;
  return {
    ...operation,
    requestParams: {
      ...requestParams,
      ...(path ? { path: documentedParameters(path) } : {}),
      ...(query ? { query: documentedParameters(query) } : {}),
    },
  };
}

/** Every operation of `paths` made by `complete`. */
function completePaths(
  paths: ZodOpenApiPathsObject,
  complete: (operation: ZodOpenApiOperationObject, method: string) => ZodOpenApiOperationObject,
): ZodOpenApiPathsObject {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([method, operation]) => [
          method,
          HTTP_METHODS.has(method) ? complete(operation as ZodOpenApiOperationObject, method) : operation,
        ]),
      ),
    ]),
  );
}

const HTTP_METHODS: ReadonlySet<string> = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const DESCRIPTION = `Read API of the commercial property catalogue: projects with their developers, states, communities and sub-communities, and each project's related collections.

- Authentication: \`Authorization: Bearer <API key>\`; \`svc_live_\` keys are production, \`svc_test_\` keys sandbox. A key in the query string is refused (400 API_KEY_IN_QUERY) and never used. Only /health, /openapi.yaml, image addresses (/media/...) and signed document links (/documents/...) need no key.
- Success body \`{ data, meta }\` with \`meta.request_id\` and \`meta.generated_at\`; lists add \`meta.pagination\` = \`{ page, per_page, total, total_pages }\`. Error body \`{ error: { code, message, details }, meta }\`. Every response carries X-Request-Id.
- Pagination: \`page\` defaults to 1, \`per_page\` to 20 (maximum 100). \`per_page\` over 100, more than 100 \`ids\`, duplicate ids, an unknown parameter, a bad type or enum value answer 422 VALIDATION_FAILED naming each parameter in \`details.fields\`; nothing is silently ignored or clamped.
- Change feed sync: \`/projects/changes?cursor=start\`, then each page's \`meta.cursor\` sent back as \`cursor\`, reports every project change exactly once, in commit order, whatever the editors' clocks say (never missed, never repeated); such pages carry \`meta.cursor\` and \`meta.has_more\` instead of \`meta.pagination\`. \`updated_since\` compares wall-clock times and can miss an edit committed while its pages are read.
- \`{id-or-slug}\` accepts a numeric id or a slug (slugs always contain a letter).
- Not found: 404 NOT_FOUND, the same whether a record is missing, unpublished or outside the caller's access.
- Evaluation Mode: before commercial activation an account uses test keys only (a live key gets 403 EVALUATION_TEST_ONLY) and sees a frozen sample of 50 to 100 published projects, fixed when evaluation started, with the developers, states, communities and sub-communities they name; everything else is unavailable exactly as under a restriction. Media holds 400-pixel previews only and no master-plan document (image addresses are public, so the other widths and the original of a sample picture stay reachable by address); \`/video\` and \`/brochure\` answer 403 EVALUATION_PREVIEW_ONLY; a paused evaluation answers 403 EVALUATION_ACCESS_PAUSED (staff may pause it; the request past the safety threshold of requests per evaluation pauses it for good). Responses carry \`X-Access-Mode\` (evaluation or commercial) and \`X-Sandbox\` (true for test keys).
- Plan field access: a plan may expose only some of the detail-only project fields (overview, description, master_plan, property_no, license_no, project_types, video_description, map_embed_html, down_payment_percent, service_charges); the others are null in the single detail and in \`view=detail\` batches. Premium resources follow the plan's entitlements (403 ENTITLEMENT_REQUIRED), in single endpoints and the related-resource batch alike.
- Limits: each keyed request is checked once its cost is known, in the order burst, per minute (rolling), daily and monthly (calendar, Asia/Dhaka, UTC+6); 429 BURST_LIMIT_EXCEEDED, PER_MINUTE_LIMIT_EXCEEDED, DAILY_LIMIT_EXCEEDED or MONTHLY_LIMIT_EXCEEDED with Retry-After and \`success: false\` consumes nothing. Every such response carries RateLimit-Limit/Remaining and, where a cap applies, X-Quota-Daily-*/X-Quota-Monthly-* (a deployment run with RATE_LIMITS=off checks no limits and sends none of them). A weighted batch costs its X-Quota-Units; a 304 costs no quota but counts toward the rate limits; test keys have their own daily allowance and no monthly one. With overage (plan option), requests past the monthly allowance succeed with X-Quota-Overage and X-Quota-Overage-Price-Per-Request.
- Catalogue restriction: a restricted client sees only its assigned states; a state granted without communities includes all its communities, listed communities narrow it to them. Projects (by community), communities, sub-communities and states outside are 404, left out of lists (and their totals), of \`/projects/changes\`, related projects and batches (\`meta.omitted_project_ids\`). Developers are not restricted.
- Refusals of a key that verified (403, never reported as an invalid key), checked in this order: the key (API_KEY_REVOKED, API_KEY_INACTIVE, API_KEY_EXPIRED with \`details.expired_at\`, API_KEY_ROTATION_ENDED once a rotated key's overlap window is over), the client (CLIENT_SUSPENDED, CLIENT_INACTIVE), the plan (PLAN_INACTIVE), the subscription when one is recorded (SUBSCRIPTION_INACTIVE, SUBSCRIPTION_NOT_STARTED, SUBSCRIPTION_EXPIRED, TRIAL_ENDED, GRACE_PERIOD_ENDED, each with the instant or status in details), then the operation's scopes and entitlements.
- Domain, origin and IP controls (per client environment, after the refusals above), in this order: a test key sent to a live context (a request whose \`X-Client-Domain\` or \`Origin\` host is the client's live authorised domain, when that is not also its test domain) answers the one 401 UNAUTHENTICATED; a client address on the deny list 403 IP_DENIED, one missing from a non-empty allow list 403 IP_NOT_ALLOWED (\`details.ip\`; a deny entry wins over an allow entry; IPv4 and IPv6 CIDR). When a domain is configured, \`X-Client-Domain\` must be exactly that host (case and a trailing dot aside; a scheme, port, path or wildcard never matches) and is required of server-to-server requests (no \`Origin\`), else 403 DOMAIN_NOT_ALLOWED; a browser \`Origin\` whose host is not the domain (or \`null\`) gets 403 ORIGIN_MISMATCH. Details name the header and the value received, never the configured domain or lists. The client address is the connection's peer; \`X-Forwarded-For\` counts only when that peer is a proxy the operator trusts (its right-most untrusted entry), and an entry there that is needed but not an IP address answers 400 BAD_REQUEST.
- Request signing (enterprise clients that have it enabled; other clients' signing headers are ignored): send \`X-API-Timestamp\` (Unix seconds), \`X-API-Nonce\` (16 to 128 printable ASCII characters without spaces, single-use) and \`X-API-Signature: v1=<hex>\`, the HMAC-SHA256, keyed with the API key, of five lines joined by \`\\n\`: the timestamp and nonce as sent, the uppercase method, the request target exactly as sent (path and query, with /v1, no decoding or reordering) and the SHA-256 hex of the body as sent (of the empty string for a request without a body: GET, HEAD, and the bodiless /webhooks calls). The timestamp window is 300 seconds either side of the server time by default (the edge included; SIGNATURE_EXPIRED's \`details.window_seconds\` gives the one in force). Checked in this order, each failing with 401: all three headers present (SIGNATURE_REQUIRED), well formed (SIGNATURE_INVALID), timestamp within the window (SIGNATURE_EXPIRED), signature matching (SIGNATURE_INVALID), nonce not used by the client within twice the window (NONCE_REUSED). A request whose signature does not match does not use up its nonce. Signing is checked after the 403 refusals and the domain and IP controls above.
- Scopes and entitlements: a missing scope answers 403 INSUFFICIENT_SCOPE (\`details.missing_scopes\`), a missing plan entitlement 403 ENTITLEMENT_REQUIRED (\`details.missing_entitlements\`).
- Webhooks (\`/webhooks\`, scope webhooks:manage, entitlement webhooks): the only operations that write. A client manages its own webhooks (at most 20, deleted ones not counted); \`{id}\` is the public \`wh_...\` id, and another client's id is 404 NOT_FOUND. The signing secret appears only in the answers to create and rotate-secret. These calls are keyed, checked, signed (the body hashed as sent) and limited like every other; a write refused by a limit writes nothing.
- Conditional requests: every successful GET carries a strong ETag over its payload; If-None-Match (strong or weak validators, lists, \`*\`; weak comparison per RFC 9110) answers 304 with an empty body.
- Image addresses (\`/media/{media_id}/{key}{suffix}\`, and \`/media/c/{account_token}/...\` for accounts given a token) need no key and count toward no limit. The key is the picture's SHA-256, so an exact address never changes (\`Cache-Control: public, max-age=31536000, immutable\`); a replaced picture gets a new key, and its earlier addresses answer 307 to the current one with \`Cache-Control: public, max-age=300\`.
- Values: project \`nature\` is \`off_plan\` or \`ready\`. Image addresses are served by the service and never expire; document and video file links are signed (\`expires\`, \`signature\`) and public until they expire: an altered link (path, expiry, signature, parameters) answers 403 LINK_INVALID, a genuine one past its expiry 403 LINK_EXPIRED (ask the API again for a new link; a link cannot be extended), and a file that cannot be located 404 DOCUMENT_UNAVAILABLE (VIDEO_NOT_AVAILABLE for a video).
- Read your own writes: every keyed GET takes \`X-Consistent-After: <position>\`, the X-Log-Position (\`meta.position\`) an admin write answered (a log position: decimal digits). The answer then waits until every read model has applied the log up to it, at most CONSISTENCY_WAIT_MS (2 s by default), so it shows that write; past that 503 PROJECTION_BEHIND with Retry-After, nothing read and no quota spent. A malformed position, or one past the end of the log, is 422 VALIDATION_FAILED naming \`header.X-Consistent-After\`.
- Server and protocol answers, on any operation: 500 INTERNAL_ERROR (a bug, logged with the request id), 503 SERVICE_UNAVAILABLE with Retry-After when a store the request needs does not answer; and, before a request reaches an operation, 400 BAD_REQUEST (malformed), 408 REQUEST_TIMEOUT, 417 EXPECTATION_FAILED or 431 HEADERS_TOO_LARGE, after which the connection is closed. A method a path does not serve answers 405 METHOD_NOT_ALLOWED with Allow.
- Within v1 fields and endpoints may be added; clients must ignore unknown JSON fields (no response schema here forbids them). Requests are strict: an unknown body field or query parameter is refused with 422 VALIDATION_FAILED.`;

const TAG_DESCRIPTIONS: Record<string, string> = {
  Service: 'The health check and this document; neither needs a key.',
  Projects: 'Published projects: the list (filters, `ids` batches in the summary or the detail view), the change feed and single projects.',
  'Project resources':
    "A project's related collections (floor plans, payment plans, media, video, amenities, nearby places, payment methods, FAQs, virtual tours, " +
    'floor plates, brochure, related projects), and the related-resource batch of up to 25 projects.',
  Developers: 'Developers of the catalogue; not narrowed by a catalogue restriction.',
  Communities: 'Communities, each in a state.',
  States: "States, the top level of the catalogue's geography.",
  'Sub-communities': 'Sub-communities, each in a community.',
  Catalog: 'Catalogue metadata: the unit types a project lists under `bedrooms` and other reference values.',
  'Project PDF generation':
    "A project's brochure as a PDF: the designs and approved agent profiles a client may use, and the generation itself.",
  Webhooks:
    "A client's own webhooks: subscriptions to catalogue events, their signing secrets, recent deliveries and test events. What is sent to a webhook is described under `webhooks`.",
  Images: 'Image addresses: public, unmetered, and immutable at each exact address.',
  Documents: 'Signed document links: public until they expire.',
};

/** The configuration the document depends on. */
export interface ApiOpenApiOptions {
  /** PUBLIC_BASE_URL: the `{base_url}` links are built on; unset, the document names the relative /v1. */
  publicBaseUrl?: string | undefined;
  /** The examples to attach: the recorded ones (queries/openApiExamples.json) unless given; null for none. */
  examples?: OpenApiExamples | null;
}

/** Recorded by `npm run openapi:examples` (src/cli/openApiExamples.ts) from the demo catalogue. */
const RECORDED_EXAMPLES = new URL('./openApiExamples.json', import.meta.url);

/** The OpenAPI 3.1 document of /v1, generated from the same route table and zod schemas the router uses. */
export function createApiOpenApiDocument(routes: readonly QueryRoute[], options: ApiOpenApiOptions = {}) {
  const keyed: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    (keyed[toOpenApiPath(route.path)] ??= {}).get = keyedOperation(
      acceptingConsistentAfter(operationOf(route)),
      'get',
      accessOfRoute(route),
    );
  }
  for (const route of webhookRoutes) {
    const operation = webhookOperationOf(route);
    (keyed[toOpenApiPath(route.path)] ??= {})[route.method] = keyedOperation(
      route.method === 'get' ? acceptingConsistentAfter(operation) : operation,
      route.method,
      WEBHOOK_ACCESS,
    );
  }
  (keyed[toOpenApiPath(PROJECT_PDF_PATH)] ??= {}).post = keyedOperation(projectPdfOperation(), 'post', PDF_ACCESS);
  Object.assign(
    keyed,
    completePaths(getsAcceptingConsistentAfter(webhookDeliveryPaths), (operation, method) =>
      keyedOperation(operation, method, WEBHOOK_ACCESS),
    ),
  );
  const service: ZodOpenApiPathsObject = {
    '/health': {
      get: {
        operationId: 'getHealth',
        summary: 'Health check (no key, no quota)',
        tags: ['Service'],
        responses: {
          '200': { description: 'Every check passed.', content: { 'application/json': { schema: healthResponseSchema } } },
          '503': {
            description: 'A check failed: status degraded, failing checks false.',
            content: { 'application/json': { schema: healthResponseSchema } },
          },
        },
      },
    },
  };
  const document: ZodOpenApiPathsObject = {
    '/openapi.yaml': {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This document (no key)',
        tags: ['Service'],
        requestParams: { header: z.object({ 'X-Request-Id': requestIdParameter, 'If-None-Match': ifNoneMatchParameter }) },
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document.',
            headers: z.object({ ETag: etagHeader }),
            content: { 'application/yaml': { schema: z.string() } },
          },
          '304': {
            description: 'Not modified: If-None-Match matched the current ETag. Empty body.',
            headers: z.object({ ETag: etagHeader }),
          },
        },
      },
    },
  };
  const paths: ZodOpenApiPathsObject = {
    ...completePaths(service, (operation) => keylessOperation(operation, { readsStores: true })),
    ...completePaths(document, (operation) => keylessOperation(operation, { readsStores: false })),
    ...keyed,
    // Image addresses and document links are answered before authentication, where X-Consistent-After is not read.
    ...completePaths({ ...mediaFilesPaths, ...documentFilesPaths }, (operation) => keylessOperation(operation, { readsStores: true })),
  };
  const tags = [...new Set(['Service', ...routes.map((route) => route.tag), 'Webhooks', 'Images', 'Documents'])];
  const examples = options.examples === undefined ? recordedExamplesIn(RECORDED_EXAMPLES) : options.examples;
  const finished = finishDocument(
    createDocument(
      {
        openapi: '3.1.0',
        info: {
          title: 'Commercial Property Catalogue API',
          version: '1.0.0',
          description: DESCRIPTION,
          license: { name: 'Proprietary: use is governed by the API agreement', identifier: 'LicenseRef-Proprietary' },
        },
        servers: serversFor(options.publicBaseUrl, '/v1', '{base_url}: the API, version 1.'),
        security: [{ apiKey: [] }],
        tags: tags.map((name) => (TAG_DESCRIPTIONS[name] === undefined ? { name } : { name, description: TAG_DESCRIPTIONS[name] })),
        components: {
          securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: svc_live_... or svc_test_...' } },
        },
        paths,
        // What the service sends to a webhook's url (OpenAPI 3.1): each event type's body, its headers and signature.
        webhooks: webhookEvents,
      },
      OPENAPI_OPTIONS,
    ),
  );
  return examples === null ? finished : attachExamples(finished, examples);
}

export function apiOpenApiYaml(routes: readonly QueryRoute[], options: ApiOpenApiOptions = {}): string {
  return stringify(createApiOpenApiDocument(routes, options), { aliasDuplicateObjects: false });
}
