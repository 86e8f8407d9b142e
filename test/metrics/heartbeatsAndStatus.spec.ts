import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import {
  heartbeatsKey,
  readStoreHeartbeats,
  redisHeartbeats,
  SEEN_WITHIN_MS,
  startHeartbeats,
  type HeartbeatStore,
  type ProcessHeartbeat,
} from '../../src/metrics/heartbeats.js';
import type { ProjectionLagProbe } from '../../src/metrics/projectionLag.js';
import { createServiceStatus } from '../../src/metrics/serviceStatus.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { eventually } from '../support/eventually.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const T0 = Date.parse('2026-11-30T08:00:00.000Z');

function heartbeat(id: string, lastSeenMs: number, overrides: Partial<ProcessHeartbeat> = {}): ProcessHeartbeat {
  return {
    id,
    pid: 100,
    host: 'box',
    roles: ['api'],
    started_at: new Date(T0 - 3_600_000).toISOString(),
    last_seen: new Date(lastSeenMs).toISOString(),
    limits: 'in-process',
    projection_errors: {},
    ...overrides,
  };
}

/** Pino lines written while the test runs, parsed. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'info', pretty: false, destination: { write: (line: string) => lines.push(JSON.parse(line)) } });
  return { logger, lines };
}

describe('heartbeat stores', () => {
  async function roundTrip(store: HeartbeatStore) {
    await store.put(heartbeat('a', T0));
    await store.put(heartbeat('b', T0, { roles: ['projector'], limits: null }));
    await store.put(heartbeat('a', T0 + 5_000));
    expect((await store.list()).sort((x, y) => x.id.localeCompare(y.id))).toEqual([
      heartbeat('a', T0 + 5_000),
      heartbeat('b', T0, { roles: ['projector'], limits: null }),
    ]);
    await store.remove(['a']);
    expect((await store.list()).map((listed) => listed.id)).toEqual(['b']);
  }

  it('when kept in the read store, then a put replaces the process entry, list returns them as written and remove deletes', async () => {
    const readStore = createEmbeddedReadStore({});
    closers.push(() => readStore.close());
    await roundTrip(readStoreHeartbeats(readStore));
  });

  const redisUrl = process.env.REDIS_URL;
  if (!redisUrl) console.warn('Skipping the Redis heartbeat store: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it.');
  it.skipIf(!redisUrl)(
    'when kept in Redis under the job queue prefix, then the same holds, and an entry that does not parse is passed over',
    async () => {
      const client = new Redis(redisUrl!);
      const prefix = `heartbeat-test-${process.pid}-${Date.now()}`;
      closers.push(async () => {
        await client.del(heartbeatsKey(prefix));
        client.disconnect();
      });
      await client.hset(heartbeatsKey(prefix), 'garbage', '{"id": 42');
      await roundTrip(redisHeartbeats(client, prefix));
    },
  );
});

describe('startHeartbeats', () => {
  it('when running, then it writes at once and on every beat, lists recent processes, forgets old ones and deletes its own at stop', async () => {
    const readStore = createEmbeddedReadStore({});
    closers.push(() => readStore.close());
    const store = readStoreHeartbeats(readStore);
    let now = T0;
    await store.put(heartbeat('gone-long-ago', T0 - 11 * 60_000));
    await store.put(heartbeat('stale', T0 - SEEN_WITHIN_MS - 1));
    let beats = 0;
    const { logger } = capturedLogger();
    const heartbeats = startHeartbeats({
      store,
      current: () => {
        beats += 1;
        return heartbeat('self', now);
      },
      logger,
      intervalMs: 10,
      now: () => now,
    });
    await eventually('three beats', () => beats >= 3);
    expect((await heartbeats.recent()).map((listed) => listed.id)).toEqual(['self']);
    // Pruned at the first beat: only heartbeats older than ten minutes go.
    expect((await store.list()).map((listed) => listed.id).sort()).toEqual(['self', 'stale']);
    now += SEEN_WITHIN_MS + 1;
    expect(await heartbeats.recent()).toEqual([]);
    await heartbeats.stop();
    expect((await store.list()).map((listed) => listed.id)).toEqual(['stale']);
  });

  it('when the store fails, then the outage is logged once and reported per write, and its end logged once', async () => {
    let failing = true;
    const written: ProcessHeartbeat[] = [];
    const store: HeartbeatStore = {
      put: async (beat) => {
        if (failing) throw new Error('store down');
        written.push(beat);
      },
      list: async () => written,
      remove: async () => undefined,
    };
    const outcomes: boolean[] = [];
    const { logger, lines } = capturedLogger();
    const heartbeats = startHeartbeats({
      store,
      current: () => heartbeat('self', T0),
      logger,
      intervalMs: 10,
      onWrite: (ok) => outcomes.push(ok),
    });
    closers.push(() => heartbeats.stop());
    await eventually('three failed writes', () => outcomes.length >= 3);
    failing = false;
    await eventually('a write again', () => written.length > 0);
    const messages = lines.map((line) => line.msg);
    expect(messages.filter((message) => message === 'writing the heartbeat failed; trying again at the next beat')).toHaveLength(1);
    expect(messages.filter((message) => message === 'heartbeats are written again')).toHaveLength(1);
    expect(outcomes.slice(0, 3)).toEqual([false, false, false]);
    expect(outcomes.at(-1)).toBe(true);
  });
});

describe('service status', () => {
  const noLag: ProjectionLagProbe = { current: () => Promise.reject(new Error('event store down')) };

  it('when processes report failures of a projection, then its last error is the latest one with the process that saw it', async () => {
    const self = heartbeat('self', T0, {
      roles: ['api', 'projector'],
      projection_errors: { projects: { message: 'older', at: '2026-11-30T07:00:00.000Z' } },
    });
    const other = heartbeat('other', T0 - 4_000, {
      roles: ['projector'],
      limits: null,
      projection_errors: { projects: { message: 'newer', at: '2026-11-30T07:30:00.000Z' } },
    });
    const status = await createServiceStatus({
      heartbeats: { recent: async () => [heartbeat('self', T0 - 5_000), other], stop: async () => undefined },
      current: () => self,
      lag: {
        current: async () => ({
          head: 9n,
          projections: [
            { name: 'projects', checkpoint: 7n, eventsBehind: 2, secondsBehind: 1.26 },
            { name: 'developers', checkpoint: null, eventsBehind: 9, secondsBehind: 60 },
          ],
        }),
      },
      projections: [
        { name: 'projects', version: 2 },
        { name: 'developers', version: 1 },
      ],
      redis: { reachable: () => false },
      now: () => T0,
    }).status();
    expect(status.processes.map((listed) => [listed.id, listed.seconds_since_seen])).toEqual([
      ['self', 0],
      ['other', 4],
    ]);
    expect(status.roles).toEqual({ api: 1, projector: 2 });
    expect(status.log_head_position).toBe(9);
    expect(status.projections).toEqual([
      {
        name: 'projects',
        version: 2,
        checkpoint_position: 7,
        lag_events: 2,
        lag_seconds: 1.3,
        last_error: { message: 'newer', at: '2026-11-30T07:30:00.000Z', process_id: 'other' },
      },
      { name: 'developers', version: 1, checkpoint_position: null, lag_events: 9, lag_seconds: 60, last_error: null },
    ]);
    expect(status.limits).toEqual({ mode: 'in-process', redis: 'unreachable' });
  });

  it('when the heartbeats and the lag cannot be read, then the status still answers with this process alone and unknown positions', async () => {
    const status = await createServiceStatus({
      heartbeats: { recent: () => Promise.reject(new Error('Redis down')), stop: async () => undefined },
      current: () => heartbeat('self', T0),
      lag: noLag,
      projections: [{ name: 'projects', version: 1 }],
      redis: { reachable: () => null },
      now: () => T0,
    }).status();
    expect(status.processes.map((listed) => listed.id)).toEqual(['self']);
    expect(status.processes_complete).toBe(false);
    expect(status.log_head_position).toBe(null);
    expect(status.projections).toEqual([
      { name: 'projects', version: 1, checkpoint_position: null, lag_events: null, lag_seconds: null, last_error: null },
    ]);
    expect(status.limits.redis).toBe('unknown');
  });
});
