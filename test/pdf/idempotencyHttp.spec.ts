import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrochureRequest } from '../../src/pdf/pdfOptions.js';
import { startApiFixture, UNLIMITED_FOR_TESTS, type ApiFixture } from '../support/apiFixture.js';
import { projectCreated, projectEvent, referenceCatalogue } from '../support/catalogueEvents.js';

/** The renderer port as a double: slow enough for requests to overlap, counts renders, can fail once. */
function rendererDouble() {
  const requests: BrochureRequest[] = [];
  let failNext = false;
  return {
    requests,
    failOnce() {
      failNext = true;
    },
    async render(request: BrochureRequest) {
      requests.push(request);
      await new Promise((resolve) => setTimeout(resolve, 300));
      if (failNext) {
        failNext = false;
        throw new Error('browser crashed');
      }
      return {
        pdf: Buffer.from(`%PDF-1.7\n% ${request.projectId} ${request.template} ${requests.length}\n%%EOF\n`),
        pages: 3,
        mapDrawn: false,
      };
    },
  };
}

describe('Idempotency-Key on POST /v1/projects/{project}/pdf', () => {
  let api: ApiFixture;
  const renderer = rendererDouble();
  let nowMs = Date.now();

  /** A key of a fresh client whose PDF limit is `perMinute` a minute. */
  const clientKey = async (perMinute = 100) => {
    const issued = await api.issue({ limits: UNLIMITED_FOR_TESTS });
    const patched = await api.admin('PATCH', `/clients/${issued.clientId}`, {
      pdf_limits: { per_minute: perMinute, daily: 100, monthly: 1_000 },
    });
    expect(patched.status).toBe(200);
    await api.settle();
    return issued.key;
  };
  const post = (key: string, body: unknown, idempotencyKey?: string) =>
    api.get('/projects/1/pdf', key, {
      method: 'POST',
      body,
      ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
    });

  beforeAll(async () => {
    api = await startApiFixture({ env: { PDF_RENDER_TIMEOUT_MS: '5000' }, brochureRenderer: renderer, clock: () => new Date(nowMs) });
    await api.given([...referenceCatalogue(), projectCreated(1), projectEvent('ProjectPublished', 1, {})]);
  });
  afterAll(() => api?.close());

  it('when a request is sent again with its key, then the first result comes back with a fresh link, without a render or a PDF unit', async () => {
    const key = await clientKey(1);
    const first = await post(key, { template: 'classic', language: 'ar' }, 'order-7781');
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ cached: false, idempotent_replay: false });
    const renders = renderer.requests.length;
    // Past the first link's lifetime (15 minutes by default), within the key's 24 hours.
    nowMs += 20 * 60_000;
    expect((await fetch(first.body.data.download_url)).status).toBe(403);
    const replay = await post(key, { template: 'Classic', language: 'ar' }, 'order-7781');
    expect(replay.status).toBe(200);
    expect(replay.body.data).toMatchObject({
      ...first.body.data,
      idempotent_replay: true,
      download_url: expect.any(String),
      expires_at: expect.any(String),
    });
    expect(replay.body.data.download_url).not.toBe(first.body.data.download_url);
    expect(replay.headers.get('x-pdf-quota-minute-remaining')).toBeNull();
    const file = await fetch(replay.body.data.download_url);
    expect(file.status).toBe(200);
    expect((await file.text()).startsWith('%PDF-')).toBe(true);
    expect(renderer.requests.length).toBe(renders);
  });

  it('when the key is sent with a different request, then 422 IDEMPOTENCY_KEY_REUSED and nothing is rendered', async () => {
    const key = await clientKey();
    expect((await post(key, { template: 'minimal' }, 'order-1')).status).toBe(200);
    const renders = renderer.requests.length;
    const reused = await post(key, { template: 'bold' }, 'order-1');
    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { header: 'Idempotency-Key' } });
    expect(renderer.requests.length).toBe(renders);
    // Another client's key of the same name is its own.
    expect((await post(await clientKey(), { template: 'bold' }, 'order-1')).body.data.idempotent_replay).toBe(false);
  });

  it('when the key is not 1 to 255 visible ASCII characters, then 422 names the header', async () => {
    const key = await clientKey();
    for (const bad of ['x'.repeat(256), 'two words', 'caf\u00e9']) {
      const refused = await api.get('/projects/1/pdf', key, { method: 'POST', headers: { 'idempotency-key': bad } });
      expect(refused.status, bad).toBe(422);
      expect(Object.keys(refused.body.error.details.fields)).toEqual(['header.Idempotency-Key']);
    }
    expect((await post(key, { sections: ['cover'] }, 'x'.repeat(255))).status).toBe(200);
  });

  it('when 50 requests with one key arrive at once, then one PDF is rendered and one unit spent; the others are 409 while it renders', async () => {
    const key = await clientKey(5);
    const renders = renderer.requests.length;
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(key, { sections: ['gallery', 'location'] }, 'burst-key')));
    const first = answers.filter((answer) => answer.status === 200 && !answer.body.data.idempotent_replay);
    const replays = answers.filter((answer) => answer.status === 200 && answer.body.data.idempotent_replay);
    const inUse = answers.filter((answer) => answer.status === 409);
    expect(first).toHaveLength(1);
    expect(replays.length + inUse.length).toBe(49);
    expect(inUse.length).toBeGreaterThan(0);
    for (const answer of inUse) expect(answer.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(renderer.requests.length).toBe(renders + 1);
    expect(first[0]!.headers.get('x-pdf-quota-minute-remaining')).toBe('4');
    const next = await post(key, { sections: ['amenities'] });
    expect(next.headers.get('x-pdf-quota-minute-remaining')).toBe('3');
    // Once it is answered, the key replays.
    expect((await post(key, { sections: ['location', 'gallery'] }, 'burst-key')).body.data).toMatchObject({
      idempotent_replay: true,
      fingerprint: first[0]!.body.data.fingerprint,
    });
  });

  it('when 50 requests of one new brochure arrive at once without a key, then it is rendered once and one unit is spent', async () => {
    const key = await clientKey(5);
    const renders = renderer.requests.length;
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(key, { sections: ['payment_plans'], language: 'ar' })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    expect(answers.filter((answer) => !answer.body.data.cached)).toHaveLength(1);
    expect(renderer.requests.length).toBe(renders + 1);
    expect((await post(key, { sections: ['amenities'], language: 'ar' })).headers.get('x-pdf-quota-minute-remaining')).toBe('3');
  });

  it('when the request with a key fails, then the key is free again and its retry renders', async () => {
    const key = await clientKey();
    renderer.failOnce();
    const failed = await post(key, { template: 'editorial', sections: ['cover'] }, 'retry-me');
    expect(failed.status).toBe(503);
    const retried = await post(key, { template: 'editorial', sections: ['cover'] }, 'retry-me');
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ cached: false, idempotent_replay: false });
  });

  it('when the PDF limit refuses the request with a key, then the key stays free and a replay of an answered key is not refused', async () => {
    const key = await clientKey(1);
    expect((await post(key, { sections: ['agent'] }, 'answered')).status).toBe(200);
    const refused = await post(key, { sections: ['overview'] }, 'refused');
    expect(refused.status).toBe(429);
    expect((await post(key, { sections: ['agent'] }, 'answered')).body.data.idempotent_replay).toBe(true);
    nowMs += 61_000;
    expect((await post(key, { sections: ['overview'] }, 'refused')).body.data.idempotent_replay).toBe(false);
  });
});
