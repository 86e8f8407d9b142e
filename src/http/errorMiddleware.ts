import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../domain/errors.js';
import { scrubSecrets, type Logger } from '../logger.js';
import { DependencyUnavailable, unreachableDependencyOf } from './dependencyFailures.js';
import { ApiErrorWithHeaders, BadRequest, PayloadTooLarge, UnsupportedMediaType } from './httpErrors.js';
import { findRequestContext } from './requestContext.js';
import { sendError } from './responses.js';

/**
 * Errors that express, its router (an undecodable path parameter) and body parsing raise for a bad
 * request carry a 4xx `status`; they are the client's fault, not ours.
 */
function clientErrorOf(error: unknown): ApiError | null {
  if (typeof error !== 'object' || error === null) return null;
  const { status } = error as { status?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  if (status === 413) return new PayloadTooLarge(Number((error as { limit?: unknown }).limit) || 0);
  if (status === 415) return new UnsupportedMediaType();
  return new BadRequest();
}

/**
 * The one error middleware: an ApiError becomes the spec's error body with its status; a driver's word that
 * its server is unreachable becomes 503 SERVICE_UNAVAILABLE with Retry-After; anything else is a bug,
 * answered 500 INTERNAL_ERROR without detail and logged (the logger scrubs credentials).
 */
export function errorMiddleware(logger: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    const context = findRequestContext(res);
    const log = (context?.logger ?? logger).child({ method: req.method, path: scrubSecrets(context?.path ?? req.path) });
    if (res.headersSent) {
      log.error({ err: error }, 'error after the response started; closing the connection');
      next(error);
      return;
    }
    const unreachable = error instanceof ApiError ? null : unreachableDependencyOf(error);
    if (unreachable !== null) {
      log.warn({ err: error, dependency: unreachable }, 'a dependency did not answer; answered 503');
      const answer = new DependencyUnavailable(unreachable);
      for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
      sendError(res, answer.status, answer);
      return;
    }
    const apiError = error instanceof ApiError ? error : clientErrorOf(error);
    if (!apiError) {
      log.error({ err: error }, 'unhandled error');
      sendError(res, 500, { code: 'INTERNAL_ERROR', message: 'An unexpected error occurred.', details: {} });
      return;
    }
    if (apiError.status >= 500) log.error({ err: apiError }, 'server error');
    if (apiError instanceof ApiErrorWithHeaders) {
      for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
    }
    sendError(res, apiError.status, apiError);
  };
}
