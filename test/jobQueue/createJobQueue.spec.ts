import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createJobQueue } from '../../src/jobQueue/createJobQueue.js';
import { eventually } from '../support/eventually.js';
import { aJob, recordingHandler } from './jobQueueContract.js';

const dataDir = mkdtempSync(join(tmpdir(), 'create-job-queue-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('when REDIS_URL is not set, then the named queue is kept in DATA_DIR/jobs.sqlite', async () => {
  const settings = { dataDir, prefix: 'catalogue', leaseMs: 5_000, completedRetentionMs: 3_600_000 };
  const deliveries = createJobQueue('webhook-deliveries', settings);
  const runs = recordingHandler();
  try {
    expect(existsSync(join(dataDir, 'jobs.sqlite'))).toBe(true);
    await deliveries.add([aJob('delivery-1')]);
    const consumer = deliveries.consume(runs.handler, { concurrency: 1 });
    await eventually('the job to complete', async () => (await deliveries.counts()).completed === 1);
    await consumer.stop();
    expect(runs.ids()).toEqual(['delivery-1']);
  } finally {
    await deliveries.close();
  }
});
