import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrochureRequest } from '../../src/pdf/pdfOptions.js';
import { startApiFixture, type ApiFixture } from '../support/apiFixture.js';
import { projectCreated, projectEvent, referenceCatalogue } from '../support/catalogueEvents.js';
import { request } from '../support/http.js';

/** The brochure renderer as a double that keeps what it was asked to print. */
function recordingRenderer() {
  const requests: BrochureRequest[] = [];
  return {
    requests,
    async render(brochure: BrochureRequest) {
      requests.push(brochure);
      return { pdf: Buffer.from(`%PDF-1.7\n% ${brochure.currency.code} ${brochure.currency.rate}\n%%EOF\n`), pages: 1, mapDrawn: false };
    },
  };
}

describe('currency rates kept by editors', () => {
  let api: ApiFixture;
  const renderer = recordingRenderer();
  let key: string;

  const rates = (method: string, path = '', options: { body?: unknown; ifMatch?: string } = {}) =>
    request(api.app.baseUrl, `/admin/v1/currency-rates${path}`, {
      method,
      token: api.app.adminToken,
      ...(options.body === undefined ? {} : { body: options.body }),
      ...(options.ifMatch === undefined ? {} : { headers: { 'if-match': options.ifMatch } }),
    });
  const listed = async () => {
    await api.settle();
    const answer = await rates('GET');
    expect(answer.status).toBe(200);
    return Object.fromEntries(
      (answer.body.data as Array<{ code: string; per_aed: number | null; source: string | null }>).map((rate) => [
        rate.code,
        [rate.per_aed, rate.source],
      ]),
    );
  };
  const brochureIn = (currency: string) => api.get('/projects/1/pdf', key, { method: 'POST', body: { currency, sections: ['cover'] } });

  beforeAll(async () => {
    api = await startApiFixture({ env: { PDF_RENDER_TIMEOUT_MS: '5000' }, brochureRenderer: renderer });
    await api.given([...referenceCatalogue(), projectCreated(1), projectEvent('ProjectPublished', 1, {})]);
    key = await api.key();
  });
  afterAll(() => api?.close());

  it('when no editor has set a rate, then AED is the base, USD and SAR stand at their pegs and the others have none', async () => {
    expect(await listed()).toEqual({
      AED: [1, 'base'],
      USD: [1 / 3.6725, 'peg'],
      EUR: [null, null],
      GBP: [null, null],
      SAR: [3.75 / 3.6725, 'peg'],
      INR: [null, null],
    });
    const refused = await brochureIn('GBP');
    expect(refused.status).toBe(422);
    expect(refused.body.error.details.fields).toEqual({ 'body.currency': 'no rate is kept for it yet' });
  });

  it('when an editor sets a rate, then brochures in that currency convert with it, and a new rate makes a new brochure', async () => {
    const set = await rates('PUT', '/eur', { body: { per_aed: 0.25 } });
    expect(set.status).toBe(200);
    expect(set.headers.get('etag')).toBe('"0"');
    expect(set.body.data).toMatchObject({ code: 'EUR', per_aed: 0.25, source: 'editor', revision: 0 });
    expect((await listed()).EUR).toEqual([0.25, 'editor']);

    const first = await brochureIn('EUR');
    expect(first.status).toBe(200);
    expect(renderer.requests.at(-1)!.currency).toEqual({ code: 'EUR', rate: 0.25 });
    expect((await brochureIn('EUR')).body.data).toMatchObject({ cached: true, fingerprint: first.body.data.fingerprint });

    const changed = await rates('PUT', '/EUR', { body: { per_aed: 0.2489 }, ifMatch: '"0"' });
    expect(changed.headers.get('etag')).toBe('"1"');
    await api.settle();
    const second = await brochureIn('EUR');
    expect(second.body.data.cached).toBe(false);
    expect(second.body.data.fingerprint).not.toBe(first.body.data.fingerprint);
    expect(renderer.requests.at(-1)!.currency).toEqual({ code: 'EUR', rate: 0.2489 });
  });

  it('when the same rate is set again, then nothing is recorded and the revision stays', async () => {
    await rates('PUT', '/GBP', { body: { per_aed: 0.214 } });
    const again = await rates('PUT', '/GBP', { body: { per_aed: 0.214 } });
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe('"0"');
  });

  it('when a pegged currency gets a rate and it is removed again, then its brochures use the editor’s rate, then the peg', async () => {
    expect((await rates('PUT', '/USD', { body: { per_aed: 0.27 } })).status).toBe(200);
    await api.settle();
    await brochureIn('USD');
    expect(renderer.requests.at(-1)!.currency).toEqual({ code: 'USD', rate: 0.27 });

    const removed = await rates('DELETE', '/USD', { ifMatch: '"0"' });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ code: 'USD', per_aed: 1 / 3.6725, source: 'peg', revision: 1 });
    expect((await listed()).USD).toEqual([1 / 3.6725, 'peg']);
    await brochureIn('USD');
    expect(renderer.requests.at(-1)!.currency).toEqual({ code: 'USD', rate: Number((1 / 3.6725).toPrecision(6)) });
  });

  it('when an unpegged rate is removed, then brochures in it are refused again', async () => {
    await rates('PUT', '/INR', { body: { per_aed: 22.7 } });
    await api.settle();
    expect((await brochureIn('INR')).status).toBe(200);
    expect((await rates('DELETE', '/INR')).body.data).toMatchObject({ per_aed: null, source: null });
    await api.settle();
    expect((await brochureIn('INR')).body.error.details.fields).toEqual({ 'body.currency': 'no rate is kept for it yet' });
  });

  it('when a request is wrong, then it is refused naming what is wrong, and a stale If-Match is 409', async () => {
    const base = await rates('PUT', '/AED', { body: { per_aed: 1 } });
    expect(base.status).toBe(422);
    expect(Object.keys(base.body.error.details.fields)).toEqual(['params.currencyCode']);
    const unknown = await rates('PUT', '/JPY', { body: { per_aed: 0.0245 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('JPY is not a brochure currency; rates are kept for USD, EUR, GBP, SAR, INR.');
    const zero = await rates('PUT', '/EUR', { body: { per_aed: 0 } });
    expect(zero.status).toBe(422);
    expect(Object.keys(zero.body.error.details.fields)).toEqual(['body.per_aed']);
    expect((await rates('PUT', '/EUR', { body: { per_aed: 0.3 }, ifMatch: '"0"' })).status).toBe(409);
    const nothingToRemove = await rates('DELETE', '/SAR');
    expect(nothingToRemove.status).toBe(404);
    expect(nothingToRemove.body.error.message).toBe('No rate is set for SAR.');
  });
});
