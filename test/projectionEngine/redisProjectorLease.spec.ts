import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisProjectorLease } from '../../src/projectionEngine/redisProjectorLease.js';
import { projectorLeaseContract } from './projectorLeaseContract.js';

const redisUrl = process.env.REDIS_URL;

if (!redisUrl) {
  console.warn('Redis projector lease contract skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it against a server.');
}

describe.skipIf(!redisUrl)('Redis projector lease', () => {
  // Keys of this run only: other suites and runs share the server.
  const prefix = `test-projector-lease-${randomUUID()}`;

  // The tokens never expire: the run's keys are removed at its end.
  afterAll(async () => {
    const redis = new Redis(redisUrl!);
    try {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });

  projectorLeaseContract('Redis', async (ttlMs) => createRedisProjectorLease(redisUrl!, { ttlMs, prefix }));

  it('when a lease is first taken, then its token is not below the Redis clock in ms, so a flushed Redis still issues greater ones', async () => {
    const store = createRedisProjectorLease(redisUrl!, { ttlMs: 10_000, prefix });
    const before = Date.now();
    const grant = await store.acquire(`first-${randomUUID()}`);
    await store.close();

    // Redis runs on this machine: its clock is ours.
    expect(grant!.token).toBeGreaterThanOrEqual(before - 1_000);
  });
});

describe('Redis projector lease without a reachable server', () => {
  it('when Redis cannot be reached, then acquire rejects rather than pretend the lease is free or held', async () => {
    const store = createRedisProjectorLease('redis://127.0.0.1:1', { ttlMs: 10_000, prefix: 'unreachable', timeoutMs: 200 });
    try {
      await expect(store.acquire('projects')).rejects.toThrow();
    } finally {
      await store.close();
    }
  });
});
