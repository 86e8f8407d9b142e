import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextDhakaDayStart, nextDhakaMonthStart } from '../../src/limits/limits.js';
import type { PlanLimits } from '../../src/limits/planLimits.js';
import { request } from '../support/http.js';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, UNLIMITED_FOR_TESTS, type ApiFixture } from '../support/apiFixture.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * Noon in Asia/Dhaka (06:00 UTC) two months apart for every run (the monthly test steps into the next one), later for every later run: a shared
 * Redis keeps the windows and the daily and monthly counters of earlier runs, which then lie in the past. The base wraps every 40,000 s so
 * that the year stays below 10000: timestamps in answers are RFC 3339 date-times, which have four-digit years.
 */
const NOON_DHAKA = Date.UTC(2040, 0, 10, 6) + (Math.floor(Date.now() / 1_000) % 40_000) * 62 * DAY;
const NEXT_DHAKA_MIDNIGHT = nextDhakaDayStart(new Date(NOON_DHAKA)).getTime();
const NEXT_DHAKA_MONTH = nextDhakaMonthStart(new Date(NOON_DHAKA)).getTime();
let now = NOON_DHAKA;

const redisUrl = process.env.REDIS_URL;
const fixtures: Array<[string, Record<string, string>]> = [['in-process limiter', {}]];
if (redisUrl) fixtures.push(['Redis limiter', { REDIS_URL: redisUrl }]);
else console.warn('Limits over HTTP with Redis skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run them against a server.');

const planLimits = (overrides: Partial<PlanLimits> = {}): PlanLimits => ({ ...UNLIMITED_FOR_TESTS, ...overrides });

describe.each(fixtures)('rate limits and quotas with the %s', (_name, env) => {
  let api: ApiFixture;

  beforeAll(async () => {
    api = await startApiFixture({ env, clock: () => new Date(now) });
    const projects: StreamEvent[] = [];
    for (let id = 1; id <= 12; id++)
      projects.push(projectCreated(id, {}, minute(id)), projectEvent('ProjectPublished', id, {}, minute(id)));
    await api.given([...publishedReferenceCatalogue(), ...projects]);
  });

  afterAll(async () => {
    await api.close();
  });

  const advance = (milliseconds: number) => {
    now += milliseconds;
  };

  it('when a request is served, then it carries the rate-limit and quota headers, and the health check carries none', async () => {
    now = NOON_DHAKA;
    const key = await api.key({ limits: planLimits({ per_minute: 50, daily: 100, monthly: 1_000 }) });
    const answer = await api.get('/projects/1', key);
    expect(answer.status).toBe(200);
    expect(Object.fromEntries([...answer.headers].filter(([name]) => /^(ratelimit|x-quota)-/.test(name)))).toEqual({
      'ratelimit-limit': '50',
      'ratelimit-remaining': '49',
      'x-quota-daily-limit': '100',
      'x-quota-daily-remaining': '99',
      'x-quota-daily-reset': String(NEXT_DHAKA_MIDNIGHT / 1000),
      'x-quota-monthly-limit': '1000',
      'x-quota-monthly-remaining': '999',
      'x-quota-monthly-reset': String(NEXT_DHAKA_MONTH / 1000),
    });
    const health = await request(api.app.baseUrl, '/v1/health');
    expect(health.headers.get('ratelimit-limit')).toBeNull();
  });

  it('when the burst is exceeded, then 429 BURST_LIMIT_EXCEEDED with Retry-After, success false and every detail; nothing is consumed', async () => {
    now = NOON_DHAKA;
    const key = await api.key({ limits: planLimits({ burst: { requests: 2, window_ms: 2_000 }, daily: 100, monthly: 1_000 }) });
    expect((await api.get('/projects/1', key)).status).toBe(200);
    advance(500);
    expect((await api.get('/projects/1', key)).status).toBe(200);
    const refused = await api.get('/projects/1', key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.body).toEqual({
      success: false,
      error: {
        code: 'BURST_LIMIT_EXCEEDED',
        message: expect.any(String),
        details: {
          reset_at: new Date(NOON_DHAKA + 2_000).toISOString(),
          retry_after_seconds: 2,
          daily: { limit: 100, used: 2, remaining: 98 },
          monthly: { limit: 1_000, used: 2, remaining: 998 },
        },
      },
      meta: { request_id: expect.any(String), generated_at: expect.any(String) },
    });
    advance(1_500);
    const later = await api.get('/projects/1', key);
    expect(later.status).toBe(200);
    expect(later.headers.get('x-quota-daily-remaining')).toBe('97');
  });

  it('when the per-minute limit is reached, then PER_MINUTE_LIMIT_EXCEEDED until the oldest request is a minute old', async () => {
    now = NOON_DHAKA;
    const key = await api.key({ limits: planLimits({ per_minute: 3 }) });
    for (let request = 0; request < 3; request++) {
      expect((await api.get('/projects/1', key)).status).toBe(200);
      advance(10_000);
    }
    const refused = await api.get('/projects/1', key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('PER_MINUTE_LIMIT_EXCEEDED');
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    advance(30_000);
    expect((await api.get('/projects/1', key)).status).toBe(200);
  });

  it('when a 304 answers, then it counts toward the per-minute limit but costs no quota', async () => {
    now = NOON_DHAKA;
    const key = await api.key({ limits: planLimits({ per_minute: 10, daily: 100 }) });
    const first = await api.get('/projects/1', key);
    const notModified = await api.get('/projects/1', key, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('ratelimit-remaining')).toBe('8');
    expect(notModified.headers.get('x-quota-daily-remaining')).toBe('99');
  });

  it('when the daily quota is used up, then DAILY_LIMIT_EXCEEDED until midnight in Dhaka; weighted batches cost their units', async () => {
    now = NEXT_DHAKA_MIDNIGHT - 60_000;
    const key = await api.key({ limits: planLimits({ daily: 3 }) });
    const batch = await api.get('/projects?ids=1,2,3,4,5,6,7,8,9,10,11&view=detail', key);
    expect(batch.headers.get('x-quota-units')).toBe('2');
    expect(batch.headers.get('x-quota-daily-remaining')).toBe('1');
    expect((await api.get('/projects/1', key)).status).toBe(200);
    const refused = await api.get('/projects/1', key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('DAILY_LIMIT_EXCEEDED');
    expect(refused.body.error.details.reset_at).toBe(new Date(NEXT_DHAKA_MIDNIGHT).toISOString());
    expect(refused.headers.get('retry-after')).toBe('60');
    now = NEXT_DHAKA_MIDNIGHT;
    const nextDay = await api.get('/projects/1', key);
    expect(nextDay.status).toBe(200);
    expect(nextDay.headers.get('x-quota-daily-remaining')).toBe('2');
  });

  it('when the monthly quota is used up, then MONTHLY_LIMIT_EXCEEDED until the 1st in Dhaka; with overage, requests go on billed as overage', async () => {
    now = NEXT_DHAKA_MONTH - HOUR;
    const capped = await api.key({ limits: planLimits({ monthly: 1 }) });
    expect((await api.get('/projects/1', capped)).status).toBe(200);
    const refused = await api.get('/projects/1', capped);
    expect(refused.body.error.code).toBe('MONTHLY_LIMIT_EXCEEDED');
    expect(refused.body.error.details.monthly).toEqual({ limit: 1, used: 1, remaining: 0 });
    expect(refused.body.error.details.reset_at).toBe(new Date(NEXT_DHAKA_MONTH).toISOString());

    const overage = await api.key({ limits: planLimits({ monthly: 1, overage: { price_per_request: '0.002', currency: 'AED' } }) });
    expect((await api.get('/projects/1', overage)).headers.get('x-quota-overage')).toBeNull();
    const billed = await api.get('/projects/1', overage);
    expect(billed.status).toBe(200);
    expect(billed.headers.get('x-quota-overage')).toBe('true');
    expect(billed.headers.get('x-quota-overage-price-per-request')).toBe('0.002 AED');

    now = NEXT_DHAKA_MONTH;
    expect((await api.get('/projects/1', capped)).status).toBe(200);
  });

  it('when a test key is used, then its own daily allowance applies and no monthly quota is reported', async () => {
    now = NOON_DHAKA;
    const issued = await api.issue({ limits: planLimits({ daily: 100, monthly: 1_000, test_daily: 2 }) });
    const testKey = (await api.admin('POST', `/clients/${issued.clientId}/keys`, { environment: 'test' })).body.data.key as string;
    await api.settle();
    const answer = await api.get('/projects/1', testKey);
    expect(answer.headers.get('x-quota-daily-limit')).toBe('2');
    expect(answer.headers.get('x-quota-monthly-limit')).toBeNull();
    await api.get('/projects/1', testKey);
    const refused = await api.get('/projects/1', testKey);
    expect(refused.body.error.code).toBe('DAILY_LIMIT_EXCEEDED');
    expect(refused.body.error.details.monthly).toEqual({ limit: null, used: 2, remaining: null });
    expect((await api.get('/projects/1', issued.key)).status).toBe(200);
  });

  it('when many requests arrive at once against a limit of L, then exactly L are served and the rest get the limit code', async () => {
    now = NOON_DHAKA;
    const key = await api.key({ limits: planLimits({ per_minute: 7 }) });
    const answers = await Promise.all(Array.from({ length: 25 }, () => api.get('/projects/1', key)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(7);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(18);
    expect(new Set(refused.map((answer) => answer.body.error.code))).toEqual(new Set(['PER_MINUTE_LIMIT_EXCEEDED']));
  });
});

describe('per-client limits', () => {
  let api: ApiFixture;

  beforeAll(async () => {
    api = await startApiFixture({ clock: () => new Date(now) });
    await api.given([
      ...publishedReferenceCatalogue(),
      projectCreated(1, {}, minute(1)),
      projectEvent('ProjectPublished', 1, {}, minute(1)),
    ]);
  });

  afterAll(async () => {
    await api.close();
  });

  it("when a client has limits of its own, then they replace the plan's until they are dropped again", async () => {
    now = NOON_DHAKA;
    const issued = await api.issue({ limits: planLimits({ daily: 100 }) });
    const revised = await api.admin('PATCH', `/clients/${issued.clientId}`, { limits: planLimits({ daily: 5 }) });
    expect(revised.status).toBe(200);
    expect(revised.body.data.limits.daily).toBe(5);
    await api.settle();
    expect((await api.get('/projects/1', issued.key)).headers.get('x-quota-daily-limit')).toBe('5');
    await api.admin('PATCH', `/clients/${issued.clientId}`, { limits: null });
    await api.settle();
    expect((await api.get('/projects/1', issued.key)).headers.get('x-quota-daily-limit')).toBe('100');
    const bad = await api.admin('PATCH', `/clients/${issued.clientId}`, { limits: { per_minute: 0 } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details.fields).some((field) => field.startsWith('body.limits'))).toBe(true);
  });
});
