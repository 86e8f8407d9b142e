import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dhakaDayKey, dhakaMonthKey, nextDhakaMonthStart } from '../../src/limits/limits.js';
import type { PlanLimits } from '../../src/limits/planLimits.js';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, UNLIMITED_FOR_TESTS, type ApiFixture } from '../support/apiFixture.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * Noon in Asia/Dhaka (06:00 UTC) on the 10th of a month of the 2030s, which only this suite uses: a shared
 * Redis keeps other suites' windows (test/queries/limits.spec.ts runs from 2040 on, so its entries lie in
 * this suite's future and never in its windows' past) and client ids restart at 1 in every fresh event
 * store, so the suite clears its own period's counters first.
 */
const RUN = Math.floor(Math.random() * 120);
const NOON_DHAKA = Date.UTC(2030 + Math.floor(RUN / 12), RUN % 12, 10, 6);
let now = NOON_DHAKA;
const clock = () => new Date(now);

const redisUrl = process.env.REDIS_URL;
const fixtures: Array<[string, Record<string, string>]> = [['in-process limiter', {}]];
if (redisUrl) fixtures.push(['Redis limiter', { REDIS_URL: redisUrl }]);
else console.warn('Usage reports with Redis skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run them against a server.');

const PRICE = { price_per_request: '0.002', currency: 'AED' };
const planLimits = (overrides: Partial<PlanLimits> = {}): PlanLimits => ({ ...UNLIMITED_FOR_TESTS, ...overrides });

function catalogue(): StreamEvent[] {
  const projects: StreamEvent[] = [];
  for (let id = 1; id <= 3; id++) projects.push(projectCreated(id, {}, minute(id)), projectEvent('ProjectPublished', id, {}, minute(id)));
  return [...publishedReferenceCatalogue(), ...projects];
}

async function clearCountersOfThisMonth(url: string): Promise<void> {
  const redis = new Redis(url);
  try {
    const month = dhakaMonthKey(new Date(NOON_DHAKA));
    const keys = await redis.keys(`limits:*:quota:${month}`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

describe.each(fixtures)('usage records and the admin usage report with the %s', (_name, env) => {
  let api: ApiFixture;

  beforeAll(async () => {
    if (env.REDIS_URL) await clearCountersOfThisMonth(env.REDIS_URL);
    api = await startApiFixture({ env, clock });
    await api.given(catalogue());
  });

  afterAll(async () => {
    await api.close();
  });

  it('when live requests pass the monthly allowance on an overage plan, then the report shows the units per day and the overage to invoice with its exact amount', async () => {
    now = NOON_DHAKA;
    const { key, clientId } = await api.issue({ limits: planLimits({ monthly: 3, overage: PRICE }) });
    for (let i = 0; i < 2; i++) expect((await api.get('/projects/1', key)).status).toBe(200);
    now = NOON_DHAKA + DAY;
    const served = [];
    for (let i = 0; i < 4; i++) served.push(await api.get('/projects/1', key));
    expect(served.map((answer) => answer.headers.get('x-quota-overage'))).toEqual([null, 'true', 'true', 'true']);
    // A 304 costs no quota, so it is neither usage nor overage.
    const etag = served[0]!.headers.get('etag')!;
    expect((await api.get('/projects/1', key, { headers: { 'if-none-match': etag } })).status).toBe(304);

    const month = dhakaMonthKey(new Date(now));
    const report = await api.admin('GET', `/clients/${clientId}/usage/${month}`);
    expect(report.status).toBe(200);
    expect(report.body.data).toEqual({
      client_id: clientId,
      month,
      time_zone: 'Asia/Dhaka',
      environments: [
        {
          environment: 'live',
          units: 6,
          days: [
            { date: dhakaDayKey(new Date(NOON_DHAKA)), units: 2 },
            { date: dhakaDayKey(new Date(NOON_DHAKA + DAY)), units: 4 },
          ],
          overage_units: 3,
          overage: [{ ...PRICE, units: 3, amount: '0.006' }],
        },
      ],
    });
  });

  it('when test and weighted requests are made, then each environment reports its own units and a batch counts its quota units', async () => {
    now = NOON_DHAKA;
    const issued = await api.issue({ limits: planLimits({ test_daily: 100 }) });
    const testKey = (await api.admin('POST', `/clients/${issued.clientId}/keys`, { environment: 'test' })).body.data.key as string;
    await api.settle();
    expect((await api.get('/projects/1', testKey)).status).toBe(200);
    const batch = await api.get(`/projects?view=detail&ids=${Array.from({ length: 11 }, (_, i) => i + 1).join(',')}`, issued.key);
    expect(batch.headers.get('x-quota-units')).toBe('2');

    const report = await api.admin('GET', `/clients/${issued.clientId}/usage/${dhakaMonthKey(new Date(now))}`);
    expect(report.body.data.environments).toEqual([
      { environment: 'live', units: 2, days: [{ date: dhakaDayKey(new Date(now)), units: 2 }], overage_units: 0, overage: [] },
      { environment: 'test', units: 1, days: [{ date: dhakaDayKey(new Date(now)), units: 1 }], overage_units: 0, overage: [] },
    ]);
  });

  it('when the report names an unknown client, a month without usage, a malformed month or a query parameter, then 404, an empty report and 422 naming the field', async () => {
    const { clientId } = await api.issue();
    expect((await api.admin('GET', '/clients/999999/usage/2026-11')).body.error.code).toBe('NOT_FOUND');
    expect((await api.admin('GET', `/clients/${clientId}/usage/2001-01`)).body.data.environments).toEqual([]);
    const withQuery = await api.admin('GET', `/clients/${clientId}/usage/2026-11?environment=live`);
    expect(withQuery.status).toBe(422);
    expect(withQuery.body.error.details.fields).toHaveProperty(['query.environment']);
    for (const month of ['2026-13', '2026-1', 'november', '2026-11-01']) {
      const invalid = await api.admin('GET', `/clients/${clientId}/usage/${month}`);
      expect(invalid.status).toBe(422);
      expect(invalid.body.error.details.fields).toHaveProperty(['params.month']);
    }
  });
});

describe('usage across a restart of the service (embedded mode)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'usage-restart-'));

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when the service restarts on the same data, then the daily and monthly quotas continue where they were, and the report still counts the earlier requests', async () => {
    now = NOON_DHAKA;
    const first = await startApiFixture({ clock, dataDir });
    let key: string;
    let clientId: number;
    try {
      await first.given(catalogue());
      ({ key, clientId } = await first.issue({ limits: planLimits({ daily: 5, monthly: 50 }) }));
      for (let i = 0; i < 3; i++) expect((await first.get('/projects/1', key)).status).toBe(200);
    } finally {
      await first.close();
    }

    const second = await startApiFixture({ clock, dataDir });
    try {
      const continued = await second.get('/projects/1', key);
      expect(continued.status).toBe(200);
      expect(continued.headers.get('x-quota-daily-remaining')).toBe('1');
      expect(continued.headers.get('x-quota-monthly-remaining')).toBe('46');
      await second.get('/projects/1', key);
      const refused = await second.get('/projects/1', key);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: 'DAILY_LIMIT_EXCEEDED', details: { daily: { limit: 5, used: 5, remaining: 0 } } });

      now = nextDhakaMonthStart(new Date(NOON_DHAKA)).getTime() - HOUR;
      const report = await second.admin('GET', `/clients/${clientId}/usage/${dhakaMonthKey(new Date(NOON_DHAKA))}`);
      expect(report.body.data.environments).toMatchObject([{ environment: 'live', units: 5 }]);
    } finally {
      await second.close();
    }
  });
});
