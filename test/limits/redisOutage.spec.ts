import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitsKeys } from '../../src/limits/redisLimits.js';
import type { PlanLimits } from '../../src/limits/planLimits.js';
import { minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';
import {
  publishedReferenceCatalogue,
  startApiFixture,
  UNLIMITED_FOR_TESTS,
  type ApiFixture,
  type IssuedKey,
} from '../support/apiFixture.js';
import { request } from '../support/http.js';
import { freePort } from '../support/http.js';
import { eventually } from '../support/eventually.js';
import { answersPing, OwnRedis, redisServerBinary as redisServer } from '../support/ownRedis.js';

/**
 * A Redis outage end to end, against a redis-server of this suite's own (never the shared one on 6379,
 * which other suites use in parallel): stopped and started again on the same port while the service runs.
 */

if (!redisServer) console.warn('Redis outage test skipped: no redis-server on PATH (install redis-server to run it).');

/** Noon in Asia/Dhaka (06:00 UTC): the steps below move the clock by seconds only, never across midnight. */
const NOON_DHAKA = Date.UTC(2040, 0, 10, 6);
const RETRY_REDIS_AFTER_MS = 5_000;

interface LogLine {
  level: number;
  msg: string;
  component?: string;
}

const LEVEL = { info: 30, warn: 40 } as const;

const planLimits = (overrides: Partial<PlanLimits>): PlanLimits => ({ ...UNLIMITED_FOR_TESTS, ...overrides });

describe.skipIf(!redisServer)('a Redis outage', () => {
  let redis: OwnRedis;
  let api: ApiFixture;
  let now = NOON_DHAKA;
  const logLines: LogLine[] = [];
  /** A key with room for every request of the scenario: its daily count shows which limiter answered. */
  let roomy: IssuedKey;
  /** A key whose per-minute limit the outage step exceeds. */
  let tight: IssuedKey;

  const dayUsedInRedis = (clientId: number) => {
    const keys = limitsKeys(clientId, 'live', new Date(now));
    return redis.hget(keys.quota, keys.dayField);
  };
  const health = () => request(api.app.baseUrl, '/v1/health');
  const linesLike = (level: number, pattern: RegExp) => logLines.filter((line) => line.level === level && pattern.test(line.msg));
  const unreachableWarnings = () => linesLike(LEVEL.warn, /^Redis unreachable/);
  const answersAgainInfos = () => linesLike(LEVEL.info, /^Redis answers again/);

  beforeAll(async () => {
    const port = await freePort();
    expect(port).not.toBe(6379);
    redis = new OwnRedis(redisServer!, port);
    await redis.start();
    api = await startApiFixture({
      env: { REDIS_URL: redis.url, LOG_LEVEL: 'info' },
      clock: () => new Date(now),
      logDestination: { write: (line: string) => void logLines.push(JSON.parse(line) as LogLine) },
    });
    await api.given([
      ...publishedReferenceCatalogue(),
      projectCreated(1, {}, minute(1)),
      projectEvent('ProjectPublished', 1, {}, minute(1)),
    ]);
    roomy = await api.issue({ limits: planLimits({ per_minute: 100, daily: 1_000, monthly: 10_000 }) });
    tight = await api.issue({ limits: planLimits({ per_minute: 3, daily: 1_000, monthly: 10_000 }) });
  });

  afterAll(async () => {
    try {
      await api?.close();
    } finally {
      redis?.dispose();
    }
  });

  it('when Redis stops and restarts, then the API keeps answering with the in-process limiter, health says degraded, each change is logged once, Redis is used again and no usage is lost', async () => {
    // 1. Redis up: health ok, and the limits are counted in Redis.
    const healthy = await health();
    expect(healthy.status).toBe(200);
    expect(healthy.body.data).toEqual({ status: 'ok', version: 'v1', checks: { database: true, cache: true } });

    // Every charged request of `roomy`, wherever it was counted: none may be lost across the outage.
    let roomyRequests = 0;
    const getRoomy = async () => {
      const answer = await api.get('/projects/1', roomy.key);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      roomyRequests += 1;
      return answer;
    };
    const first = await getRoomy();
    expect(first.headers.get('ratelimit-limit')).toBe('100');
    expect(first.headers.get('ratelimit-remaining')).toBe('99');
    expect(first.headers.get('x-quota-daily-limit')).toBe('1000');
    expect(first.headers.get('x-quota-daily-remaining')).toBe('999');
    expect(first.headers.get('x-quota-daily-reset')).toMatch(/^\d+$/);
    expect(await dayUsedInRedis(roomy.clientId)).toBe('1');
    expect(unreachableWarnings()).toHaveLength(0);

    // 2. Redis stopped: every keyed request still answers, limited in process.
    await redis.stop();
    expect(await answersPing(redis.port)).toBe(false);

    const outageStartedAt = performance.now();
    for (let index = 1; index <= 20; index++) {
      const answer = await getRoomy();
      expect(answer.headers.get('ratelimit-limit')).toBe('100');
      // The in-process limiter's windows start empty, but its daily and monthly counts start from the
      // usage the service last saw in Redis: the request Redis counted is not forgotten.
      expect(answer.headers.get('ratelimit-remaining')).toBe(String(100 - index));
      expect(answer.headers.get('x-quota-daily-remaining')).toBe(String(1_000 - roomyRequests));
      expect(answer.headers.get('x-quota-monthly-remaining')).toBe(String(10_000 - roomyRequests));
    }
    // Only the first request waits for Redis to fail; the other 19 go straight to the in-process limiter.
    expect(performance.now() - outageStartedAt).toBeLessThan(3_000);

    for (let index = 1; index <= 3; index++) expect((await api.get('/projects/1', tight.key)).status).toBe(200);
    const refused = await api.get('/projects/1', tight.key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('PER_MINUTE_LIMIT_EXCEEDED');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('retry-after')).toBe('60');

    const degraded = await health();
    expect(degraded.status).toBe(503);
    expect(degraded.body.data).toEqual({ status: 'degraded', version: 'v1', checks: { database: true, cache: false } });

    // Past the retry interval Redis is tried again, fails again, and that is not logged a second time.
    now += RETRY_REDIS_AFTER_MS + 1;
    const stillDown = await getRoomy();
    expect(stillDown.headers.get('x-quota-daily-remaining')).toBe(String(1_000 - roomyRequests));

    expect(unreachableWarnings()).toHaveLength(1);
    expect(unreachableWarnings()[0]).toMatchObject({ component: 'limits' });
    expect(answersAgainInfos()).toHaveLength(0);

    // 3. Redis back on the same port (empty: no persistence). After the retry interval of the injected clock
    // the limiter uses it again; ioredis reconnects on its own backoff, so poll in real time for that.
    await redis.start();
    await eventually('the limiter to count in Redis again', async () => {
      now += RETRY_REDIS_AFTER_MS + 1;
      await getRoomy();
      return (await dayUsedInRedis(roomy.clientId)) !== null;
    });
    // The empty Redis continued from the usage counted before and during the outage, not from zero.
    expect(await dayUsedInRedis(roomy.clientId)).toBe(String(roomyRequests));

    const shared = await getRoomy();
    expect(shared.headers.get('x-quota-daily-remaining')).toBe(String(1_000 - roomyRequests));
    expect(await dayUsedInRedis(roomy.clientId)).toBe(String(roomyRequests));

    await eventually('health to find Redis again', async () => (await health()).status === 200);
    const recovered = await health();
    expect(recovered.status).toBe(200);
    expect(recovered.body.data).toEqual({ status: 'ok', version: 'v1', checks: { database: true, cache: true } });

    for (let index = 0; index < 5; index++) await getRoomy();
    expect(await dayUsedInRedis(roomy.clientId)).toBe(String(roomyRequests));
    expect(answersAgainInfos()).toHaveLength(1);
    expect(answersAgainInfos()[0]).toMatchObject({ component: 'limits' });
    expect(unreachableWarnings()).toHaveLength(1);
  });
});
