import { describe, expect, it } from 'vitest';
import { createRedisNonceStore } from '../../src/access/nonceStore.js';
import { nonceStoreContract } from './nonceStoreContract.js';

const redisUrl = process.env.REDIS_URL;

if (!redisUrl) {
  console.warn('Redis nonce store contract skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it against a server.');
}

describe('Redis nonce store without a reachable server', () => {
  it('when Redis cannot be reached, then the claim is refused with a 503 SERVICE_UNAVAILABLE that does not carry the nonce', async () => {
    const store = createRedisNonceStore('redis://127.0.0.1:1', { timeoutMs: 200 });
    const nonce = 'secret-nonce-value-0123456789';
    try {
      const error: unknown = await store.claim(7, nonce, 60).then(
        () => null,
        (rejection: unknown) => rejection,
      );
      expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(nonce);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!redisUrl)('Redis nonce store', () => {
  nonceStoreContract('Redis', () => createRedisNonceStore(redisUrl!));
});
