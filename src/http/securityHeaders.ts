import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

/**
 * Headers every response carries. src/http/httpServer.ts sets them on each request before the app sees it
 * (so error bodies carry them too; no express layer of their own, which every request would pass through)
 * and writes them on the refusals Node's parser raises before any request exists.
 *
 * - `X-Content-Type-Options: nosniff`: a browser never guesses a type other than the one we send, so a JSON
 *   body holding editor-written text can never be run as a script or page.
 * - `Content-Security-Policy: default-src 'none'; frame-ancestors 'none'`: if a response is opened in a
 *   browser anyway, it loads nothing and cannot be framed. Nothing this API serves is a page; images are
 *   shown by `<img>` elsewhere, which a response's own policy does not govern.
 *
 * Not set: `Strict-Transport-Security` (the service speaks plain HTTP behind the TLS-terminating proxy,
 * which owns HSTS), and helmet's defaults for HTML applications (cross-origin isolation, referrer and
 * permission policies), which mean nothing for JSON read by servers and would only add bytes to every
 * response.
 */
export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
} as const;

export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', SECURITY_HEADERS['X-Content-Type-Options']);
  res.setHeader('Content-Security-Policy', SECURITY_HEADERS['Content-Security-Policy']);
}

/**
 * Admin responses describe clients, keys, usage and unpublished catalogue data: no cache, browser or shared,
 * may keep a copy.
 */
export function noStore(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  next();
}
