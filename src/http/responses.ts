import type { Request, Response } from 'express';
import { requestContextOf } from './requestContext.js';

export interface ResponseMeta {
  request_id: string;
  generated_at: string;
  [extra: string]: unknown;
}

export function responseMeta(res: Response, extra: Record<string, unknown> = {}): ResponseMeta {
  return { request_id: requestContextOf(res).requestId, generated_at: new Date().toISOString(), ...extra };
}

/** RFC 9110 weak comparison of an `If-None-Match` list (or `*`) with the current entity tag. */
export function ifNoneMatchMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const current = opaque(etag);
  return ifNoneMatch.split(',').some((candidate) => candidate.trim() === '*' || opaque(candidate) === current);
}

/** True (and the 304 already sent) when a GET/HEAD carries an `If-None-Match` that matches `etag`. */
export function answeredNotModified(req: Request, res: Response, etag: string): boolean {
  res.setHeader('ETag', etag);
  if ((req.method === 'GET' || req.method === 'HEAD') && ifNoneMatchMatches(req.get('if-none-match'), etag)) {
    res.status(304).end();
    return true;
  }
  return false;
}

/**
 * The success body `{ data, meta }`. With an `etag`, the header is set and a matching conditional GET is
 * answered 304 with no body.
 */
export function sendData(
  res: Response,
  data: unknown,
  options: { status?: number; etag?: string; meta?: Record<string, unknown> } = {},
): void {
  const status = options.status ?? 200;
  if (options.etag !== undefined) {
    if (status !== 200) res.setHeader('ETag', options.etag);
    else if (answeredNotModified(res.req, res, options.etag)) return;
  }
  res.status(status).json({ data, meta: responseMeta(res, options.meta) });
}

export interface ErrorDescription {
  code: string;
  message: string;
  details: Record<string, unknown>;
  envelope?: Record<string, unknown>;
}

/**
 * The spec's error body `{ error: { code, message, details }, meta }`; the one place it is shaped, for
 * express's responses and for the refusals written straight to a socket (src/http/httpServer.ts).
 */
export function errorBody(error: ErrorDescription, requestId: string) {
  return {
    ...error.envelope,
    error: { code: error.code, message: error.message, details: error.details },
    meta: { request_id: requestId, generated_at: new Date().toISOString() } satisfies ResponseMeta,
  };
}

export function sendError(res: Response, status: number, error: ErrorDescription): void {
  res.status(status).json(errorBody(error, requestContextOf(res).requestId));
}
