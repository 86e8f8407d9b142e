/**
 * Job queue port: durable background jobs run at least once by competing consumers (webhook deliveries,
 * later PDFs), one named queue per kind of job. Adapters: embedded SQLite (`DATA_DIR/jobs.sqlite`, the
 * default) and BullMQ on Redis (REDIS_URL). Both pass test/jobQueue/jobQueueContract.ts.
 *
 * A running job holds a lease that its consumer renews while the handler runs. A process killed mid-job
 * stops renewing; once the lease expires another consumer runs the job again. So a handler may run a job
 * more than once, and must be safe to: the job id is stable across every run.
 */
export interface JobQueue {
  /** Adds jobs; a job id already known (any state, within retention) is not added again. */
  add(jobs: readonly NewJob[]): Promise<void>;
  /**
   * Runs `handler` on due jobs, earliest `runAt` first, at most `concurrency` at a time in this consumer. A
   * handler that throws is treated as an outcome not recorded: the job is run again later.
   */
  consume(handler: (job: Job) => Promise<JobOutcome>, options: { concurrency: number }): JobConsumer;
  /** A failed job back to waiting (manual retry), at `runAt` or now; false when unknown or not failed. */
  retry(jobId: string, runAt?: Date): Promise<boolean>;
  /** `waiting` counts due jobs, `delayed` jobs whose time has not come. */
  counts(): Promise<JobCounts>;
  /** Stops every consumer of this queue (each finishes its running handlers), then lets go of the store. */
  close(): Promise<void>;
}

export interface NewJob {
  id: string;
  /** Anything JSON can carry. */
  data: unknown;
  /** Not run before this; absent = now. */
  runAt?: Date;
}

export interface Job {
  id: string;
  data: unknown;
  /** 1 on the first run, +1 on each later one (retry outcome, thrown handler, expired lease, manual retry). */
  attempt: number;
}

export type JobOutcome = { status: 'completed' } | { status: 'retry'; runAt: Date } | { status: 'failed'; reason: string };

export interface JobConsumer {
  /** Takes no new job and resolves once the handlers running have finished and their outcomes are recorded. */
  stop(): Promise<void>;
}

export interface JobCounts {
  waiting: number;
  delayed: number;
  active: number;
  failed: number;
  completed: number;
}

/** The queues the service runs, one per kind of job: each adapter keeps them apart in one store. */
export const JOB_QUEUE_NAMES = ['webhook-deliveries', 'pdf-renders'] as const;
export type JobQueueName = (typeof JOB_QUEUE_NAMES)[number];

/** What both adapters are tuned with (JOB_* variables). */
export interface JobQueueSettings {
  /** How long a run may go without its consumer renewing its lease before another consumer may take the job. */
  leaseMs: number;
  /** How long completed jobs are kept, so that re-adding their id is still ignored. */
  completedRetentionMs: number;
  /** When a handler throws, how long until the job is run again. Default: one lease. */
  retryAfterErrorMs?: number;
  /** Store failures a consumer met and survived (it carries on), for the log. */
  onError?: (error: unknown) => void;
}
