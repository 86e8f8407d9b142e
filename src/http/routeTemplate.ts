import type { Express, Request } from 'express';

/** The label of a request no route served: refused before routing (401 without a key) or not found. */
export const UNMATCHED_ROUTE = 'unmatched';

const MATCHED_ROUTE = Symbol('matchedRoute');
const MATCHED_BASE_URL = Symbol('matchedBaseUrl');

interface RouteRecord {
  [MATCHED_ROUTE]?: { path: unknown };
  [MATCHED_BASE_URL]?: string;
}

/**
 * Keeps, with each request of `app`, the mount path its route was matched under. Express sets `req.route`
 * when a route matches, but restores `req.baseUrl` as a failed request leaves each router on its way to the
 * error middleware, so at the response's end `baseUrl + route.path` would lose the prefix of every error.
 * An accessor on the app's own request prototype notes `baseUrl` at the moment `req.route` is set, where it
 * is right: one property write per match, nothing per request otherwise, and no other app is affected.
 */
export function recordRouteTemplates(app: Express): void {
  Object.defineProperty(app.request, 'route', {
    configurable: true,
    get(this: Request & RouteRecord) {
      return this[MATCHED_ROUTE];
    },
    set(this: Request & RouteRecord, route: { path: unknown } | undefined) {
      this[MATCHED_ROUTE] = route;
      this[MATCHED_BASE_URL] = this.baseUrl;
    },
  });
}

/**
 * The template of the route that served the request, with its mount path (`/admin/v1/projects/:projectId`),
 * never the path as sent, so it carries no id or slug; UNMATCHED_ROUTE when no route served it.
 */
export function routeTemplateOf(req: Request): string {
  const record = req as Request & RouteRecord;
  const route = record[MATCHED_ROUTE];
  if (route === undefined) return UNMATCHED_ROUTE;
  const path = String(route.path);
  const base = record[MATCHED_BASE_URL] ?? '';
  return path === '/' && base !== '' ? base : base + path;
}
