import type { Express, Request } from 'express';

/** The label of a request no route served: refused before routing (401 without a key) or not found. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Where the accessor keeps the route and its mount path: in the response's `locals`, which express makes for
 * every request as a dictionary. Not on the request itself: each property added to express's requests cost
 * more than the rest of this together (measured under load), and they already carry many.
 */
const MATCHED_ROUTE = 'matchedRoute';
const MATCHED_BASE_URL = 'matchedBaseUrl';

interface Matched {
  route: { path: unknown };
  baseUrl: string;
}

const localsOf = (req: Request) => req.res?.locals as Record<string, unknown> | undefined;

/**
 * Keeps, with each request of `app`, the mount path its route was matched under. Express sets `req.route`
 * when a route matches, but restores `req.baseUrl` as a failed request leaves each router on its way to the
 * error middleware, so at the response's end `baseUrl + route.path` would lose the prefix of every error.
 * An accessor on the app's own request prototype notes `baseUrl` at the moment `req.route` is set, where it
 * is right; no other app is affected.
 */
export function recordRouteTemplates(app: Express): void {
  Object.defineProperty(app.request, 'route', {
    configurable: true,
    get(this: Request) {
      return localsOf(this)?.[MATCHED_ROUTE];
    },
    set(this: Request, route: Matched['route'] | undefined) {
      const locals = localsOf(this);
      if (!locals) return;
      locals[MATCHED_ROUTE] = route;
      locals[MATCHED_BASE_URL] = this.baseUrl;
    },
  });
}

/**
 * The template of the route that served the request, with its mount path (`/admin/v1/projects/:projectId`),
 * never the path as sent, so it carries no id or slug; UNMATCHED_ROUTE when no route served it.
 */
export function routeTemplateOf(req: Request): string {
  const locals = localsOf(req);
  const route = locals?.[MATCHED_ROUTE] as Matched['route'] | undefined;
  if (route === undefined) return UNMATCHED_ROUTE;
  const path = String(route.path);
  const base = (locals?.[MATCHED_BASE_URL] as string | undefined) ?? '';
  return path === '/' && base !== '' ? base : base + path;
}
