import { describe } from 'vitest';
import { createInProcessPdfLimiter } from '../../src/pdf/pdfLimits.js';
import { createRedisPdfLimiter } from '../../src/pdf/redisPdfLimits.js';
import { pdfLimiterContract } from './pdfLimitsContract.js';

pdfLimiterContract('in process', (now) => createInProcessPdfLimiter({ now }));

const redisUrl = process.env.REDIS_URL;

if (!redisUrl) {
  console.warn('Redis PDF limits contract skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it against a server.');
}

describe.skipIf(!redisUrl)('Redis PDF limits', () => {
  pdfLimiterContract('Redis', (now) => createRedisPdfLimiter(redisUrl!, { now }));
});
