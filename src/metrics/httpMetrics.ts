import type { NextFunction, Request, Response } from 'express';
import { findRequestContext } from '../http/requestContext.js';
import { routeTemplateOf } from '../http/routeTemplate.js';
import type { ServiceMetrics } from './serviceMetrics.js';

/** Methods named as they are; anything else Node's parser accepts (PROPFIND, ...) shares one label. */
const METHOD_LABELS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

/**
 * Requests in flight, and each answered request's duration (from its arrival, as the request context noted
 * it) by method, route template (src/http/routeTemplate.ts: never the path as sent, so no id or slug becomes
 * a label) and status class. One listener, shared by every request: `close` follows `finish` on an answered
 * request and also comes for one its client abandoned, which leaves the in-flight count but is not timed (it
 * has no status of its own). Mounted after requestContext.
 */
export function httpMetrics(metrics: ServiceMetrics) {
  const inFlight = metrics.httpInFlight;
  const duration = metrics.httpRequestDuration;
  function closed(this: Response): void {
    inFlight.count -= 1;
    const context = findRequestContext(this);
    if (!this.writableFinished || !context) return;
    const req = this.req;
    duration
      .series(
        METHOD_LABELS.has(req.method) ? req.method : 'OTHER',
        routeTemplateOf(req),
        STATUS_CLASSES[Math.floor(this.statusCode / 100) - 1] ?? 'other',
      )
      .observe((performance.now() - context.startedAt) / 1000);
  }
  return (_req: Request, res: Response, next: NextFunction): void => {
    inFlight.count += 1;
    res.on('close', closed);
    next();
  };
}
