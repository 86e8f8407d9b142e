import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInProcessLimits } from '../../src/limits/inProcessLimits.js';
import type { ConsumeRequest, ConsumeResult, LimitPolicy } from '../../src/limits/limits.js';
import { createRedisLimits, REDIS_CONSUME_BATCH } from '../../src/limits/redisLimits.js';
import { randomSource } from '../support/catalogueEvents.js';
import { freePort } from '../support/http.js';
import { OwnRedis, redisServerBinary } from '../support/ownRedis.js';
import { limitsContract } from './limitsContract.js';

const redisUrl = process.env.REDIS_URL;

if (!redisServerBinary) {
  console.warn('Redis round-trip counts skipped: no redis-server on PATH (install redis-server to run them on a server of their own).');
}

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

interface ScriptedConsume {
  atMs: number;
  request: ConsumeRequest;
}

/**
 * Turns of consumes made together, over a few clients with tight limits: requests at the same and at
 * different instants, weighted batches, 304s, usage floors, overage, and time crossing a Dhaka midnight and
 * a month's end, so that every limit refuses some of them.
 */
function scriptedTurns(random: () => number, clientIds: number[]): ScriptedConsume[][] {
  const tight: LimitPolicy = { burst: { limit: 6, windowMs: 1_000 }, perMinute: 25, daily: 60, monthly: 45, overage: null };
  const overage: LimitPolicy = { ...tight, overage: { price_per_request: '0.002', currency: 'AED' } };
  // 23:59:50 in Dhaka on the last day of a month.
  let atMs = Date.UTC(2031, 0, 31, 17, 59, 50);
  const turns: ScriptedConsume[][] = [];
  for (let turn = 0; turn < 60; turn += 1) {
    const consumes: ScriptedConsume[] = [];
    const size = 1 + Math.floor(random() * (turn % 7 === 0 ? 100 : 20));
    for (let index = 0; index < size; index += 1) {
      if (random() < 0.3) atMs += Math.floor(random() * 400);
      const clientId = clientIds[Math.floor(random() * clientIds.length)]!;
      const environment = random() < 0.8 ? 'live' : 'test';
      const request: ConsumeRequest = {
        clientId,
        environment,
        policy: clientId === clientIds[0] ? overage : tight,
        units: random() < 0.8 ? 1 : 1 + Math.floor(random() * 4),
        chargesQuota: random() < 0.85,
      };
      if (random() < 0.1) {
        const at = new Date(atMs + 6 * 3_600_000);
        const dayKey = at.toISOString().slice(0, 10);
        request.usageFloor = { dayKey, day: Math.floor(random() * 30), monthKey: dayKey.slice(0, 7), month: Math.floor(random() * 60) };
      }
      consumes.push({ atMs, request });
    }
    turns.push(consumes);
    atMs += Math.floor(random() * 3_000);
  }
  return turns;
}

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

  describe('batches and keys', () => {
    let observer: Redis;

    beforeAll(() => {
      observer = new Redis(redisUrl!);
    });

    afterAll(() => {
      observer.disconnect();
    });

    it('when consumes are batched, then each answer is the one the in-process limiter gives the same requests one after another', async () => {
      let nowMs = 0;
      const batched = createRedisLimits(redisUrl!, { now: () => nowMs });
      const sequential = createInProcessLimits({ now: () => nowMs });
      const random = randomSource(20261123);
      const turns = scriptedTurns(random, [freshClientId(), freshClientId(), freshClientId()]);
      try {
        let compared = 0;
        const refusals = new Set<string>();
        for (const turn of turns) {
          const pending = turn.map(({ atMs, request }) => {
            nowMs = atMs;
            return batched.consume(request);
          });
          const expected: ConsumeResult[] = [];
          for (const { atMs, request } of turn) {
            nowMs = atMs;
            expected.push(await sequential.consume(request));
          }
          const answered = await Promise.all(pending);
          expect(answered).toEqual(expected);
          compared += answered.length;
          for (const result of answered) if (!result.allowed) refusals.add(result.code);
        }
        // The scenario reaches every limit, so the comparison covers every refusal path.
        expect(refusals).toEqual(
          new Set(['BURST_LIMIT_EXCEEDED', 'PER_MINUTE_LIMIT_EXCEEDED', 'DAILY_LIMIT_EXCEEDED', 'MONTHLY_LIMIT_EXCEEDED']),
        );
        expect(compared).toBeGreaterThan(500);
      } finally {
        await Promise.all([batched.close(), sequential.close()]);
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

/**
 * Round trips are counted from INFO commandstats, which is server-wide: on a redis-server of this suite's
 * own, so that no other suite's commands (they share the one on 6379 in parallel) land in the counts.
 */
describe.skipIf(!redisServerBinary)('Redis limits round trips, on a redis-server of their own', () => {
  let server: OwnRedis;
  let observer: Redis;
  let serverUrl: string;

  beforeAll(async () => {
    server = new OwnRedis(redisServerBinary!, await freePort());
    await server.start();
    serverUrl = server.url;
    observer = new Redis(serverUrl);
  });

  afterAll(() => {
    observer?.disconnect();
    server?.dispose();
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
    const limits = createRedisLimits(serverUrl);
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

  it(`when many consumes are made in the same turn, then they travel as one EVALSHA per ${REDIS_CONSUME_BATCH}`, async () => {
    const limits = createRedisLimits(serverUrl);
    const clientId = freshClientId();
    const consumes = 2 * REDIS_CONSUME_BATCH + 22;
    const tight = { ...loosePolicy, perMinute: 100 };
    const consumeAll = () =>
      Promise.all(
        Array.from({ length: consumes }, () =>
          limits.consume({ clientId, environment: 'live', policy: tight, units: 1, chargesQuota: true }),
        ),
      );
    try {
      await limits.consume({ clientId: freshClientId(), environment: 'live', policy: loosePolicy, units: 1, chargesQuota: true });
      const before = await commandCalls();
      const results = await consumeAll();
      const after = await commandCalls();

      expect(delta(before, after, 'evalsha')).toBe(Math.ceil(consumes / REDIS_CONSUME_BATCH));
      expect(results.filter((result) => result.allowed)).toHaveLength(100);
      expect(results.filter((result) => !result.allowed && result.code === 'PER_MINUTE_LIMIT_EXCEEDED')).toHaveLength(consumes - 100);
      // One ZADD and one HSET per client and batch, not per request.
      expect(delta(before, after, 'zadd')).toBe(2);
      expect(delta(before, after, 'hset')).toBe(2);
    } finally {
      await limits.close();
    }
  });

  it('when the server has lost the script (SCRIPT FLUSH), then the next consume reloads it and still counts once', async () => {
    const limits = createRedisLimits(serverUrl);
    const clientId = freshClientId();
    const consume = () => limits.consume({ clientId, environment: 'live', policy: loosePolicy, units: 1, chargesQuota: true });
    try {
      expect(await consume()).toMatchObject({ allowed: true, daily: { used: 1 } });
      await observer.script('FLUSH');
      expect(await consume()).toMatchObject({ allowed: true, daily: { used: 2 } });
      expect(await consume()).toMatchObject({ allowed: true, daily: { used: 3 } });
    } finally {
      await limits.close();
    }
  });
});
