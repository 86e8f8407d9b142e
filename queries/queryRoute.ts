import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { z } from 'zod';
import type { AccessContext, Entitlement, Scope } from '../src/access/accessContext.js';
import { ValidationFailed } from '../src/domain/errors.js';
import { accessOf, requireGrants } from '../src/http/apiAuth.js';
import { createHostGuard, type HostGuard } from '../src/http/hostGuard.js';
import { rejectOtherMethods } from '../src/http/methodNotAllowed.js';
import { consumeRequestLimits } from '../src/http/limitResponses.js';
import { ifNoneMatchMatches, responseMeta } from '../src/http/responses.js';
import type { Limits } from '../src/limits/limits.js';
import type { LinkSigner } from '../src/http/signedLinks.js';
import { issuesToFields } from '../src/http/validation.js';
import type { ReadStore } from '../src/readStore/readStore.js';
import { yieldAfterSlice } from './slicedMap.js';

/** What a /v1 query handler may use. */
export interface QueryDeps {
  readStore: ReadStore;
  linkSigner: LinkSigner;
  clock: () => Date;
  /** Configured `{base_url}`; unset = built on each request's Host, which must name this machine (src/http/hostGuard.ts). */
  publicBaseUrl?: string;
  /**
   * Rate limits and quotas, checked once the outcome (and so whether it is a 304) is known; null with
   * RATE_LIMITS=off: nothing is consumed and no limit headers are sent.
   */
  limits: Limits | null;
}

export interface QueryInput<Params, Query> {
  params: Params;
  query: Query;
  access: AccessContext;
  /** `{base_url}` for absolute image addresses and links, ending in /v1. */
  baseUrl: string;
}

/**
 * A `data` payload already serialised, as UTF-8 bytes (representations.ts keeps serialised representations
 * as bytes, so that a response costs no encoding of them). `digest`, when given, changes whenever the bytes
 * do (the digests of the parts they were joined from) and stands for them in the ETag, which then costs no
 * hashing of the whole body.
 */
export class SerializedJson {
  constructor(
    readonly bytes: Buffer,
    readonly digest?: string,
  ) {}
}

/**
 * A `data` payload that is a JSON array, given as its elements already serialised (UTF-8 bytes, or an
 * element's bytes in parts), and a digest that changes whenever one of them does. The response joins the
 * elements' bytes: joined as one string, a page of 100 projects cost about a millisecond of the event loop
 * more than the bytes, and as long again to measure; encoded on each response, a page of 100 summaries cost
 * 0.8 ms more (issue 19).
 */
export class SerializedJsonArray {
  constructor(
    readonly elements: ReadonlyArray<Buffer | readonly Buffer[]>,
    readonly digest: string,
  ) {}
}

const ARRAY_OPENING = Buffer.from('[');
const ARRAY_COMMA = Buffer.from(',');
const ARRAY_CLOSING = Buffer.from(']');
const BODY_OPENING = Buffer.from('{"data":');
const ETAG_JSON_PREFIX = Buffer.from('json:');

/** The UTF-8 bytes of `data` in parts, and the digest standing for them in the ETag (undefined: the bytes themselves). */
function serializedData(data: unknown): { parts: Buffer[]; digest: string | undefined } {
  if (data instanceof SerializedJsonArray) {
    const parts: Buffer[] = [ARRAY_OPENING];
    for (const [index, element] of data.elements.entries()) {
      if (index > 0) parts.push(ARRAY_COMMA);
      if (Buffer.isBuffer(element)) parts.push(element);
      else parts.push(...element);
    }
    parts.push(ARRAY_CLOSING);
    return { parts, digest: data.digest };
  }
  const serialized = data instanceof SerializedJson ? data : new SerializedJson(Buffer.from(JSON.stringify(data)));
  return { parts: [serialized.bytes], digest: serialized.digest };
}

export interface QueryResult {
  data: unknown;
  /** Added to `meta` (pagination, quota_units, ...); part of the ETag, unlike request_id and generated_at. */
  meta?: Record<string, unknown>;
  /** Weighted batch cost, also sent as X-Quota-Units. */
  quotaUnits?: number;
}

/**
 * Error responses an operation documents beyond the ones every /v1 operation has; `evaluationPreviewOnly`: its
 * handler refuses Evaluation Mode with 403 EVALUATION_PREVIEW_ONLY.
 */
export type QueryErrorKind = 'notFound' | 'videoNotAvailable' | 'documentUnavailable' | 'evaluationPreviewOnly';

export interface Grants {
  scopes: Scope[];
  entitlements: Entitlement[];
}

/**
 * One /v1 read operation. The router parses params and query with these strict zod schemas, checks the
 * grants, and sends `{ data, meta }` with an ETag; the OpenAPI document is generated from the same table.
 */
export interface QueryRoute<Params extends z.ZodType = z.ZodType, Query extends z.ZodType = z.ZodType> {
  /** Express-style path below /v1. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Checked before the input is parsed. */
  scopes: Scope[];
  entitlements: Entitlement[];
  /**
   * Grants that depend on the parsed query (the related-resource batch), checked after parsing: those `of` a
   * query, and every one `of` may ask for (`possible`: what the operation's 403 may name).
   */
  queryGrants?: { of(query: z.infer<Query>): Grants; possible: Grants };
  params: Params;
  query: Query;
  /** Schema of `data` (documentation and response tests). */
  response: z.ZodType;
  /** Schema of the extra `meta` fields, when the operation adds any. */
  meta?: z.ZodType;
  /**
   * When the shape of `data` depends on the query (a list's `view`): each shape, with the `meta` fields it
   * adds, keyed by the `meta.representation` its answers carry. The OpenAPI document then offers one
   * schema per representation (an anyOf told apart by meta.representation) instead of `response` and `meta`.
   */
  representations?: Record<string, { response: z.ZodType; meta: z.ZodObject }>;
  errors: QueryErrorKind[];
  /** The response carries X-Quota-Units. */
  weighted?: boolean;
  handle(input: QueryInput<z.infer<Params>, z.infer<Query>>, deps: QueryDeps): Promise<QueryResult>;
}

function parseInput(route: QueryRoute, req: Request) {
  const params = route.params.safeParse({ ...req.params });
  const query = route.query.safeParse({ ...req.query });
  const fields: Record<string, string> = {};
  if (!params.success) issuesToFields('params', params.error.issues, fields);
  if (!query.success) issuesToFields('query', query.error.issues, fields);
  if (!params.success || !query.success) throw new ValidationFailed(fields);
  return { params: params.data, query: query.data };
}

/**
 * The body is serialised once, into UTF-8 bytes: its `data` (or the digest standing for it) and stable `meta` make the ETag
 * (a strong validator of the payload at this URL), while request_id and generated_at stay outside it. The body is written without
 * express's res.send, which would look at the validators a second time; it is encoded before it is measured, as
 * Buffer.byteLength of a long string with a non-Latin-1 character (an en dash) costs more than encoding it.
 */
async function send(req: Request, res: Response, result: QueryResult, access: AccessContext, limits: Limits | null): Promise<void> {
  const { parts, digest } = serializedData(result.data);
  const stableMeta = result.meta ?? {};
  const validator = createHash('sha1');
  if (digest === undefined) for (const part of [ETAG_JSON_PREFIX, ...parts]) validator.update(part);
  else validator.update(`digest:${digest}`);
  const etag = `"${validator.update(JSON.stringify(stableMeta)).digest('base64url')}"`;
  if (result.quotaUnits !== undefined) res.setHeader('X-Quota-Units', String(result.quotaUnits));
  const notModified = ifNoneMatchMatches(req.get('if-none-match'), etag);
  // One check per request, once its cost and outcome are known: a 304 counts toward the rate limits but
  // costs no quota, and a refused request costs nothing.
  await consumeRequestLimits(res, access, limits, { units: result.quotaUnits ?? 1, chargesQuota: !notModified });
  res.setHeader('ETag', etag);
  if (notModified) {
    res.status(304).end();
    return;
  }
  const body = Buffer.concat([BODY_OPENING, ...parts, Buffer.from(`,"meta":${JSON.stringify(responseMeta(res, stableMeta))}}`)]);
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  res.end(body);
}

/** The /v1 routes of `routes`; authentication is mounted in front of it (src/http/app.ts). */
export function createQueryRouter(routes: readonly QueryRoute[], deps: QueryDeps): Router {
  const router = Router();
  const { publicBaseUrl } = deps;
  const baseUrlOf: HostGuard['baseUrlOf'] = publicBaseUrl === undefined ? createHostGuard().baseUrlOf : () => publicBaseUrl;
  for (const route of routes) {
    router.get(route.path, async (req, res) => {
      // First, so that a forged Host gets the same refusal whatever else is wrong with the query. A
      // known Host is answered without waiting, so the usual request costs no extra turn of the event loop.
      const found = baseUrlOf(req);
      const baseUrl = typeof found === 'string' ? found : await found;
      const access = accessOf(res);
      requireGrants(access, route.scopes, route.entitlements);
      const { params, query } = parseInput(route, req);
      if (route.queryGrants) {
        const grants = route.queryGrants.of(query);
        requireGrants(access, grants.scopes, grants.entitlements);
      }
      const handled = performance.now();
      const result = await route.handle({ params, query, access, baseUrl }, deps);
      await yieldAfterSlice(handled);
      await send(req, res, result, access, deps.limits);
    });
  }
  rejectOtherMethods(
    router,
    routes.map((route) => ({ method: 'get', path: route.path })),
  );
  return router;
}
