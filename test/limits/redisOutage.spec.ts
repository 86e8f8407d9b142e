import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitsKeys } from '../../src/limits/redisLimits.js';
import type { PlanLimits } from '../../src/limits/planLimits.js';
import { minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, UNLIMITED_FOR_TESTS, type ApiFixture, type IssuedKey } from '../support/apiFixture.js';
import { request } from '../support/http.js';

/**
 * A Redis outage end to end, against a redis-server of this suite's own (never the shared one on 6379,
 * which other suites use in parallel): stopped and started again on the same port while the service runs.
 */

function onPath(binary: string): string | null {
  const directories = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin'];
  for (const directory of directories) {
    const candidate = join(directory, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

const redisServer = onPath('redis-server');
if (!redisServer) console.warn('Redis outage test skipped: no redis-server on PATH (install redis-server to run it).');

/** A loopback port nothing listens on: bound, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** True when a Redis answers PING on the port within a short deadline. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Retries `attempt` until it answers true or the (real-time) deadline passes. */
async function eventually(what: string, attempt: () => Promise<boolean>, deadlineMs = 8_000): Promise<void> {
  const giveUpAt = performance.now() + deadlineMs;
  while (!(await attempt())) {
    if (performance.now() > giveUpAt) throw new Error(`gave up after ${deadlineMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** One redis-server child on a fixed loopback port, without persistence, that can be stopped and started again. */
class OwnRedis {
  private child: ChildProcess | null = null;
  private output = '';
  private readonly dir = mkdtempSync(join(tmpdir(), 'redis-outage-'));

  constructor(
    private readonly binary: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      this.binary,
      ['--save', '', '--appendonly', 'no', '--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    child.stdout!.on('data', (data) => (this.output += data));
    child.stderr!.on('data', (data) => (this.output += data));
    child.once('exit', () => {
      if (this.child === child) this.child = null;
    });
    try {
      await eventually('redis-server to answer PING', async () => {
        if (this.child !== child) throw new Error(`redis-server exited at start:\n${this.output}`);
        return answersPing(this.port);
      });
    } catch (error) {
      this.kill();
      throw error;
    }
  }

  /** SIGTERM, then waits for the process to exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  /** For afterAll: whatever state the test left it in. */
  kill(): void {
    this.child?.kill('SIGKILL');
    this.child = null;
  }

  dispose(): void {
    this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Reads one hash field with a short-lived client of the test's own. */
  async hget(key: string, field: string): Promise<string | null> {
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      return await client.hget(key, field);
    } finally {
      client.disconnect();
    }
  }
}

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
    await api.given([...publishedReferenceCatalogue(), projectCreated(1, {}, minute(1)), projectEvent('ProjectPublished', 1, {}, minute(1))]);
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
