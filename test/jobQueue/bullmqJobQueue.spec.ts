import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createBullmqJobQueue, type BullmqJobQueueOptions } from '../../src/jobQueue/bullmqJobQueue.js';
import type { JobQueue } from '../../src/jobQueue/jobQueue.js';
import { eventually } from '../support/eventually.js';
import { startConsumerProcess, type ConsumerProcess } from './consumerProcesses.js';
import { aJob, jobQueueContract, recordingHandler } from './jobQueueContract.js';

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) {
  console.warn('BullMQ job queue contract skipped: set REDIS_URL (e.g. redis://127.0.0.1:6379) to run it against a server.');
}

/** Every key this run writes starts with it, so the shared Redis is left as it was found. */
const prefix = `test-jobs-${randomUUID()}`;
let queues = 0;

function aQueue(overrides: Partial<BullmqJobQueueOptions> = {}): JobQueue {
  return createBullmqJobQueue({
    redisUrl: redisUrl!,
    prefix,
    queue: `queue-${++queues}`,
    leaseMs: 5_000,
    retryAfterErrorMs: 100,
    completedRetentionMs: 3_600_000,
    ...overrides,
  });
}

describe.skipIf(!redisUrl)('BullMQ job queue', () => {
  afterAll(async () => {
    const redis = new Redis(redisUrl!);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  });

  jobQueueContract('BullMQ', () => aQueue());

  it('when job ids look like integers or hold colons, then they are kept apart and returned as given', async () => {
    const queue = aQueue();
    const runs = recordingHandler();
    try {
      await queue.add([aJob('42'), aJob('evt_1:wh_2'), aJob('evt_1%3Awh_2')]);
      const consumer = queue.consume(runs.handler, { concurrency: 3 });
      await eventually('every job to complete', async () => (await queue.counts()).completed === 3);
      await consumer.stop();
      expect(runs.ids().sort()).toEqual(['42', 'evt_1%3Awh_2', 'evt_1:wh_2']);
    } finally {
      await queue.close();
    }
  });

  describe('across processes', () => {
    const children: ConsumerProcess[] = [];
    afterAll(() => children.forEach((child) => child.kill()));

    it('when the process running a job is killed -9, then the job runs again in another process once its lock expires', async () => {
      const settings = { queue: `killed-${randomUUID()}`, leaseMs: 1_000 };
      const queue = aQueue(settings);
      const runs = recordingHandler();
      try {
        await queue.add([aJob('survivor', { event: 'project.updated' })]);
        const doomed = startConsumerProcess({ ...settings, adapter: 'bullmq', redisUrl: redisUrl!, prefix, concurrency: 1, mode: 'hang' });
        children.push(doomed);
        await doomed.printed('started survivor 1');
        doomed.kill();
        expect(await doomed.exited).toBe('SIGKILL');
        expect(await queue.counts()).toMatchObject({ active: 1, completed: 0 });

        const consumer = queue.consume(runs.handler, { concurrency: 1 });
        await eventually('the job to complete in this process', async () => (await queue.counts()).completed === 1, { timeoutMs: 20_000 });
        await consumer.stop();
        expect(runs.of('survivor')).toEqual([{ id: 'survivor', data: { event: 'project.updated' }, attempt: 2 }]);
      } finally {
        await queue.close();
      }
    });
  });
});
