import { once } from 'node:events';
import type { Server } from 'node:http';
import express from 'express';
import type { HttpServerOptions } from '../config.js';
import { NotFound } from '../domain/errors.js';
import type { Logger } from '../logger.js';
import { errorMiddleware } from './errorMiddleware.js';
import { createHttpServer } from './httpServer.js';
import { operationsRouter, type OperationsRoutesDeps } from './operationsRoutes.js';
import { requestContext } from './requestContext.js';
import { recordRouteTemplates } from './routeTemplate.js';

export interface OperationsServer {
  /** The port it listens on (the one asked for, or the one chosen for 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * METRICS_PORT: /metrics, /livez and /readyz without the admin token, for a scraper and probes on a private
 * network, in every role (a projector or worker process has no API port). Bound to HOST like the API, so keep
 * the port itself off public networks. The same server shell as the API (src/http/httpServer.ts): security
 * headers, request ids, the spec's error body, one log line per request.
 */
export async function startOperationsServer(
  options: { port: number; host: string; httpServer: HttpServerOptions; logger: Logger } & Omit<OperationsRoutesDeps, 'guardMetrics'>,
): Promise<OperationsServer> {
  const { logger } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  recordRouteTemplates(app);
  app.use(requestContext(logger));
  app.use(operationsRouter({ readiness: options.readiness, metrics: options.metrics }));
  app.use((_req, _res, next) => next(new NotFound()));
  app.use(errorMiddleware(logger));
  const server: Server = createHttpServer(app, options.httpServer, logger);
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  logger.info({ component: 'metrics', port }, `metrics, /livez and /readyz on port ${port} without the admin token`);
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Scrapers keep their connection open between scrapes; a stop does not wait for the next one.
        server.closeIdleConnections();
      }),
  };
}
