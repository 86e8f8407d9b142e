import { describe } from 'vitest';
import { createRedisNonceStore } from '../../src/access/nonceStore.js';
import { nonceStoreContract } from './nonceStoreContract.js';

const redisUrl = process.env.REDIS_URL;

if (!redisUrl) {
  console.warn('Redis nonce store contract skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it against a server.');
}

describe.skipIf(!redisUrl)('Redis nonce store', () => {
  nonceStoreContract('Redis', () => createRedisNonceStore(redisUrl!));
});
