import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { looksLikeSecret, scrubSecrets, type Logger } from '../logger.js';
import { routeTemplateOf } from './routeTemplate.js';

/** Per-request state every handler and the error middleware rely on (kept in `res.locals`). */
export interface RequestContext {
  requestId: string;
  method: string;
  /**
   * The full path as received, without the query string (query strings can carry signed-link signatures).
   * Pasted keys can be in it: log it through scrubSecrets.
   */
  path: string;
  /** `performance.now()` when the request arrived. */
  startedAt: number;
  /** Child logger bound to the request id. */
  logger: Logger;
  /** The client whose API key was verified (src/http/apiAuth.ts), for the request's log line; never the key. */
  clientId: number | undefined;
}

/**
 * An incoming id is kept when it is short, made of characters that are safe in logs and headers, and not
 * shaped like a key or token: it is echoed and logged as it is.
 */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const acceptableRequestId = (incoming: string | undefined): incoming is string =>
  incoming !== undefined && ACCEPTABLE_REQUEST_ID.test(incoming) && !looksLikeSecret(incoming);

const CONTEXT_KEY = 'requestContext';

/** Undefined only for a failure before the request context middleware ran. */
export function findRequestContext(res: Response): RequestContext | undefined {
  return res.locals[CONTEXT_KEY] as RequestContext | undefined;
}

export function requestContextOf(res: Response): RequestContext {
  const context = findRequestContext(res);
  if (!context) throw new Error('The request context middleware is not mounted.');
  return context;
}

/**
 * Gives every request an id (the caller's `X-Request-Id` when acceptable, otherwise a new uuid), echoes it
 * on every response, and logs each completed request: one line with the route template that served it
 * (src/http/routeTemplate.ts), the path (scrubbed), status, duration and, once a key was verified, the client.
 */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.get('x-request-id');
    const requestId = acceptableRequestId(incoming) ? incoming : randomUUID();
    let requestLogger: Logger | undefined;
    const context: RequestContext = {
      requestId,
      method: req.method,
      path: req.path,
      startedAt: performance.now(),
      // Made on first use: a pino child per request was a measurable share of a cached request's cost.
      get logger() {
        return (requestLogger ??= logger.child({ requestId }));
      },
      clientId: undefined,
    };
    res.locals[CONTEXT_KEY] = context;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      if (!logger.isLevelEnabled('info')) return;
      context.logger.info(
        {
          method: context.method,
          route: routeTemplateOf(req),
          path: scrubSecrets(context.path),
          ...(context.clientId === undefined ? {} : { clientId: context.clientId }),
          status: res.statusCode,
          durationMs: Math.round((performance.now() - context.startedAt) * 10) / 10,
        },
        'request completed',
      );
    });
    next();
  };
}
