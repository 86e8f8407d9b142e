import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createInProcessLimits } from '../../src/limits/inProcessLimits.js';
import type { ConsumeResult, LimitPolicy, Limits } from '../../src/limits/limits.js';
import { createRedisLimits, limitsKeys } from '../../src/limits/redisLimits.js';
import { createUsageLedger, overageAmount, readUsageReport, withUsageLedger, type UsageLedger } from '../../src/limits/usageLedger.js';
import { createLogger } from '../../src/logger.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) console.warn('Durable usage with Redis skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it against a server.');

const logger = createLogger({ level: 'silent', pretty: false });
const PRICE = { price_per_request: '0.002', currency: 'AED' };
/** Noon in Dhaka, mid-month. */
const NOON = Date.parse('2026-03-15T06:00:00Z');
const MONTH = '2026-03';

const policy = (overrides: Partial<LimitPolicy> = {}): LimitPolicy => ({
  burst: { limit: 1_000, windowMs: 2_000 },
  perMinute: 1_000,
  daily: 5,
  monthly: 100,
  overage: null,
  ...overrides,
});

/** Client ids no other suite sharing the Redis uses. */
const freshClientId = () => 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

function expectAllowed(result: ConsumeResult) {
  if (!result.allowed) throw new Error(`expected the request to be allowed, it was refused with ${result.code}`);
  return result;
}

describe('durable usage', () => {
  let readStore: ReadStore;
  let nowMs: number;
  const now = () => nowMs;
  const opened: Array<{ close(): Promise<void> }> = [];

  beforeEach(() => {
    readStore = createEmbeddedReadStore();
    nowMs = NOON;
  });

  afterEach(async () => {
    for (const resource of opened.splice(0).reverse()) await resource.close();
    await readStore.close();
  });

  /** One service process: its limiter (in process unless given) and its ledger on the shared read store. */
  function startProcess(inner: Limits = createInProcessLimits({ now }), writer?: string): { limits: Limits; ledger: UsageLedger } {
    const ledger = createUsageLedger(readStore, { logger, now, flushIntervalMs: 60_000, ...(writer ? { writer } : {}) });
    const limits = withUsageLedger(inner, ledger, now);
    opened.push(limits);
    return { limits, ledger };
  }

  const consume = (limits: Limits, clientId: number, limitPolicy: LimitPolicy, units = 1) =>
    limits.consume({ clientId, environment: 'live', policy: limitPolicy, units, chargesQuota: true });

  it('when the process restarts, then daily and monthly usage continue from the durable record and the daily cap still refuses', async () => {
    const clientId = freshClientId();
    const first = startProcess();
    for (let i = 0; i < 3; i++) expectAllowed(await consume(first.limits, clientId, policy()));
    await first.limits.close();
    opened.splice(opened.indexOf(first.limits), 1);

    const second = startProcess();
    const continued = expectAllowed(await consume(second.limits, clientId, policy()));
    expect(continued.daily).toMatchObject({ used: 4, remaining: 1 });
    expect(continued.monthly).toMatchObject({ used: 4 });
    expectAllowed(await consume(second.limits, clientId, policy()));
    const refused = await consume(second.limits, clientId, policy());
    expect(refused).toMatchObject({ allowed: false, code: 'DAILY_LIMIT_EXCEEDED' });
  });

  it('when the Dhaka day turns after a restart, then the daily usage starts again while the monthly one continues', async () => {
    const clientId = freshClientId();
    const first = startProcess();
    for (let i = 0; i < 5; i++) expectAllowed(await consume(first.limits, clientId, policy()));
    await first.ledger.flush();

    nowMs = NOON + 24 * 3_600_000;
    const second = startProcess();
    const nextDay = expectAllowed(await consume(second.limits, clientId, policy()));
    expect(nextDay.daily).toMatchObject({ used: 1 });
    expect(nextDay.monthly).toMatchObject({ used: 6 });
  });

  it('when the same usage is flushed twice, then the report is unchanged and counts the overage once', async () => {
    const clientId = freshClientId();
    const { limits, ledger } = startProcess();
    for (let i = 0; i < 3; i++) expectAllowed(await consume(limits, clientId, policy({ monthly: 1, daily: null, overage: PRICE })));
    await ledger.flush();
    const once = await readUsageReport(readStore, clientId, MONTH);
    await ledger.flush();
    expect(await readUsageReport(readStore, clientId, MONTH)).toEqual(once);
    expect(once.environments).toEqual([
      {
        environment: 'live',
        units: 3,
        days: [{ date: '2026-03-15', units: 3 }],
        overage_units: 2,
        overage: [{ ...PRICE, units: 2, amount: '0.004' }],
      },
    ]);
  });

  it('when two processes share one limiter, then the report takes the highest total and sums the overage each let through, per price', async () => {
    const clientId = freshClientId();
    const shared = createInProcessLimits({ now });
    const a = startProcess(shared, 'writer-a');
    const b = startProcess(shared, 'writer-b');
    const overagePolicy = policy({ daily: null, monthly: 2, overage: PRICE });
    for (const process of [a, b, a, b, a]) expectAllowed(await consume(process.limits, clientId, overagePolicy));
    const pricier = policy({ daily: null, monthly: 2, overage: { price_per_request: '0.01', currency: 'AED' } });
    expectAllowed(await consume(b.limits, clientId, pricier, 3));
    await Promise.all([a.ledger.flush(), b.ledger.flush()]);

    const report = await readUsageReport(readStore, clientId, MONTH);
    expect(report).toMatchObject({ client_id: clientId, month: MONTH, time_zone: 'Asia/Dhaka' });
    expect(report.environments).toHaveLength(1);
    expect(report.environments[0]).toMatchObject({
      environment: 'live',
      units: 8,
      days: [{ date: '2026-03-15', units: 8 }],
      overage_units: 6,
    });
    expect(report.environments[0]!.overage).toEqual(
      expect.arrayContaining([
        { ...PRICE, units: 3, amount: '0.006' },
        { price_per_request: '0.01', currency: 'AED', units: 3, amount: '0.03' },
      ]),
    );
  });

  it('when nothing was recorded for a month, then the report has no environments', async () => {
    expect(await readUsageReport(readStore, freshClientId(), MONTH)).toMatchObject({ environments: [] });
  });

  describe.skipIf(!redisUrl)('with Redis', () => {
    let observer: Redis;

    beforeEach(() => {
      observer = new Redis(redisUrl!);
      opened.push({ close: async () => void observer.disconnect() });
    });

    it('when Redis loses the counters (a restart without persistence), then they continue from what the process last saw', async () => {
      const clientId = freshClientId();
      const { limits } = startProcess(createRedisLimits(redisUrl!, { now }));
      for (let i = 0; i < 3; i++) expectAllowed(await consume(limits, clientId, policy()));
      const keys = limitsKeys(clientId, 'live', new Date(NOON));
      expect(await observer.hget(keys.quota, keys.dayField)).toBe('3');
      await observer.del(keys.quota);

      const continued = expectAllowed(await consume(limits, clientId, policy()));
      expect(continued.daily).toMatchObject({ used: 4, remaining: 1 });
      expect(await observer.hmget(keys.quota, keys.dayField, 'month')).toEqual(['4', '4']);
    });

    it('when Redis and the process are both lost, then the counters continue from the durable record', async () => {
      const clientId = freshClientId();
      const first = startProcess(createRedisLimits(redisUrl!, { now }));
      for (let i = 0; i < 4; i++) expectAllowed(await consume(first.limits, clientId, policy()));
      await first.ledger.flush();
      await observer.del(limitsKeys(clientId, 'live', new Date(NOON)).quota);

      const second = startProcess(createRedisLimits(redisUrl!, { now }));
      expect(expectAllowed(await consume(second.limits, clientId, policy())).daily).toMatchObject({ used: 5, remaining: 0 });
      expect(await consume(second.limits, clientId, policy())).toMatchObject({ allowed: false, code: 'DAILY_LIMIT_EXCEEDED' });
    });
  });
});

describe('overage amounts', () => {
  it.each([
    ['0.002', 123, '0.246'],
    ['0.002', 500, '1.00'],
    ['0.01', 3, '0.03'],
    ['1.5', 2, '3.00'],
    ['0.000001', 1, '0.000001'],
    ['25', 1_000_000, '25000000.00'],
  ])('when %s is billed %i times, then the amount is exactly %s', (price, units, amount) => {
    expect(overageAmount(price, units)).toBe(amount);
  });
});
