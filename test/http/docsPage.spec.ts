import { writeFile } from 'node:fs/promises';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DOCS_PAGE_CONTENT_SECURITY_POLICY, REDOC_BUNDLE_PATH } from '../../src/http/docsPage.js';
import { request } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { BROWSER_ARGS } from '../../workers/pdf/brochureRenderer.js';

/*
 * The API reference page over HTTP, then in the headless Chromium the PDF worker prints with
 * (workers/pdf/brochureRenderer.ts; CHROMIUM_PATH or the one @sparticuz/chromium unpacks). With
 * DOCS_SCREENSHOT=<file.png> the browser test also saves what the page shows there (docs/api-reference.png
 * in the README was made so).
 */

const BUNDLE_URL = `/docs${REDOC_BUNDLE_PATH}`;
const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

const HTTP_METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];

interface DocumentedOperation {
  operationId: string;
  summary: string;
}

type PathItems = Record<string, Record<string, { operationId?: string; summary?: string } | undefined>>;

/** Every operation of the document, the `webhooks` section's included (Redoc draws those too). */
function operationsOf(document: { paths?: PathItems; webhooks?: PathItems }): DocumentedOperation[] {
  const operations: DocumentedOperation[] = [];
  for (const section of [document.paths ?? {}, document.webhooks ?? {}]) {
    for (const [name, item] of Object.entries(section)) {
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (!operation) continue;
        expect(operation.operationId, `${method.toUpperCase()} ${name} has an operationId`).toEqual(expect.any(String));
        operations.push({ operationId: operation.operationId!, summary: operation.summary ?? '' });
      }
    }
  }
  return operations;
}

describe('GET /docs', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('when the page is asked without a key, then it is HTML naming the bundle and the document by relative addresses, under its own policy', async () => {
    const answer = await request(app.baseUrl, '/docs');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toBe(DOCS_PAGE_CONTENT_SECURITY_POLICY);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('cache-control')).toBe('no-cache');
    expect(answer.body).toContain('<redoc spec-url="v1/openapi.yaml"></redoc>');
    expect(answer.body).toContain(`<script src="docs${REDOC_BUNDLE_PATH}"></script>`);
    const again = await request(app.baseUrl, '/docs', { headers: { 'if-none-match': answer.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('when the bundle is asked, then it comes from this service as JavaScript, cacheable for a year, with an ETag that answers 304', async () => {
    const answer = await request(app.baseUrl, BUNDLE_URL);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(answer.headers.get('content-security-policy')).toBe(API_CONTENT_SECURITY_POLICY);
    const bundle = answer.body as string;
    expect(bundle.length).toBeGreaterThan(500_000);
    expect(bundle.includes('https://cdn.redoc.ly/'), "the bundle names no address of Redocly's CDN").toBe(false);
    const etag = answer.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const again = await request(app.baseUrl, BUNDLE_URL, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });

  it('when /docs/ is asked, then the browser is sent to /docs, where the relative addresses resolve', async () => {
    const answer = await fetch(`${app.baseUrl}/docs/`, { redirect: 'manual' });
    expect(answer.status).toBe(308);
    expect(answer.headers.get('location')).toBe('../docs');
    expect(new URL(answer.headers.get('location')!, `${app.baseUrl}/docs/`).pathname).toBe('/docs');
  });

  it('when a query parameter, another method or another path below /docs is sent, then 422, 405 and 404 in the error body under the API policy', async () => {
    const withQuery = await request(app.baseUrl, '/docs?theme=dark');
    expect(withQuery.status).toBe(422);
    expect(withQuery.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { fields: { 'query.theme': 'is not a known field' } },
    });
    const bundleWithQuery = await request(app.baseUrl, `${BUNDLE_URL}?v=1`);
    expect(bundleWithQuery.status).toBe(422);

    const posted = await request(app.baseUrl, '/docs', { method: 'POST', body: {} });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(posted.body.error.code).toBe('METHOD_NOT_ALLOWED');

    const unknown = await request(app.baseUrl, '/docs/redoc.standalone.js');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    for (const answer of [withQuery, posted, unknown]) {
      expect(answer.headers.get('content-security-policy')).toBe(API_CONTENT_SECURITY_POLICY);
    }
  });
});

describe('GET /docs in headless Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const outsideRequests: string[] = [];
  let operations: DocumentedOperation[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM_PATH ?? (await chromium.executablePath()),
      headless: 'shell',
      args: BROWSER_ARGS,
      pipe: true,
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warn') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
    page.on('requestfailed', (failed) => problems.push(`request failed: ${failed.url()} ${failed.failure()?.errorText ?? ''}`));
    await page.exposeFunction('reportPolicyViolation', (violation: string) => problems.push(`policy violation: ${violation}`));
    // Browser-side code is passed as text: this project's TypeScript has no DOM types.
    await page.evaluateOnNewDocument(
      "document.addEventListener('securitypolicyviolation', (event) => reportPolicyViolation(event.effectiveDirective + ' ' + event.blockedURI));",
    );
    // Only this service, blob: and data: are let through: the test never leaves the machine, and a page
    // that tries to is caught.
    const origin = new URL(app.baseUrl).origin;
    await page.setRequestInterception(true);
    page.on('request', (sent) => {
      const url = sent.url();
      if (url.startsWith('data:') || url.startsWith('blob:') || new URL(url).origin === origin) {
        void sent.continue();
        return;
      }
      outsideRequests.push(url);
      void sent.abort('blockedbyclient');
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('when /docs is opened, then Redoc draws every operation of /v1/openapi.yaml with its summary, without an error, a policy violation or a request outside the service', async () => {
    const yaml = await request(app.baseUrl, '/v1/openapi.yaml');
    expect(yaml.status).toBe(200);
    operations = operationsOf(parse(yaml.body as string));
    expect(operations.length).toBeGreaterThan(20);

    await page.goto(`${app.baseUrl}/docs`, { waitUntil: 'load' });
    const operationIds = JSON.stringify(operations.map((operation) => operation.operationId));
    await page
      .waitForFunction(`${operationIds}.every((id) => document.querySelector('[data-section-id$="operation/' + CSS.escape(id) + '"]'))`, {
        timeout: 30_000,
      })
      .catch(() => undefined); // the comparison below names what is missing

    const drawn = (await page.evaluate(`[...document.querySelectorAll('[data-section-id*="operation/"]')].map((section) => ({
      operationId: section.getAttribute('data-section-id').replace(/^.*operation\\//, ''),
      summary: (section.querySelector('h2')?.textContent ?? '').trim(),
    }))`)) as DocumentedOperation[];
    const drawnSummaries = new Map(drawn.map((operation) => [operation.operationId, operation.summary]));
    const missing = operations.filter((operation) => !drawnSummaries.has(operation.operationId));
    expect(missing).toEqual([]);
    for (const operation of operations) {
      expect(drawnSummaries.get(operation.operationId), operation.operationId).toContain(operation.summary.trim());
    }

    if (process.env.DOCS_SCREENSHOT) await writeFile(process.env.DOCS_SCREENSHOT, await page.screenshot({ type: 'png' }));
    expect(problems).toEqual([]);
    expect(outsideRequests).toEqual([]);
  }, 90_000);

  it('when a word is searched, then the search worker (a blob: worker the policy allows) finds operations of the document', async () => {
    await page.type('input[placeholder="Search..."]', 'project');
    await page.waitForSelector('ul[data-role="search:results"] li', { timeout: 15_000 });
    const found = (await page.evaluate(
      `[...document.querySelectorAll('ul[data-role="search:results"] li')].map((result) => result.textContent)`,
    )) as string[];
    const summaries = operations.map((operation) => operation.summary.trim());
    expect(found.filter((result) => summaries.some((summary) => result.includes(summary))).length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }, 30_000);
});
