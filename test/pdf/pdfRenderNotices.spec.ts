import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { createInProcessPdfRenderNotices, createRedisPdfRenderNotices } from '../../src/pdf/pdfRenderNotices.js';
import { pdfRenderNoticesContract } from './pdfRenderNoticesContract.js';

pdfRenderNoticesContract('in process', () => {
  const notices = createInProcessPdfRenderNotices();
  return { waiter: notices, announcer: notices };
});

const redisUrl = process.env.REDIS_URL;

if (!redisUrl) {
  console.warn('Redis PDF render notices contract skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it against a server.');
}

describe.skipIf(!redisUrl)('Redis PDF render notices', () => {
  // A channel per pair: the waiter and the announcer stand for two processes, and parallel suites stay apart.
  pdfRenderNoticesContract('Redis', () => {
    const channel = `pdf-renders:outcomes:test-${randomUUID()}`;
    return { waiter: createRedisPdfRenderNotices(redisUrl!, { channel }), announcer: createRedisPdfRenderNotices(redisUrl!, { channel }) };
  });
});
