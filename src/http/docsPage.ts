import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Router, type Request } from 'express';
import { rejectOtherMethods } from './methodNotAllowed.js';
import { answeredNotModified } from './responses.js';
import { refuseQueryParameters } from './validation.js';

const require = createRequire(import.meta.url);

/** Redoc's self-contained browser bundle (React, the renderer, the search worker) in the installed package. */
const REDOC_BUNDLE_FILE = require.resolve('redoc/bundles/redoc.standalone.js');
const REDOC_VERSION = (require('redoc/package.json') as { version: string }).version;

/**
 * The bundle's address below /docs names Redoc's version, so that browsers may keep it for a year without
 * asking again: an upgrade changes the address, and the page, which browsers revalidate, names the new one.
 */
export const REDOC_BUNDLE_PATH = `/redoc-${REDOC_VERSION}.standalone.js`;

/**
 * What the page needs and nothing else: its one script, from this service; the OpenAPI document, fetched from
 * this service; the search index's web worker, which Redoc starts from a blob: URL; inline styles, because
 * Redoc's styled-components write <style> elements and React sets style attributes (a style runs no script);
 * the small SVG icons its style sheets carry as data: URIs. No form, no <base>, no framing.
 */
export const DOCS_PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  'worker-src blob:',
  "style-src 'unsafe-inline'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Every address in the page is relative to /docs, so it works on any host name and behind a proxy that
 * serves the API under a path prefix. Redoc starts itself on the <redoc> element once its bundle has run,
 * so the page has no script of its own (and its policy allows none inline).
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Property Catalogue API v1 reference</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<noscript>This reference is drawn with JavaScript. The document it shows is <a href="v1/openapi.yaml">v1/openapi.yaml</a>.</noscript>
<redoc spec-url="v1/openapi.yaml"></redoc>
<script src="docs${REDOC_BUNDLE_PATH}"></script>
</body>
</html>
`;

/**
 * Redoc's sidebar footer draws Redocly's logo from Redocly's CDN whatever the options (redoc 2.5.4): every
 * page view would call out, and the page's policy would refuse it as a violation. The bundle is served with
 * that one address replaced by a picture that does not decode, on which the footer drops the logo and keeps
 * its "API docs by Redocly" link. So the page asks nothing of anyone but this service.
 */
const REDOCLY_CDN_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
const UNDECODABLE_PICTURE = '"data:image/svg+xml,"';

/** A year: the bundle's address changes with its content (see REDOC_BUNDLE_PATH). */
const BUNDLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

function strongEtagOf(content: string | Buffer): string {
  return `"${createHash('sha256').update(content).digest('base64url').slice(0, 27)}"`;
}

const PAGE_ETAG = strongEtagOf(PAGE);

interface ServedBundle {
  body: Buffer;
  etag: string;
}

/** About 1 MB, read on first use and kept: the installed file does not change while the service runs. */
async function readRedocBundle(): Promise<ServedBundle> {
  const text = await readFile(REDOC_BUNDLE_FILE, 'utf8');
  const body = Buffer.from(text.replaceAll(REDOCLY_CDN_LOGO, UNDECODABLE_PICTURE));
  return { body, etag: strongEtagOf(body) };
}

/**
 * Mounted at /docs: `GET /docs`, the API reference (Redoc draws `/v1/openapi.yaml` in the browser), and
 * `GET /docs/redoc-{version}.standalone.js`, the Redoc bundle from node_modules, so the page works offline
 * and loads nothing from a CDN. No key, like the document it shows. The page replaces the API's
 * `default-src 'none'` policy with DOCS_PAGE_CONTENT_SECURITY_POLICY; every other answer keeps it.
 */
export function docsRouter(): Router {
  const router = Router();
  let bundle: Promise<ServedBundle> | undefined;

  router.get('/', (req, res) => {
    refuseQueryParameters(req);
    // The page's relative addresses resolve against /docs, not /docs/: send the browser there.
    if (req.originalUrl.endsWith('/')) {
      res.redirect(308, '../docs');
      return;
    }
    res.setHeader('Content-Security-Policy', DOCS_PAGE_CONTENT_SECURITY_POLICY);
    // Revalidated on every view (a 304 while unchanged), so a new Redoc version's address is picked up.
    res.setHeader('Cache-Control', 'no-cache');
    if (answeredNotModified(req, res, PAGE_ETAG)) return;
    res.type('html').send(PAGE);
  });

  router.get(REDOC_BUNDLE_PATH, async (req, res) => {
    refuseQueryParameters(req);
    bundle ??= readRedocBundle().catch((error: unknown) => {
      bundle = undefined;
      throw error;
    });
    const { body, etag } = await bundle;
    res.setHeader('Cache-Control', BUNDLE_CACHE_CONTROL);
    if (answeredNotModified(req, res, etag)) return;
    res.type('text/javascript; charset=utf-8').send(body);
  });

  rejectOtherMethods(router, [
    { method: 'get', path: '/' },
    { method: 'get', path: REDOC_BUNDLE_PATH },
  ]);
  return router;
}
