import { hash } from 'node:crypto';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { appendingAs } from '../access/editorActor.js';
import { ValidationFailed } from '../domain/errors.js';
import type { UploadStaging } from '../uploads/staging.js';
import type { UploadReceiver } from '../uploads/uploadReceiver.js';
import type { AdminDeps, AdminRoute, AdminRouteResult } from './adminRoute.js';
import { accessListRoutes } from './adminRoutes/accessListRoutes.js';
import { accessRoutes } from './adminRoutes/accessRoutes.js';
import { agentProfileRoutes } from './adminRoutes/agentProfileRoutes.js';
import { catalogueListRoutes } from './adminRoutes/catalogueListRoutes.js';
import { currencyRateRoutes } from './adminRoutes/currencyRateRoutes.js';
import { allowedRolesOf } from './adminRoutes/editorRoles.js';
import { editorRoutes } from './adminRoutes/editorRoutes.js';
import { historyRoutes, readableAsOf } from './adminRoutes/historyRoutes.js';
import { importRouter } from './adminRoutes/importRoutes.js';
import { planChangeRoutes } from './adminRoutes/planChangeRoutes.js';
import { projectRoutes } from './adminRoutes/projectRoutes.js';
import { referenceDataRoutes } from './adminRoutes/referenceDataRoutes.js';
import { usageRoutes } from './adminRoutes/usageRoutes.js';
import { adminWebhookRoutes } from './adminRoutes/webhookRoutes.js';
import { adminCallerOf, requireRole } from './adminAuth.js';
import { LOG_POSITION_HEADER, recordAppends } from './consistency.js';
import { hasBody, jsonBody } from './jsonBody.js';
import { rejectOtherMethods } from './methodNotAllowed.js';
import { requestContextOf } from './requestContext.js';
import { sendData } from './responses.js';
import { IF_MATCH_PROBLEM, issuesToFields, parseIfMatch } from './validation.js';

/** Every admin operation: the router serves exactly these and the admin OpenAPI document describes them. */
export const adminRoutes: readonly AdminRoute[] = [
  ...referenceDataRoutes,
  // A project is also read as it was at a time or log position.
  ...projectRoutes.map((route) => (route.operationId === 'getProject' ? readableAsOf(route) : route)),
  ...catalogueListRoutes,
  ...accessRoutes,
  ...accessListRoutes,
  ...planChangeRoutes,
  ...agentProfileRoutes,
  ...currencyRateRoutes,
  ...usageRoutes,
  ...adminWebhookRoutes,
  ...editorRoutes,
  ...historyRoutes,
];

/** Routes without a body schema accept no body, or an empty JSON object. */
const NO_BODY = z.object({}).strict().optional();
/** An admin operation takes only the query parameters it declares: one sent anyway is named, not silently ignored. */
const NO_QUERY = z.object({}).strict();
/** But one that takes files: the name of a file sent as the body. */
const UPLOAD_QUERY = z.object({ file_name: z.string().optional() }).strict();

function parseInput(route: AdminRoute, req: Request) {
  const params = route.params.safeParse({ ...req.params });
  const query = (route.uploads ? UPLOAD_QUERY : (route.query ?? NO_QUERY)).safeParse({ ...req.query });
  const body = (route.body ?? NO_BODY).safeParse(req.body);
  const ifMatch = parseIfMatch(req.get('if-match'));
  const fields: Record<string, string> = {};
  if (!params.success) issuesToFields('params', params.error.issues, fields);
  if (!query.success) issuesToFields('query', query.error.issues, fields);
  if (!body.success) issuesToFields('body', body.error.issues, fields);
  if (!ifMatch.ok) fields['header.if-match'] = IF_MATCH_PROBLEM;
  if (!params.success || !query.success || !body.success || !ifMatch.ok) throw new ValidationFailed(fields);
  return { params: params.data, body: body.data, query: query.data, expectedRevision: ifMatch.expectedRevision };
}

/**
 * A record answers its revision as ETag; a read without one (a list) the digest of its payload, which
 * request_id and generated_at stay outside of.
 */
function entityTag(route: AdminRoute, result: AdminRouteResult): string | undefined {
  if (result.revision !== undefined) return `"${result.revision}"`;
  if (route.method !== 'get') return undefined;
  return `"${hash('sha1', JSON.stringify([result.data, result.meta ?? {}]), 'base64url')}"`;
}

/**
 * Refuses a caller whose role may not run the operation (src/http/adminRoutes/editorRoles.ts), before its body
 * is read: a refused upload is not stored.
 */
function roleCheck(route: AdminRoute): RequestHandler {
  const allowed = allowedRolesOf(route.operationId);
  return (_req, res, next) => {
    requireRole(adminCallerOf(res), allowed);
    next();
  };
}

/** The event store a write appends through: each event records who asked (src/access/editorActor.ts). */
function appendingAsCaller(route: AdminRoute, deps: AdminDeps, res: Response): AdminDeps {
  if (route.method === 'get') return deps;
  const caller = adminCallerOf(res);
  const eventStore = appendingAs(deps.eventStore, {
    actor: caller.actor,
    editor_id: caller.editorId,
    token_id: caller.tokenId,
    request_id: requestContextOf(res).requestId,
    client_address: caller.clientAddress,
  });
  return { ...deps, eventStore };
}

/** What the admin router runs on: the routes' dependencies and the receiver of uploaded files. */
export interface AdminRouterDeps extends AdminDeps {
  uploads: UploadReceiver;
  /** Where `POST /imports` stages a catalogue file; absent = no import endpoint (src/http/adminRoutes/importRoutes.ts). */
  importStaging?: UploadStaging;
}

/**
 * A route's body: JSON; and for a route with upload fields also a file, as the body or in a multipart form,
 * which is stored and becomes its field's ref in the body the route's schema parses (src/uploads/).
 */
function requestBody(route: AdminRoute, uploads: UploadReceiver): RequestHandler {
  const json = jsonBody();
  const fields = route.uploads;
  if (!fields) return json;
  return (req, res, next) => {
    const fileName = typeof req.query.file_name === 'string' ? req.query.file_name : undefined;
    if (!hasBody(req) || req.is('application/json')) {
      if (fileName === undefined) json(req, res, next);
      else next(new ValidationFailed({ 'query.file_name': 'names a file sent as the body; send it with the file' }));
      return;
    }
    uploads
      .receive(req, res, fields, { ...(route.body ? { bodySchema: route.body } : {}), ...(fileName === undefined ? {} : { fileName }) })
      .then((body) => {
        req.body = body;
        next();
      }, next);
  };
}

/**
 * `/admin/v1`: every AdminRoute with its input parsed by the route's strict schemas (all problems reported
 * at once as 422 VALIDATION_FAILED), `If-Match` as the expected revision, and `{ data, meta }` with
 * `ETag: "<revision>"` out. Authentication is mounted in front of it (src/http/app.ts); each operation checks
 * the caller's role first.
 */
export function createAdminRouter(routes: readonly AdminRoute[], deps: AdminRouterDeps): Router {
  const router = Router();
  const { uploads, importStaging, ...routeDeps } = deps;
  if (importStaging) router.use(importRouter({ ...routeDeps, staging: importStaging }));
  for (const route of routes) {
    router[route.method](route.path, roleCheck(route), requestBody(route, uploads), async (req, res) => {
      const input = parseInput(route, req);
      const handlerDeps = appendingAsCaller(route, routeDeps, res);
      // A write answers the log position of its last event (src/http/consistency.ts).
      const appends = route.method === 'get' ? null : recordAppends(handlerDeps.eventStore);
      const result = await route.handle(
        { ...input, actor: adminCallerOf(res).actor },
        appends ? { ...handlerDeps, eventStore: appends.eventStore } : handlerDeps,
      );
      const position = appends ? await appends.position() : undefined;
      if (position !== undefined) res.setHeader(LOG_POSITION_HEADER, position);
      const etag = entityTag(route, result);
      sendData(res, result.data, {
        status: route.successStatus,
        ...(etag === undefined ? {} : { etag }),
        ...(result.meta || position !== undefined ? { meta: { ...result.meta, ...(position === undefined ? {} : { position }) } } : {}),
      });
    });
  }
  rejectOtherMethods(router, routes);
  return router;
}
