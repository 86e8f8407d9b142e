import type { NextFunction, Request, Response, Router } from 'express';
import { MethodNotAllowed } from './httpErrors.js';

/**
 * Registered after a router's routes: a known path asked with a method it does not serve gets 405 with
 * `Allow` (and OPTIONS gets 204 with `Allow`) instead of falling through to 404.
 */
export function rejectOtherMethods(router: Router, routes: ReadonlyArray<{ method: string; path: string }>): void {
  const methodsByPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const methods = methodsByPath.get(route.path) ?? new Set<string>();
    methods.add(route.method.toUpperCase());
    if (route.method.toUpperCase() === 'GET') methods.add('HEAD');
    methodsByPath.set(route.path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    const allowed = [...methods, 'OPTIONS'].sort();
    router.all(path, (req: Request, res: Response, next: NextFunction) => {
      if (req.method === 'OPTIONS') {
        res.setHeader('Allow', allowed.join(', '));
        res.status(204).end();
        return;
      }
      next(new MethodNotAllowed(allowed));
    });
  }
}
