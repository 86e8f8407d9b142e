import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock, ConsumeAllowed, ConsumeRefused, ConsumeRequest, ConsumeResult, LimitPolicy, Limits } from '../../src/limits/limits.js';

/** Client ids unlikely to be used by a service sharing the same Redis, so no flush is needed between runs. */
const freshClientId = () => 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

const PRICE = { price_per_request: '0.002', currency: 'AED' };

/** Limits loose enough not to interfere; each test tightens the one it is about. */
const policy = (overrides: Partial<LimitPolicy> = {}): LimitPolicy => ({
  burst: { limit: 1_000, windowMs: 2_000 },
  perMinute: 1_000,
  daily: null,
  monthly: null,
  overage: null,
  ...overrides,
});

function expectAllowed(result: ConsumeResult): ConsumeAllowed {
  if (!result.allowed) throw new Error(`expected the request to be allowed, it was refused with ${result.code}`);
  return result;
}

function expectRefused(result: ConsumeResult): ConsumeRefused {
  if (result.allowed) throw new Error('expected the request to be refused, it was allowed');
  return result;
}

const instant = (iso: string) => Date.parse(iso);

/**
 * What every Limits adapter must do; each adapter's spec calls this with a factory taking the clock.
 * Time is moved by setting `nowMs`, never by sleeping.
 */
export function limitsContract(name: string, open: (clock: Clock) => Promise<Limits> | Limits): void {
  describe(`Limits contract: ${name}`, () => {
    let limits: Limits;
    let nowMs = 0;

    beforeAll(async () => {
      limits = await open(() => nowMs);
    });

    afterAll(async () => {
      await limits.close();
    });

    beforeEach(() => {
      // Mid-day in Dhaka (12:00 local), mid-month: far from any reset unless a test moves there.
      nowMs = instant('2026-03-15T06:00:00Z');
    });

    /** Requests of one fresh client environment under one policy. */
    function clientUnder(limitPolicy: LimitPolicy, environment: ConsumeRequest['environment'] = 'live') {
      const clientId = freshClientId();
      return (request: Partial<Pick<ConsumeRequest, 'units' | 'chargesQuota' | 'usageFloor'>> = {}) =>
        limits.consume({ clientId, environment, policy: limitPolicy, units: 1, chargesQuota: true, ...request });
    }

    async function consumeTimes(consume: () => Promise<ConsumeResult>, times: number): Promise<ConsumeResult[]> {
      const results: ConsumeResult[] = [];
      for (let i = 0; i < times; i += 1) results.push(await consume());
      return results;
    }

    it('when the burst limit is reached, then the next request is refused with BURST_LIMIT_EXCEEDED until the oldest leaves the window', async () => {
      const consume = clientUnder(policy({ burst: { limit: 3, windowMs: 2_000 }, daily: 100, monthly: 1_000 }));
      const start = nowMs;
      expectAllowed(await consume());
      nowMs = start + 500;
      expectAllowed(await consume());
      nowMs = start + 1_000;
      expectAllowed(await consume());

      nowMs = start + 1_200;
      const refused = expectRefused(await consume());
      expect(refused.code).toBe('BURST_LIMIT_EXCEEDED');
      expect(refused.resetAt.getTime()).toBe(start + 2_000);
      expect(refused.retryAfterSeconds).toBe(1);
      expect(refused.daily).toMatchObject({ limit: 100, used: 3, remaining: 97 });
      expect(refused.monthly).toMatchObject({ limit: 1_000, used: 3, remaining: 997 });

      nowMs = start + 1_999;
      expect(expectRefused(await consume()).code).toBe('BURST_LIMIT_EXCEEDED');
      nowMs = start + 2_000;
      expectAllowed(await consume());
      expect(expectRefused(await consume()).code).toBe('BURST_LIMIT_EXCEEDED');
    });

    it('when the per-minute limit is reached, then the next request is refused with PER_MINUTE_LIMIT_EXCEEDED, retry after the oldest leaves the minute', async () => {
      const consume = clientUnder(policy({ perMinute: 3, daily: 100 }));
      const start = nowMs;
      for (const offset of [0, 10_000, 20_000]) {
        nowMs = start + offset;
        expectAllowed(await consume());
      }

      nowMs = start + 30_000;
      const refused = expectRefused(await consume());
      expect(refused.code).toBe('PER_MINUTE_LIMIT_EXCEEDED');
      expect(refused.rateLimit).toEqual({ limit: 3, remaining: 0 });
      expect(refused.resetAt.getTime()).toBe(start + 60_000);
      expect(refused.retryAfterSeconds).toBe(30);
      expect(refused.daily).toMatchObject({ limit: 100, used: 3, remaining: 97 });
    });

    it('when time passes, then the rolling minute frees one request per request that left it, not all at once', async () => {
      const consume = clientUnder(policy({ perMinute: 2 }));
      const start = nowMs;
      expectAllowed(await consume());
      nowMs = start + 30_000;
      expectAllowed(await consume());

      nowMs = start + 59_999;
      expect(expectRefused(await consume()).code).toBe('PER_MINUTE_LIMIT_EXCEEDED');
      nowMs = start + 60_000;
      expect(expectAllowed(await consume()).rateLimit).toEqual({ limit: 2, remaining: 0 });
      const refused = expectRefused(await consume());
      expect(refused.code).toBe('PER_MINUTE_LIMIT_EXCEEDED');
      expect(refused.resetAt.getTime()).toBe(start + 90_000);
      nowMs = start + 90_000;
      expectAllowed(await consume());
    });

    it('when the daily quota would be exceeded, then the request is refused with DAILY_LIMIT_EXCEEDED until Dhaka midnight, with both quotas in the details', async () => {
      const consume = clientUnder(policy({ daily: 10, monthly: 1_000 }));
      expectAllowed(await consume({ units: 4 }));
      expectAllowed(await consume({ units: 4 }));

      const refused = expectRefused(await consume({ units: 4 }));
      expect(refused.code).toBe('DAILY_LIMIT_EXCEEDED');
      // 2026-03-15 12:00 in Dhaka: the day resets at 2026-03-16 00:00 Dhaka = 2026-03-15T18:00:00Z, 12 h away.
      expect(refused.resetAt.toISOString()).toBe('2026-03-15T18:00:00.000Z');
      expect(refused.retryAfterSeconds).toBe(12 * 3_600);
      expect(refused.daily).toEqual({ limit: 10, used: 8, remaining: 2, resetAt: new Date('2026-03-15T18:00:00Z') });
      expect(refused.monthly).toEqual({ limit: 1_000, used: 8, remaining: 992, resetAt: new Date('2026-03-31T18:00:00Z') });

      const fits = expectAllowed(await consume({ units: 2 }));
      expect(fits.daily).toMatchObject({ limit: 10, used: 10, remaining: 0 });
    });

    it('when the monthly allowance would be exceeded without overage, then the request is refused with MONTHLY_LIMIT_EXCEEDED until the 1st, and an uncapped daily quota reports null limit and remaining', async () => {
      const consume = clientUnder(policy({ daily: null, monthly: 5 }));
      await consumeTimes(() => consume(), 5);

      const refused = expectRefused(await consume());
      expect(refused.code).toBe('MONTHLY_LIMIT_EXCEEDED');
      // The 1st of April 00:00 in Dhaka is 2026-03-31T18:00:00Z.
      expect(refused.resetAt.toISOString()).toBe('2026-03-31T18:00:00.000Z');
      expect(refused.retryAfterSeconds).toBe((16 * 24 + 12) * 3_600);
      expect(refused.monthly).toMatchObject({ limit: 5, used: 5, remaining: 0 });
      expect(refused.daily).toMatchObject({ limit: null, used: 5, remaining: null });
    });

    it('when several limits are exceeded at once, then burst answers first, then per minute, then daily, then monthly', async () => {
      const consume = clientUnder(policy({ burst: { limit: 1, windowMs: 2_000 }, perMinute: 2, daily: 2, monthly: 3 }));
      const start = nowMs;
      expectAllowed(await consume());
      nowMs = start + 3_000;
      expectAllowed(await consume());
      // burst 1/1, minute 2/2, daily 2/2, monthly 2/3 (+2 units would exceed it): all four exceeded.
      expect(expectRefused(await consume({ units: 2 })).code).toBe('BURST_LIMIT_EXCEEDED');
      nowMs = start + 6_000;
      expect(expectRefused(await consume({ units: 2 })).code).toBe('PER_MINUTE_LIMIT_EXCEEDED');
      nowMs = start + 63_000;
      expect(expectRefused(await consume({ units: 2 })).code).toBe('DAILY_LIMIT_EXCEEDED');
      nowMs = instant('2026-03-15T18:00:00Z');
      expect(expectRefused(await consume({ units: 2 })).code).toBe('MONTHLY_LIMIT_EXCEEDED');
    });

    it('when requests are refused, then nothing is recorded: no quota, and no place in the burst or minute windows', async () => {
      const consume = clientUnder(policy({ burst: { limit: 2, windowMs: 2_000 }, perMinute: 3, daily: 3, monthly: 100 }));
      const start = nowMs;
      await consumeTimes(() => consume(), 2);
      const burstRefusals = await consumeTimes(() => consume(), 5);
      expect(burstRefusals.map((result) => !result.allowed && result.code)).toEqual(Array(5).fill('BURST_LIMIT_EXCEEDED'));

      nowMs = start + 2_000;
      const third = expectAllowed(await consume());
      expect(third.rateLimit).toEqual({ limit: 3, remaining: 0 });
      expect(third.daily).toMatchObject({ used: 3, remaining: 0 });
      expect(third.monthly).toMatchObject({ used: 3, remaining: 97 });

      nowMs = start + 60_000;
      const dailyRefusals = await consumeTimes(() => consume(), 3);
      expect(dailyRefusals.map((result) => !result.allowed && result.code)).toEqual(Array(3).fill('DAILY_LIMIT_EXCEEDED'));
      // Had the daily refusals entered the windows, this would be refused by burst and per minute.
      const notModified = expectAllowed(await consume({ chargesQuota: false }));
      expect(notModified.rateLimit).toEqual({ limit: 3, remaining: 1 });
      expect(notModified.monthly).toMatchObject({ used: 3 });
    });

    it('when a 304 is consumed (chargesQuota false), then it counts toward burst and per minute but costs no daily or monthly quota, even when that quota is spent', async () => {
      const consume = clientUnder(policy({ burst: { limit: 3, windowMs: 2_000 }, perMinute: 10, daily: 1, monthly: 1 }));
      const charged = expectAllowed(await consume());
      expect(charged.daily).toMatchObject({ used: 1, remaining: 0 });

      const first304 = expectAllowed(await consume({ chargesQuota: false }));
      expect(first304).toMatchObject({ overage: false, overageUnits: 0, rateLimit: { limit: 10, remaining: 8 } });
      expect(first304.daily).toMatchObject({ limit: 1, used: 1, remaining: 0 });
      expect(first304.monthly).toMatchObject({ limit: 1, used: 1, remaining: 0 });
      expectAllowed(await consume({ chargesQuota: false }));
      expect(expectRefused(await consume({ chargesQuota: false })).code).toBe('BURST_LIMIT_EXCEEDED');
    });

    it('when a weighted batch costs several units, then daily and monthly quota drop by the units while burst and per minute count one request', async () => {
      const consume = clientUnder(policy({ burst: { limit: 2, windowMs: 2_000 }, perMinute: 10, daily: 100, monthly: 1_000 }));
      const batch = expectAllowed(await consume({ units: 25 }));
      expect(batch.rateLimit).toEqual({ limit: 10, remaining: 9 });
      expect(batch.daily).toMatchObject({ used: 25, remaining: 75 });
      expect(batch.monthly).toMatchObject({ used: 25, remaining: 975 });
      expectAllowed(await consume({ units: 75 }));
      expect(expectRefused(await consume()).code).toBe('BURST_LIMIT_EXCEEDED');
    });

    it('when overage is enabled and the monthly allowance is passed, then requests are allowed and report the units beyond it as overage', async () => {
      const consume = clientUnder(policy({ daily: 14, monthly: 10, overage: PRICE }));
      const within = expectAllowed(await consume({ units: 8 }));
      expect(within).toMatchObject({ overage: false, overageUnits: 0 });

      const crossing = expectAllowed(await consume({ units: 4 }));
      expect(crossing).toMatchObject({ overage: true, overageUnits: 2 });
      expect(crossing.monthly).toMatchObject({ limit: 10, used: 12, remaining: 0 });

      const beyond = expectAllowed(await consume({ units: 2 }));
      expect(beyond).toMatchObject({ overage: true, overageUnits: 2 });

      const notModified = expectAllowed(await consume({ chargesQuota: false }));
      expect(notModified).toMatchObject({ overage: false, overageUnits: 0 });

      // Overage lifts only the monthly allowance: the daily cap (14) still refuses.
      const refused = expectRefused(await consume());
      expect(refused.code).toBe('DAILY_LIMIT_EXCEEDED');
      expect(refused.monthly).toMatchObject({ limit: 10, used: 14, remaining: 0 });
    });

    it('when a usage floor above the counters is given (usage recorded elsewhere), then the counters continue from it and refuse past the cap', async () => {
      const consume = clientUnder(policy({ daily: 10, monthly: 100 }));
      expectAllowed(await consume());
      const usageFloor = { dayKey: '2026-03-15', day: 8, monthKey: '2026-03', month: 40 };
      const continued = expectAllowed(await consume({ usageFloor }));
      expect(continued.daily).toMatchObject({ used: 9, remaining: 1 });
      expect(continued.monthly).toMatchObject({ used: 41, remaining: 59 });

      // The floor was carried into the counters: later requests without it count on from there.
      expect(expectAllowed(await consume()).daily).toMatchObject({ used: 10, remaining: 0 });
      const refused = expectRefused(await consume({ usageFloor }));
      expect(refused.code).toBe('DAILY_LIMIT_EXCEEDED');
      expect(refused.monthly).toMatchObject({ used: 42 });
    });

    it('when the usage floor is below the counters or of another period, then it changes nothing', async () => {
      const consume = clientUnder(policy({ daily: 10, monthly: 100 }));
      await consumeTimes(() => consume({ units: 3 }), 2);
      const lower = expectAllowed(await consume({ usageFloor: { dayKey: '2026-03-15', day: 1, monthKey: '2026-03', month: 2 } }));
      expect(lower.daily).toMatchObject({ used: 7 });
      expect(lower.monthly).toMatchObject({ used: 7 });
      const stale = expectAllowed(await consume({ usageFloor: { dayKey: '2026-03-14', day: 500, monthKey: '2026-02', month: 900 } }));
      expect(stale.daily).toMatchObject({ used: 8 });
      expect(stale.monthly).toMatchObject({ used: 8 });
    });

    it('when a 304 comes with a usage floor, then it reports the floor without charging anything', async () => {
      const consume = clientUnder(policy({ daily: 10, monthly: 100 }));
      const usageFloor = { dayKey: '2026-03-15', day: 4, monthKey: '2026-03', month: 6 };
      const notModified = expectAllowed(await consume({ chargesQuota: false, usageFloor }));
      expect(notModified.daily).toMatchObject({ used: 4, remaining: 6 });
      expect(notModified.monthly).toMatchObject({ used: 6, remaining: 94 });
    });

    it('when overage is enabled, then burst and per-minute limits still refuse', async () => {
      const consume = clientUnder(policy({ burst: { limit: 1, windowMs: 2_000 }, perMinute: 2, monthly: 1, overage: PRICE }));
      const start = nowMs;
      expectAllowed(await consume());
      expect(expectRefused(await consume()).code).toBe('BURST_LIMIT_EXCEEDED');
      nowMs = start + 2_000;
      expect(expectAllowed(await consume())).toMatchObject({ overage: true, overageUnits: 1 });
      nowMs = start + 4_000;
      expect(expectRefused(await consume()).code).toBe('PER_MINUTE_LIMIT_EXCEEDED');
    });

    it('when Dhaka midnight passes, then the daily quota starts again while the monthly one keeps counting', async () => {
      // 23:59:59 on 2026-03-10 in Dhaka.
      nowMs = instant('2026-03-10T17:59:59Z');
      const consume = clientUnder(policy({ daily: 1, monthly: 100 }));
      expectAllowed(await consume());
      const refused = expectRefused(await consume());
      expect(refused.code).toBe('DAILY_LIMIT_EXCEEDED');
      expect(refused.resetAt.toISOString()).toBe('2026-03-10T18:00:00.000Z');
      expect(refused.retryAfterSeconds).toBe(1);

      nowMs = instant('2026-03-10T18:00:00Z');
      const nextDay = expectAllowed(await consume());
      expect(nextDay.daily).toEqual({ limit: 1, used: 1, remaining: 0, resetAt: new Date('2026-03-11T18:00:00Z') });
      expect(nextDay.monthly).toMatchObject({ used: 2, remaining: 98 });
    });

    it('when the month changes in Dhaka (2026-01-31T18:00Z is already 1 February there), then the monthly allowance starts again', async () => {
      nowMs = instant('2026-01-31T17:59:00Z');
      const consume = clientUnder(policy({ monthly: 1 }));
      expectAllowed(await consume());
      const refused = expectRefused(await consume());
      expect(refused.code).toBe('MONTHLY_LIMIT_EXCEEDED');
      expect(refused.resetAt.toISOString()).toBe('2026-01-31T18:00:00.000Z');
      expect(refused.retryAfterSeconds).toBe(60);

      nowMs = instant('2026-01-31T18:00:00Z');
      const february = expectAllowed(await consume());
      expect(february.monthly).toEqual({ limit: 1, used: 1, remaining: 0, resetAt: new Date('2026-02-28T18:00:00Z') });
      expect(february.daily).toMatchObject({ limit: null, used: 1, remaining: null });
    });

    it('when one client environment exhausts its limits, then its other environment and other clients are unaffected', async () => {
      const tight = policy({ perMinute: 1, daily: 1 });
      const clientId = freshClientId();
      const consumeAs = (environment: ConsumeRequest['environment']) =>
        limits.consume({ clientId, environment, policy: tight, units: 1, chargesQuota: true });
      expectAllowed(await consumeAs('live'));
      expectRefused(await consumeAs('live'));
      expectAllowed(await consumeAs('test'));
      expectAllowed(await clientUnder(tight)());
    });

    it('when many requests race against the per-minute limit, then exactly that many are allowed and the rest refused with PER_MINUTE_LIMIT_EXCEEDED', async () => {
      const consume = clientUnder(policy({ perMinute: 10, daily: 1_000 }));
      const results = await Promise.all(Array.from({ length: 40 }, () => consume()));
      expect(results.filter((result) => result.allowed)).toHaveLength(10);
      const refusals = results.filter((result) => !result.allowed).map((result) => !result.allowed && result.code);
      expect(refusals).toEqual(Array(30).fill('PER_MINUTE_LIMIT_EXCEEDED'));
      expect(expectRefused(await consume()).daily.used).toBe(10);
    });

    it('when many requests race against the daily quota, then exactly that many are allowed and the rest refused with DAILY_LIMIT_EXCEEDED', async () => {
      const consume = clientUnder(policy({ daily: 15, monthly: 1_000 }));
      const results = await Promise.all(Array.from({ length: 40 }, () => consume()));
      expect(results.filter((result) => result.allowed)).toHaveLength(15);
      const refused = results.filter((result): result is ConsumeRefused => !result.allowed);
      expect(refused.map((result) => result.code)).toEqual(Array(25).fill('DAILY_LIMIT_EXCEEDED'));
      expect(refused.map((result) => result.daily.used)).toEqual(Array(25).fill(15));
      const after = expectRefused(await consume());
      expect(after.monthly).toMatchObject({ used: 15, remaining: 985 });
    });

    it('when a request carries invalid units or limits, then consume rejects it as a programming error', async () => {
      await expect(clientUnder(policy())({ units: 0 })).rejects.toThrow(RangeError);
      await expect(clientUnder(policy())({ units: 1.5 })).rejects.toThrow(RangeError);
      await expect(clientUnder(policy({ perMinute: 0 }))()).rejects.toThrow(RangeError);
      await expect(clientUnder(policy({ daily: -1 }))()).rejects.toThrow(RangeError);
    });
  });
}
