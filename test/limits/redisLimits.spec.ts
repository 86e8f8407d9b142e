import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LimitPolicy } from '../../src/limits/limits.js';
import { createRedisLimits } from '../../src/limits/redisLimits.js';
import { limitsContract } from './limitsContract.js';

const redisUrl = process.env.REDIS_URL;

if (!redisUrl) {
  console.warn('Redis limits contract skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it against a server.');
}

const loosePolicy: LimitPolicy = {
  burst: { limit: 1_000, windowMs: 2_000 },
  perMinute: 1_000,
  daily: 1_000,
  monthly: 10_000,
  overage: null,
};

const freshClientId = () => 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

describe('Redis limits without a reachable server', () => {
  it('when Redis cannot be reached, then consume rejects with a 503 SERVICE_UNAVAILABLE', async () => {
    const limits = createRedisLimits('redis://127.0.0.1:1', { timeoutMs: 200 });
    try {
      await expect(
        limits.consume({ clientId: 7, environment: 'live', policy: loosePolicy, units: 1, chargesQuota: true }),
      ).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await limits.close();
    }
  });
});

describe.skipIf(!redisUrl)('Redis limits', () => {
  limitsContract('Redis', (clock) => createRedisLimits(redisUrl!, { now: clock }));

  describe('round trips', () => {
    let observer: Redis;

    beforeAll(() => {
      observer = new Redis(redisUrl!);
    });

    afterAll(() => {
      observer.disconnect();
    });

    /** Calls per command since the server started, from INFO commandstats (no MONITOR needed). */
    async function commandCalls(): Promise<Map<string, number>> {
      const info = await observer.info('commandstats');
      const calls = new Map<string, number>();
      for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(match[1]!, Number(match[2]));
      return calls;
    }

    const delta = (before: Map<string, number>, after: Map<string, number>, command: string) =>
      (after.get(command) ?? 0) - (before.get(command) ?? 0);

    it('when consuming, then each consume is exactly one EVALSHA (no EVAL, MULTI or separate commands once the script is loaded)', async () => {
      const limits = createRedisLimits(redisUrl!);
      const consume = (clientId: number) =>
        limits.consume({ clientId, environment: 'live', policy: loosePolicy, units: 1, chargesQuota: true });
      try {
        const clientId = freshClientId();
        await consume(clientId);
        const before = await commandCalls();
        const consumes = 20;
        for (let i = 0; i < consumes; i += 1) await consume(clientId);
        const after = await commandCalls();

        expect(delta(before, after, 'evalsha')).toBe(consumes);
        expect(delta(before, after, 'eval')).toBe(0);
        expect(delta(before, after, 'script|load')).toBe(0);
        expect(delta(before, after, 'multi')).toBe(0);
        expect(delta(before, after, 'exec')).toBe(0);
        // Commands run inside the script are counted by the server too: one ZADD (one window) and one
        // HSET (day and month together) per consume.
        expect(delta(before, after, 'zadd')).toBe(consumes);
        expect(delta(before, after, 'hset')).toBe(consumes);
      } finally {
        await limits.close();
      }
    });

    it('when the server has lost the script (SCRIPT FLUSH), then the next consume reloads it and still counts once', async () => {
      const limits = createRedisLimits(redisUrl!);
      const clientId = freshClientId();
      const consume = () =>
        limits.consume({ clientId, environment: 'live', policy: loosePolicy, units: 1, chargesQuota: true });
      try {
        expect(await consume()).toMatchObject({ allowed: true, daily: { used: 1 } });
        await observer.script('FLUSH');
        expect(await consume()).toMatchObject({ allowed: true, daily: { used: 2 } });
        expect(await consume()).toMatchObject({ allowed: true, daily: { used: 3 } });
      } finally {
        await limits.close();
      }
    });

    it('when a request is consumed, then its keys are namespaced limits:{client}:{env} and every one of them expires', async () => {
      const limits = createRedisLimits(redisUrl!);
      const clientId = freshClientId();
      try {
        await limits.consume({ clientId, environment: 'test', policy: loosePolicy, units: 1, chargesQuota: true });
        const keys = (await observer.keys(`limits:${clientId}:*`)).sort();
        expect(keys.map((key) => key.replace(/\d{4}-\d{2}$/, 'MONTH'))).toEqual([
          `limits:${clientId}:test:quota:MONTH`,
          `limits:${clientId}:test:window`,
        ]);
        for (const key of keys) expect(await observer.pttl(key)).toBeGreaterThan(0);
      } finally {
        await limits.close();
      }
    });
  });
});
