import type { Express } from 'express';

/** What express keeps of a mounted router or route (router 2.x): enough to list what it serves. */
interface Layer {
  rawPath?: unknown;
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function collect(stack: readonly Layer[], prefix: string, into: string[]): string[] {
  for (const layer of stack) {
    if (layer.route) {
      const path = `${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}');
      // `all` is the 405 answer to the methods a path does not serve (src/http/methodNotAllowed.ts).
      for (const method of Object.keys(layer.route.methods).filter((name) => HTTP_METHODS.includes(name))) {
        into.push(`${method.toUpperCase()} ${path}`);
      }
    } else if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      collect(layer.handle.stack, prefix + mount, into);
    }
  }
  return into;
}

/** Every `METHOD /path/{param}` the app's routers serve, read from express's own route table, mount paths included. */
export function servedOperations(app: Express): string[] {
  return collect((app.router as unknown as { stack: Layer[] }).stack, '', []);
}

/** Every `METHOD /path` of an OpenAPI document's paths, below `prefix` (its server's path). */
export function documentedOperations(document: { paths: Record<string, Record<string, unknown>> }, prefix: string): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${prefix}${path}`),
  );
}
