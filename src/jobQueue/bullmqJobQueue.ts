import { DelayedError, ErrorCode, Queue, UnrecoverableError, WaitingError, Worker, type Job as BullJob } from 'bullmq';
import { Redis } from 'ioredis';
import { assertNever } from '../domain/decider.js';
import type { Job, JobConsumer, JobOutcome, JobQueue, JobQueueSettings } from './jobQueue.js';

export interface BullmqJobQueueOptions extends JobQueueSettings {
  redisUrl: string;
  /** Prefix of every key of the queue (JOB_QUEUE_PREFIX), so that several services or test runs share one Redis. */
  prefix: string;
  /** Which named queue this is. */
  queue: string;
}

/** What is stored as a BullMQ job's data: ours, and what the manual retry for a later time needs. */
interface StoredJob {
  id: string;
  data: unknown;
  /** Set by a manual retry for a later time: a run started before it only puts the job off until then. */
  notBefore?: number;
  /** Starts that only put the job off, not counted as attempts. */
  deferrals?: number;
}

/** A thrown handler is run again after a fixed delay, as often as it takes (attempts is BullMQ's bound). */
const UNBOUNDED_ATTEMPTS = Number.MAX_SAFE_INTEGER;
/** A job whose worker dies is run again however often that happens; the handler sees the attempt number. */
const UNBOUNDED_STALLS = Number.MAX_SAFE_INTEGER;
const JOB_NAME = 'job';

/**
 * BullMQ ids may not look like integers nor hold ':', so ours are stored escaped behind a fixed prefix: a
 * one-to-one mapping, so that BullMQ's own deduplication by job id is ours.
 */
const bullmqJobId = (id: string) => `j-${encodeURIComponent(id)}`;

/** True for BullMQ's answer that a job is missing or not in the state a command expects. */
function isMissingOrElsewhere(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === ErrorCode.JobNotExist || code === ErrorCode.JobNotInState;
}

/**
 * Job queue on Redis through BullMQ (when REDIS_URL is set), so that worker processes on several machines
 * compete for one queue. A running job holds BullMQ's lock for `leaseMs`, renewed at half of it while the
 * handler runs; a worker that stops renewing (killed) has its job moved back to waiting by any worker's
 * stalled check, which runs every `leaseMs`. A `retry` outcome moves the job to delayed under the same id
 * (moveToDelayed and DelayedError), a thrown handler is BullMQ's own retry after `retryAfterErrorMs`, a
 * `failed` outcome an UnrecoverableError. The attempt number is BullMQ's count of starts.
 */
export function createBullmqJobQueue(options: BullmqJobQueueOptions): JobQueue {
  const reportError = options.onError ?? (() => {});
  /**
   * A connection of our own for the queue and for each worker (BullMQ adds a blocking one per worker), made
   * here because BullMQ can only make one itself where \`require\` exists. BullMQ's commands wait through a
   * reconnection instead of failing (maxRetriesPerRequest null, as it requires for workers).
   */
  const connect = () => {
    const client = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
    client.on('error', reportError);
    return client;
  };
  const queueConnection = connect();
  const queue = new Queue(options.queue, {
    connection: queueConnection,
    prefix: options.prefix,
    defaultJobOptions: {
      attempts: UNBOUNDED_ATTEMPTS,
      backoff: { type: 'fixed', delay: options.retryAfterErrorMs ?? options.leaseMs },
      removeOnComplete: { age: Math.ceil(options.completedRetentionMs / 1000) },
      removeOnFail: false,
      stackTraceLimit: 1,
    },
  });
  queue.on('error', reportError);
  const consumers = new Set<JobConsumer>();

  /**
   * Puts the job off until `timestamp`, or back at the head of the waiting jobs, without counting this start
   * as an attempt (the stored count of deferrals is taken off BullMQ's count of starts).
   */
  async function defer(bullJob: BullJob, token: string | undefined, timestamp?: number): Promise<never> {
    const stored = bullJob.data as StoredJob;
    await bullJob.updateData({ ...stored, deferrals: (stored.deferrals ?? 0) + 1 });
    if (timestamp === undefined) {
      await bullJob.moveToWait(token);
      throw new WaitingError();
    }
    await bullJob.moveToDelayed(timestamp, token);
    throw new DelayedError();
  }

  async function run(
    handler: (job: Job) => Promise<JobOutcome>,
    bullJob: BullJob,
    token: string | undefined,
    stopping: () => boolean,
  ): Promise<void> {
    const stored = bullJob.data as StoredJob;
    // A worker being closed still runs what its pending fetch brings in: handed back for another consumer.
    if (stopping()) return defer(bullJob, token);
    if (stored.notBefore !== undefined && stored.notBefore > Date.now()) return defer(bullJob, token, stored.notBefore);
    const outcome = await handler({ id: stored.id, data: stored.data, attempt: bullJob.attemptsStarted - (stored.deferrals ?? 0) });
    switch (outcome.status) {
      case 'completed':
        return;
      case 'retry':
        await bullJob.moveToDelayed(outcome.runAt.getTime(), token);
        throw new DelayedError();
      case 'failed':
        throw new UnrecoverableError(outcome.reason);
      default:
        assertNever(outcome);
    }
  }

  return {
    async add(jobs) {
      if (jobs.length === 0) return;
      const now = Date.now();
      await queue.addBulk(
        jobs.map((job) => ({
          name: JOB_NAME,
          data: { id: job.id, data: job.data ?? null } satisfies StoredJob,
          opts: { jobId: bullmqJobId(job.id), delay: Math.max(0, (job.runAt?.getTime() ?? now) - now) },
        })),
      );
    },

    consume(handler, { concurrency }): JobConsumer {
      if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a whole number of at least 1');
      let stopping = false;
      const workerConnection = connect();
      const worker = new Worker(options.queue, (bullJob, token) => run(handler, bullJob, token, () => stopping), {
        connection: workerConnection,
        prefix: options.prefix,
        concurrency,
        lockDuration: options.leaseMs,
        stalledInterval: options.leaseMs,
        maxStalledCount: UNBOUNDED_STALLS,
      });
      worker.on('error', reportError);
      let stopped: Promise<void> | undefined;
      const consumer: JobConsumer = {
        stop() {
          stopping = true;
          stopped ??= worker.close().finally(() => {
            consumers.delete(consumer);
            workerConnection.disconnect();
          });
          return stopped;
        },
      };
      consumers.add(consumer);
      return consumer;
    },

    async retry(jobId, runAt) {
      const bullJob = await queue.getJob(bullmqJobId(jobId));
      if (!bullJob || !(await bullJob.isFailed())) return false;
      if (runAt && runAt.getTime() > Date.now()) await bullJob.updateData({ ...(bullJob.data as StoredJob), notBefore: runAt.getTime() });
      try {
        await bullJob.retry('failed');
        return true;
      } catch (error) {
        // Retried or removed by someone else since it was read.
        if (isMissingOrElsewhere(error)) return false;
        throw error;
      }
    },

    async counts() {
      const counts = await queue.getJobCounts('wait', 'prioritized', 'delayed', 'active', 'failed', 'completed');
      return {
        waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0),
        delayed: counts.delayed ?? 0,
        active: counts.active ?? 0,
        failed: counts.failed ?? 0,
        completed: counts.completed ?? 0,
      };
    },

    async close() {
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      await queue.close();
      queueConnection.disconnect();
    },
  };
}
