import { createHash } from 'node:crypto';
import express, { Router, type Express } from 'express';
import type { EditorRole } from '../access/editor.js';
import type { EvaluationUsage } from '../access/evaluationUsage.js';
import type { NonceStore } from '../access/nonceStore.js';
import { evaluationThreshold } from './evaluationThreshold.js';
import { NotFound } from '../domain/errors.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../logger.js';
import type { ReadStore } from '../readStore/readStore.js';
import type { StoredFiles } from '../catalogue/storedFiles.js';
import type { UploadStaging } from '../uploads/staging.js';
import type { UploadReceiver } from '../uploads/uploadReceiver.js';
import { adminAuth } from './adminAuth.js';
import { apiAuth, type RequestCheck } from './apiAuth.js';
import { adminOpenApiYaml } from './adminOpenApi.js';
import { adminRoutes, createAdminRouter } from './adminRouter.js';
import { consistentReads, type ConsistentReadsDeps } from './consistency.js';
import { docsRouter } from './docsPage.js';
import { errorMiddleware } from './errorMiddleware.js';
import { networkControls } from './networkControls.js';
import { rejectOtherMethods } from './methodNotAllowed.js';
import { requestContext } from './requestContext.js';
import { requestSigning } from './requestSigning.js';
import { noStore } from './securityHeaders.js';
import { answeredNotModified } from './responses.js';
import { createWebhookApiRouter, type WebhookApiDeps } from './webhookApi.js';
import { createWebhookDeliveryApiRouter, type WebhookDeliveryApiDeps } from './webhookDeliveryApi.js';
import { webhookDeliveryAdminRoutes } from './adminRoutes/webhookDeliveryRoutes.js';
import { statusAdminRoutes } from './adminRoutes/statusRoutes.js';
import { METRICS_ROLES } from './adminRoutes/editorRoles.js';
import { httpMetrics } from '../metrics/httpMetrics.js';
import type { Readiness } from '../metrics/readiness.js';
import type { ServiceMetrics } from '../metrics/serviceMetrics.js';
import type { StatusSource } from '../metrics/serviceStatus.js';
import { operationsRouter } from './operationsRoutes.js';
import { recordRouteTemplates } from './routeTemplate.js';

/**
 * The read side of `/v1`, built from queries/ by the composition root: queries/ uses this shell's helpers,
 * so the shell takes its routes rather than importing them.
 */
/** A router for the paths below `path` only, so that requests for other paths never pass through it. */
export interface MountedRouter {
  path: string;
  router: Router;
}

export interface PublicApi {
  /** Mounted before authentication: the health check. */
  health: Router;
  /** Mounted before authentication: the image addresses, public and not metered. */
  media: MountedRouter;
  /** Mounted before authentication: signed document links, whose signature is their whole authorization. */
  documents: MountedRouter;
  /** /v1/openapi.yaml, rendered on first request. */
  openApiYaml: () => string;
  /** Mounted behind authentication: every query route. */
  queries: Router;
}

export interface AppDeps {
  eventStore: EventStore;
  readStore: ReadStore;
  publicApi: PublicApi;
  adminToken: string;
  /** The time admin commands are stamped with. */
  clock: () => Date;
  /** What the blob store holds, for admin commands that name stored files. */
  storedFiles: StoredFiles;
  /** Stores files uploaded through the admin API (src/uploads/). */
  uploads: UploadReceiver;
  /** Where the admin API's `POST /imports` stages a catalogue file (src/http/adminRoutes/importRoutes.ts); absent = not served. */
  importStaging?: UploadStaging;
  logger: Logger;
  /** Request-signing nonces (Redis when REDIS_URL is set, so every replica sees every nonce). */
  nonceStore: NonceStore;
  /** SIGNATURE_WINDOW_SECONDS. */
  signatureWindowSeconds: number;
  /** CIDR blocks of the proxies whose X-Forwarded-For names the client address (TRUSTED_PROXIES). */
  trustedProxies?: readonly string[];
  /** Requests per evaluation (Redis when REDIS_URL is set) and the safety threshold (EVALUATION_REQUEST_LIMIT). */
  evaluationUsage: EvaluationUsage;
  evaluationRequestLimit: number;
  /** This process's usage not yet written (src/limits/usageLedger.ts); the usage report flushes it first. */
  pendingUsage?: { flush(): Promise<void> };
  /** What `/v1/webhooks` needs beyond the stores and the clock (src/http/webhookApi.ts). */
  webhooks: Omit<WebhookApiDeps, 'eventStore' | 'readStore' | 'clock'>;
  /** The webhook deliveries queue: test events (/v1) and manual retries (/admin/v1) go there. */
  webhookDeliveries: Pick<WebhookDeliveryApiDeps, 'queue'>;
  /** /livez, /readyz, /metrics (null with METRICS=off) and /admin/v1/status (src/metrics/operations.ts). */
  operations: { readiness: Readiness; metrics: ServiceMetrics | null; status: StatusSource };
  /** X-Consistent-After on GETs: how far the read models are, and how long a request may wait for them (src/http/consistency.ts). */
  consistency: Omit<ConsistentReadsDeps, 'eventStore'>;
}

/** A static document served with a strong ETag of its content, computed on first use. */
function staticDocument(type: string, render: () => string) {
  let rendered: { body: string; etag: string } | undefined;
  return (req: express.Request, res: express.Response) => {
    rendered ??= (() => {
      const body = render();
      return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    })();
    if (answeredNotModified(req, res, rendered.etag)) return;
    res.type(type).send(rendered.body);
  };
}

/** What a verified key's request must also satisfy, in this order (see apiAuth); network controls first, being the cheapest. */
function requestChecks(deps: AppDeps): RequestCheck[] {
  return [
    networkControls(deps.trustedProxies),
    requestSigning({ nonceStore: deps.nonceStore, windowSeconds: deps.signatureWindowSeconds, clock: deps.clock }),
    // Last: only a request that passed everything else counts toward the evaluation's threshold.
    evaluationThreshold({ usage: deps.evaluationUsage, limit: deps.evaluationRequestLimit, commands: deps }),
  ];
}

/**
 * `/v1`: the health check and the contract need no key; everything else passes one authentication step,
 * then the query routes.
 */
function apiRouter(deps: AppDeps): Router {
  const router = Router();
  router.use(deps.publicApi.health);
  router.use(deps.publicApi.media.path, deps.publicApi.media.router);
  router.use(deps.publicApi.documents.path, deps.publicApi.documents.router);
  router.get('/openapi.yaml', staticDocument('application/yaml', deps.publicApi.openApiYaml));
  rejectOtherMethods(router, [{ method: 'get', path: '/openapi.yaml' }]);
  router.use(apiAuth(deps.readStore, requestChecks(deps), deps.clock));
  router.use(consistentReads({ ...deps.consistency, eventStore: deps.eventStore }));
  router.use(createWebhookApiRouter({ ...deps.webhooks, eventStore: deps.eventStore, readStore: deps.readStore, clock: deps.clock }));
  router.use(
    createWebhookDeliveryApiRouter({
      queue: deps.webhookDeliveries.queue,
      readStore: deps.readStore,
      clock: deps.clock,
      limits: deps.webhooks.limits,
    }),
  );
  router.use(deps.publicApi.queries);
  return router;
}

/**
 * The admin token or an editor account's token (src/http/adminAuth.ts); `allowedRoles` for a mount whose
 * every request needs one of them (each /admin/v1 operation checks its own).
 */
function adminAuthOf(deps: AppDeps, allowedRoles?: readonly EditorRole[]) {
  return adminAuth({
    adminToken: deps.adminToken,
    readStore: deps.readStore,
    clock: deps.clock,
    ...(deps.trustedProxies ? { trustedProxies: deps.trustedProxies } : {}),
    ...(allowedRoles ? { allowedRoles } : {}),
  });
}

/** `/admin`: one authentication pass, then the admin OpenAPI document and the `/admin/v1` commands. */
function adminRouter(deps: AppDeps): Router {
  const router = Router();
  // The manual retry of webhook deliveries needs this process's queue, so its route is made here.
  const routes = [
    ...adminRoutes,
    ...webhookDeliveryAdminRoutes(deps.webhookDeliveries.queue),
    ...statusAdminRoutes(deps.operations.status),
  ];
  router.use(noStore);
  router.use(adminAuthOf(deps));
  router.get(
    '/openapi.yaml',
    staticDocument('application/yaml', () => adminOpenApiYaml(routes)),
  );
  rejectOtherMethods(router, [{ method: 'get', path: '/openapi.yaml' }]);
  router.use(
    '/v1',
    consistentReads({ ...deps.consistency, eventStore: deps.eventStore }),
    createAdminRouter(routes, {
      eventStore: deps.eventStore,
      readStore: deps.readStore,
      clock: deps.clock,
      storedFiles: deps.storedFiles,
      uploads: deps.uploads,
      ...(deps.importStaging ? { importStaging: deps.importStaging } : {}),
      ...(deps.pendingUsage ? { pendingUsage: deps.pendingUsage } : {}),
    }),
  );
  return router;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Our handlers set ETags from what identifies a payload; express's body hash would also cover meta.
  app.set('etag', false);
  // Request logs and metrics name the route template that served a request, never its path as sent.
  recordRouteTemplates(app);
  app.use(requestContext(deps.logger));
  const { metrics, readiness } = deps.operations;
  if (metrics) app.use(httpMetrics(metrics));
  app.use('/v1', apiRouter(deps));
  app.use('/admin', adminRouter(deps));
  // The API reference page and its script: no key, like the document it shows.
  app.use('/docs', docsRouter());
  // After the API: its requests never pass through these few routes. /metrics takes the admin token here.
  app.use(operationsRouter({ readiness, metrics, guardMetrics: adminAuthOf(deps, METRICS_ROLES) }));
  app.use((_req, _res, next) => next(new NotFound()));
  app.use(errorMiddleware(deps.logger));
  return app;
}
