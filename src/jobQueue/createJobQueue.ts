import { join } from 'node:path';
import { createBullmqJobQueue } from './bullmqJobQueue.js';
import type { JobQueue, JobQueueName, JobQueueSettings } from './jobQueue.js';
import { createSqliteJobQueue } from './sqliteJobQueue.js';

export const JOBS_FILE_NAME = 'jobs.sqlite';

export interface JobQueueOptions extends JobQueueSettings {
  /** Set: BullMQ on this Redis, so that workers on several machines compete. Unset: SQLite in dataDir. */
  redisUrl?: string;
  dataDir: string;
  /** JOB_QUEUE_PREFIX: the Redis keys' prefix (BullMQ only). */
  prefix: string;
  /** The embedded adapter's clock (tests move it by hand); BullMQ keeps time by the machine's clock. */
  now?: () => Date;
}

/** The named queue on BullMQ when REDIS_URL is set, otherwise in DATA_DIR/jobs.sqlite (one file for every queue). */
export function createJobQueue(name: JobQueueName, options: JobQueueOptions): JobQueue {
  const { redisUrl, dataDir, prefix, now, ...settings } = options;
  if (redisUrl) return createBullmqJobQueue({ ...settings, redisUrl, prefix, queue: name });
  return createSqliteJobQueue({ ...settings, file: join(dataDir, JOBS_FILE_NAME), queue: name, ...(now ? { now } : {}) });
}
