import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrochureRequest } from '../../src/pdf/pdfOptions.js';
import { startApiFixture, UNLIMITED_FOR_TESTS, type ApiFixture } from '../support/apiFixture.js';
import { minute, projectCreated, projectEvent, referenceCatalogue } from '../support/catalogueEvents.js';

/** The renderer port (BrochureRenderer) as a double: counts renders, can be told to fail once. */
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
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (failNext) {
        failNext = false;
        throw new Error('browser crashed');
      }
      const pdf = Buffer.from(
        `%PDF-1.7\n% brochure of project ${request.projectId} ${request.template} ${request.language} ${requests.length}\n%%EOF\n`,
      );
      return { pdf, pages: request.sections.length, mapDrawn: false };
    },
  };
}

const pdfLimits = (per_minute: number) => ({ per_minute, daily: 100, monthly: 1_000 });

describe('brochure PDFs over HTTP', () => {
  let api: ApiFixture;
  const renderer = rendererDouble();
  let key: string;

  const post = (path: string, body?: unknown, useKey = key) =>
    api.get(path, useKey, { method: 'POST', ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    api = await startApiFixture({ env: { PDF_RENDER_TIMEOUT_MS: '5000' }, brochureRenderer: renderer });
    await api.given([
      ...referenceCatalogue(),
      projectCreated(1),
      projectEvent('ProjectPublished', 1, {}),
      projectCreated(2),
      projectEvent('ProjectPublished', 2, {}),
    ]);
    key = await api.key();
  });
  afterAll(() => api?.close());

  it('when the templates are listed, then the plan’s designs come back with the default marked', async () => {
    const answer = await api.get('/pdf-templates', key);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((template: { template: string }) => template.template)).toEqual([
      'classic',
      'editorial',
      'minimal',
      'bold',
    ]);
    expect(answer.body.data[0]).toMatchObject({ name: 'Classic', is_default: true });
  });

  it('when a brochure is asked twice, then it is rendered once and the second answer is cached with a fresh link to the same PDF', async () => {
    const before = renderer.requests.length;
    const first = await post('/projects/1/pdf', { template: 'EDITORIAL', sections: ['overview', 'cover'] });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ cached: false, idempotent_replay: false, template: 'editorial', language: 'en', pages: 2 });
    const second = await post('/projects/project-1/pdf', { template: 'editorial', sections: ['cover', 'overview'] });
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ cached: true, fingerprint: first.body.data.fingerprint });
    expect(renderer.requests.length).toBe(before + 1);
    expect(renderer.requests.at(-1)).toMatchObject({ projectId: 1, sections: ['cover', 'overview'], currency: { code: 'AED', rate: 1 } });
    const file = await fetch(second.body.data.download_url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect((await file.text()).startsWith('%PDF-')).toBe(true);
  });

  it('when 10 requests of one new brochure arrive at once, then it is rendered once', async () => {
    const before = renderer.requests.length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('/projects/2/pdf', { language: 'ar' })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((answer) => answer.body.data.fingerprint)).size).toBe(1);
    expect(renderer.requests.length).toBe(before + 1);
  });

  it('when the project is edited, then the same request gets a new fingerprint and a new PDF', async () => {
    const first = await post('/projects/1/pdf', { language: 'en', currency: 'usd' });
    expect(first.status).toBe(200);
    await api.given([projectEvent('ProjectRevised', 1, { changes: { overview: 'A new overview' } }, minute(5))]);
    const second = await post('/projects/1/pdf', { language: 'en', currency: 'USD' });
    expect(second.body.data).toMatchObject({ cached: false });
    expect(second.body.data.fingerprint).not.toBe(first.body.data.fingerprint);
    expect(renderer.requests.at(-1)!.currency).toEqual({ code: 'USD', rate: Number((1 / 3.6725).toPrecision(6)) });
  });

  it('when a request is wrong, then 422 names the field and says why', async () => {
    const template = await post('/projects/1/pdf', { template: 'baroque' });
    expect(template.status).toBe(422);
    expect(template.body.error.message).toBe(
      'Template "baroque" is not enabled for this account; usable designs: classic, editorial, minimal, bold.',
    );
    const profile = await post('/projects/1/pdf', { agent_profile_id: 9999 });
    expect(profile.status).toBe(422);
    expect(profile.body.error.details.fields).toEqual({ 'body.agent_profile_id': 'Agent profile 9999 does not exist.' });
    const both = await post('/projects/1/pdf?agent_profile_id=3', { agent_profile_id: 4 });
    expect(both.status).toBe(422);
    expect(Object.keys(both.body.error.details.fields)).toEqual(['query.agent_profile_id']);
    const fields = await post('/projects/1/pdf', { sections: ['cover', 'cover'], colour: 'red', currency: 'XYZ', unit_types: [999] });
    expect(fields.status).toBe(422);
    expect(Object.keys(fields.body.error.details.fields).sort()).toEqual(['body.colour', 'body.sections']);
    const currency = await post('/projects/1/pdf', { currency: 'JPY' });
    expect(currency.body.error.details.fields['body.currency']).toMatch(/^must be the project's own currency \(AED\) or one of AED, USD/);
    const unitTypes = await post('/projects/1/pdf', { unit_types: [999] });
    expect(unitTypes.body.error.details.fields).toEqual({ 'body.unit_types': '999 is not a unit type of this project' });
  });

  it('when the project is unknown or unpublished, then 404', async () => {
    expect((await post('/projects/404/pdf')).status).toBe(404);
  });

  it('when a design is not enabled by the plan, then it is refused and the list shows only the enabled ones', async () => {
    const narrow = await api.issue({});
    const plan = (await api.admin('GET', `/clients/${narrow.clientId}`)).body.data.plan_id;
    expect((await api.admin('PATCH', `/plans/${plan}`, { pdf_templates: ['minimal', 'bold'], pdf_default_template: 'bold' })).status).toBe(
      200,
    );
    await api.settle();
    const listed = await api.get('/pdf-templates', narrow.key);
    expect(listed.body.data.map((template: { template: string; is_default: boolean }) => [template.template, template.is_default])).toEqual(
      [
        ['minimal', false],
        ['bold', true],
      ],
    );
    const refused = await post('/projects/1/pdf', { template: 'classic' }, narrow.key);
    expect(refused.body.error.message).toBe('Template "classic" is not enabled for this account; usable designs: minimal, bold.');
  });

  it('when the PDF limit per minute is spent, then a new brochure gets 429 with Retry-After while a cached one is still served', async () => {
    const limited = await api.issue({ limits: UNLIMITED_FOR_TESTS });
    expect((await api.admin('PATCH', `/clients/${limited.clientId}`, { pdf_limits: pdfLimits(2) })).status).toBe(200);
    await api.settle();
    const first = await post('/projects/2/pdf', { sections: ['cover'] }, limited.key);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-pdf-quota-minute-remaining')).toBe('1');
    expect((await post('/projects/2/pdf', { sections: ['gallery'] }, limited.key)).status).toBe(200);
    const refused = await post('/projects/2/pdf', { sections: ['amenities'] }, limited.key);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'PER_MINUTE_LIMIT_EXCEEDED',
      details: { limit: 'pdf', minute: { limit: 2, used: 2 } },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const cached = await post('/projects/2/pdf', { sections: ['cover'] }, limited.key);
    expect(cached.status).toBe(200);
    expect(cached.body.data.cached).toBe(true);
  });

  it('when 8 new brochures are asked at once against a limit of 3, then exactly 3 are rendered', async () => {
    const limited = await api.issue({ limits: UNLIMITED_FOR_TESTS });
    expect((await api.admin('PATCH', `/clients/${limited.clientId}`, { pdf_limits: pdfLimits(3) })).status).toBe(200);
    await api.settle();
    const sectionSets = [['cover'], ['overview'], ['gallery'], ['floor_plans'], ['payment_plans'], ['amenities'], ['location'], ['agent']];
    const answers = await Promise.all(sectionSets.map((sections) => post('/projects/1/pdf', { sections, language: 'ar' }, limited.key)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(3);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(5);
  });

  it('when the render fails, then 503 RENDERER_UNAVAILABLE is answered and the next request renders it', async () => {
    const fresh = await api.key();
    renderer.failOnce();
    const failed = await post('/projects/2/pdf', { template: 'minimal' }, fresh);
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('RENDERER_UNAVAILABLE');
    const retried = await post('/projects/2/pdf', { template: 'minimal' }, fresh);
    expect(retried.status).toBe(200);
    expect(retried.body.data.cached).toBe(false);
  });
});
