import { describe, expect, it } from 'vitest';
import { createRedisEvaluationUsage } from '../../src/access/evaluationUsage.js';
import { evaluationUsageContract } from './evaluationUsageContract.js';

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) {
  console.warn('Redis evaluation usage contract skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it against a server.');
}

describe('Redis evaluation usage without a reachable server', () => {
  it('when Redis cannot be reached, then recording is refused with a 503 SERVICE_UNAVAILABLE', async () => {
    const usage = createRedisEvaluationUsage('redis://127.0.0.1:1', { timeoutMs: 200 });
    try {
      await expect(usage.record(1, 'any')).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await usage.close();
    }
  });
});

describe.skipIf(!redisUrl)('Redis evaluation usage', () => {
  evaluationUsageContract(() => createRedisEvaluationUsage(redisUrl!));
});
