import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Readiness } from '../metrics/readiness.js';
import type { ServiceMetrics } from '../metrics/serviceMetrics.js';
import { rejectOtherMethods } from './methodNotAllowed.js';
import { sendData, sendError } from './responses.js';
import { refuseQueryParameters } from './validation.js';

export interface OperationsRoutesDeps {
  readiness: Readiness;
  /** Null with METRICS=off: /metrics is then not served (404). */
  metrics: ServiceMetrics | null;
  /** Put in front of /metrics: the admin token on the API port, nothing on METRICS_PORT (a private network's scraper). */
  guardMetrics?: RequestHandler;
}

/**
 * The orchestrator's and the scraper's endpoints, outside /v1 (no API key, no quota) and answered with
 * `Cache-Control: no-store`:
 * - `GET /livez`: 200 whenever the process answers at all (its event loop turns); restart it when not.
 * - `GET /readyz`: 200 when the stores (and Redis where set) answer and the read models are within
 *   READY_MAX_LAG_EVENTS / READY_MAX_LAG_SECONDS of the log; else 503 NOT_READY naming the failed checks. Send
 *   traffic only while ready; not-ready is no reason to restart.
 * - `GET /metrics`: the Prometheus text format (prom-client).
 */
export function operationsRouter(deps: OperationsRoutesDeps): Router {
  const router = Router();
  const noStore = (res: Response) => res.setHeader('Cache-Control', 'no-store');

  router.get('/livez', (req, res) => {
    refuseQueryParameters(req);
    noStore(res);
    sendData(res, { status: 'alive' });
  });

  router.get('/readyz', async (req, res) => {
    refuseQueryParameters(req);
    const report = await deps.readiness.check();
    noStore(res);
    const body = { checks: report.checks, lagging: report.lagging, bounds: report.bounds };
    if (report.ready) {
      sendData(res, { status: 'ready', ...body });
      return;
    }
    // Answered here rather than thrown: a 5xx thrown is logged as a server error, and a probe every few
    // seconds would fill the log with one while the read models catch up.
    sendError(res, 503, {
      code: 'NOT_READY',
      message: `Not ready: ${report.failed.map((check) => FAILED_CHECK_MESSAGES[check]).join('; ')}.`,
      details: { failed_checks: report.failed, ...body },
    });
  });

  const routes = [
    { method: 'get', path: '/livez' },
    { method: 'get', path: '/readyz' },
  ];
  const metrics = deps.metrics;
  if (metrics) {
    const scrape: RequestHandler = async (req, res) => {
      refuseQueryParameters(req);
      const { contentType, body } = await metrics.scrape();
      noStore(res);
      res.type(contentType).send(body);
    };
    router.get('/metrics', ...(deps.guardMetrics ? [deps.guardMetrics, scrape] : [scrape]));
    routes.push({ method: 'get', path: '/metrics' });
  }
  rejectOtherMethods(router, routes);
  return router;
}

const FAILED_CHECK_MESSAGES = {
  event_store: 'the event store does not answer',
  read_store: 'the read store does not answer',
  redis: 'Redis does not answer',
  projections: 'read models are behind the event log by more than the bound (or their lag cannot be read)',
} as const;
