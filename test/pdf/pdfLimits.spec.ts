import { describe } from 'vitest';
import { createInProcessPdfLimiter } from '../../src/pdf/pdfLimits.js';
import { createRedisPdfLimiter } from '../../src/pdf/redisPdfLimits.js';
import { pdfLimiterContract } from './pdfLimitsContract.js';

pdfLimiterContract('in process', (now) => createInProcessPdfLimiter({ now }));

const redisUrl = process.env.REDIS_URL;
if (redisUrl) pdfLimiterContract('Redis', (now) => createRedisPdfLimiter(redisUrl, { now }));
else describe.skip('Redis PDF limits (REDIS_URL is not set)', () => {});
