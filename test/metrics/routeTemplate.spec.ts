import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { recordRouteTemplates, routeTemplateOf } from '../../src/http/routeTemplate.js';

let server: Server | undefined;
afterEach(async () => {
  server?.close();
  server = undefined;
});

/**
 * An app of nested routers whose every response says which template served it, read when the response
 * ends (as the request log and the metrics do): after an error has left the routers, too.
 */
async function appAnsweringTemplates(install: boolean): Promise<string> {
  const app = express();
  if (install) recordRouteTemplates(app);
  const templates = new Map<string, string>();
  app.use((req, res, next) => {
    res.on('finish', () => templates.set(String(req.get('x-probe')), routeTemplateOf(req)));
    next();
  });
  const inner = Router();
  inner.get('/projects/:projectId', (req) => {
    if (req.params.projectId === 'broken') throw new Error('thrown by the route');
    throw Object.assign(new Error('missing'), { status: 404 });
  });
  inner.get('/', (_req, res) => void res.send('index'));
  const outer = Router();
  outer.use('/v1', inner);
  app.use('/admin', outer);
  app.get('/templates/:probe', (req, res) => void res.json({ template: templates.get(req.params.probe) ?? null }));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => void res.status(500).send(String(error)));
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function templateOf(base: string, path: string, probe: string): Promise<string | null> {
  await fetch(`${base}${path}`, { headers: { 'x-probe': probe } }).then((answer) => answer.text());
  const answer = await fetch(`${base}/templates/${probe}`);
  return ((await answer.json()) as { template: string | null }).template;
}

describe('route templates', () => {
  it('when a route of a nested router answers or throws, then its template carries every mount path and no parameter value', async () => {
    const base = await appAnsweringTemplates(true);
    expect(await templateOf(base, '/admin/v1/projects/42', 'a')).toBe('/admin/v1/projects/:projectId');
    expect(await templateOf(base, '/admin/v1/projects/broken', 'b')).toBe('/admin/v1/projects/:projectId');
    expect(await templateOf(base, '/admin/v1', 'c')).toBe('/admin/v1');
    expect(await templateOf(base, '/admin/v2/projects/42', 'd')).toBe('unmatched');
  });

  it('when the app did not install the recorder, then every request is unmatched (no template is made up)', async () => {
    const base = await appAnsweringTemplates(false);
    expect(await templateOf(base, '/admin/v1/projects/42', 'a')).toBe('unmatched');
  });
});
