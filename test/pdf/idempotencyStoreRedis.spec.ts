import { describe, expect, it } from 'vitest';
import { createRedisIdempotencyStore } from '../../src/pdf/redisIdempotencyStore.js';
import { idempotencyStoreContract } from './idempotencyStoreContract.js';

const redisUrl = process.env.REDIS_URL;

if (!redisUrl) {
  console.warn('Redis idempotency store contract skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it against a server.');
}

describe.skipIf(!redisUrl)('Redis idempotency store', () => {
  idempotencyStoreContract('Redis', async (times) =>
    createRedisIdempotencyStore(redisUrl!, { ...times, prefix: `test-idempotency-${process.pid}` }),
  );
});

describe('Redis idempotency store without a reachable server', () => {
  it('when Redis cannot be reached, then the reserve is refused with 503 SERVICE_UNAVAILABLE', async () => {
    const store = createRedisIdempotencyStore('redis://127.0.0.1:1', { retentionMs: 1_000, inFlightLeaseMs: 1_000, timeoutMs: 200 });
    try {
      await expect(store.reserve(1, 'key', 'hash')).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await store.close();
    }
  });
});
