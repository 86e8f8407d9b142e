import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LeaseKeeper, type LeasedWork } from '../../src/projectionEngine/leaseKeeper.js';
import type { ProjectorLease } from '../../src/projectionEngine/projectorLease.js';
import { createSqliteProjectorLease } from '../../src/projectionEngine/sqliteProjectorLease.js';
import { eventually } from '../support/eventually.js';
import { capturingLogger } from '../support/projectionHarness.js';

const TTL_MS = 600;
const RENEW_MS = 50;

const dir = mkdtempSync(join(tmpdir(), 'lease-keeper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A lease store whose renewals fail (as on a Redis outage) while `unreachable` is set. */
function flakyLease(): { store: ProjectorLease; unreachable: { now: boolean } } {
  const real = createSqliteProjectorLease({ file: ':memory:', ttlMs: TTL_MS });
  const unreachable = { now: false };
  cleanups.push(() => real.close());
  return {
    unreachable,
    store: {
      ...real,
      holder: real.holder,
      ttlMs: real.ttlMs,
      async renew(grant) {
        if (unreachable.now) throw new Error('connection refused');
        return real.renew(grant);
      },
    },
  };
}

function keeperOf(store: ProjectorLease) {
  const { logger, lines } = capturingLogger();
  const work = { running: false, starts: 0 };
  const keeper = new LeaseKeeper({
    store,
    name: 'projects',
    logger,
    renewIntervalMs: RENEW_MS,
    start: async (): Promise<LeasedWork> => {
      work.running = true;
      work.starts += 1;
      return {
        async stop() {
          work.running = false;
        },
      };
    },
  });
  cleanups.push(() => keeper.stop());
  return { keeper, lines, work };
}

describe('lease keeper', () => {
  it('when a renewal fails once, then the work keeps running, since the next one can still confirm the lease in time', async () => {
    const { store, unreachable } = flakyLease();
    const { keeper, lines, work } = keeperOf(store);
    await keeper.take();
    await keeper.startWork();

    unreachable.now = true;
    await eventually('a failed renewal', () => lines.some((line) => line.msg === 'could not renew the lease; trying again'));
    unreachable.now = false;
    await sleep(TTL_MS);

    expect(work.running).toBe(true);
    expect(keeper.active).toBe(true);
    expect(lines.map((line) => line.msg)).not.toContain('lease lost; its work stopped');
  });

  it('when no renewal succeeds within the time to live, then the work is stopped by the time the lease expires (timers allowing)', async () => {
    const { store, unreachable } = flakyLease();
    const { keeper, lines, work } = keeperOf(store);
    await keeper.take();
    await keeper.startWork();
    const lastConfirmed = performance.now();

    unreachable.now = true;

    const lost = await eventually('the lease given up', () => lines.find((line) => line.msg === 'lease lost; its work stopped'));
    expect(performance.now() - lastConfirmed).toBeLessThan(TTL_MS + RENEW_MS);
    expect(lost).toMatchObject({ reason: 'the lease could not be renewed within its time to live' });
    expect(work.running).toBe(false);
    expect(keeper.active).toBe(false);
  });

  it('when the lease store cannot be reached while standing by, then the failure is logged once, not on every attempt', async () => {
    const real = createSqliteProjectorLease({ file: ':memory:', ttlMs: TTL_MS });
    cleanups.push(() => real.close());
    let attempts = 0;
    const unreachable: ProjectorLease = {
      ...real,
      holder: real.holder,
      ttlMs: real.ttlMs,
      async acquire() {
        attempts += 1;
        throw new Error('connection refused');
      },
    };
    const { logger, lines } = capturingLogger();
    const keeper = new LeaseKeeper({
      store: unreachable,
      name: 'projects',
      logger,
      retryIntervalMs: 10,
      start: async () => ({ stop: async () => undefined }),
    });
    cleanups.push(() => keeper.stop());

    keeper.standBy();
    await eventually('five attempts', () => attempts >= 5);

    expect(lines.filter((line) => line.msg === 'could not ask for the lease; standing by')).toHaveLength(1);
    expect(keeper.active).toBe(false);
  });

  it('when the keeper is stopped, then its work stops and the lease is free for another holder at once', async () => {
    const file = join(dir, 'stop.sqlite');
    const held = createSqliteProjectorLease({ file, ttlMs: 60_000 });
    const other = createSqliteProjectorLease({ file, ttlMs: 60_000 });
    cleanups.push(
      () => held.close(),
      () => other.close(),
    );
    const { keeper, work } = keeperOf(held);
    await keeper.take();
    await keeper.startWork();
    expect(await other.acquire('projects')).toBeNull();

    await keeper.stop();

    expect(work.running).toBe(false);
    expect(keeper.active).toBe(false);
    expect(await other.acquire('projects')).not.toBeNull();
  });
});
