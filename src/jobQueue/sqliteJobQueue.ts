import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { createPrivateDatabaseFile, makePrivateDirSync } from '../dataDir.js';
import { assertNever } from '../domain/decider.js';
import type { Job, JobConsumer, JobCounts, JobOutcome, JobQueue, JobQueueSettings, NewJob } from './jobQueue.js';

export const DEFAULT_POLL_INTERVAL_MS = 250;
const BUSY_TIMEOUT_MS = 5000;
/** Completed jobs past retention are deleted at most this often (by the queue's clock). */
const PRUNE_EVERY_MS = 60_000;
/** A lease is renewed this many times per lease, so one late timer does not lose it. */
const RENEWALS_PER_LEASE = 3;

/**
 * One table for every named queue in the file. Times are milliseconds since the epoch by the queue's clock.
 * A job is due when it is waiting and its run_at has come, or active with a lease nobody renewed in time.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS jobs (
    queue TEXT NOT NULL,
    id TEXT NOT NULL,
    data TEXT NOT NULL,
    run_at INTEGER NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL CHECK (state IN ('waiting', 'active', 'completed', 'failed')),
    lease_owner TEXT,
    lease_until INTEGER,
    last_error TEXT,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (queue, id)
  );
  CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (queue, state, run_at);
  CREATE INDEX IF NOT EXISTS jobs_leases ON jobs (queue, lease_until) WHERE state = 'active';
  CREATE INDEX IF NOT EXISTS jobs_completed ON jobs (queue, updated_at) WHERE state = 'completed';
`;

export interface SqliteJobQueueOptions extends JobQueueSettings {
  /** The database file (DATA_DIR/jobs.sqlite), created owner-only, which several processes may share; or `:memory:`. */
  file: string;
  /** Which named queue of the file this is. */
  queue: string;
  now?: () => Date;
  /** How often a consumer looks for due jobs that were not added through this queue object. */
  pollIntervalMs?: number;
}

interface ClaimedRow {
  id: string;
  data: string;
  attempt: number;
  run_at: number;
  seq: number;
}

interface Run {
  job: Job;
  /** The lease token this run holds: every write about the job is guarded by it. */
  owner: string;
  finished: Promise<void>;
}

/**
 * Embedded job queue: one SQLite file in WAL mode, shared by every process on the machine that opens it.
 * Claiming is one UPDATE ... RETURNING in a write transaction, so two consumers never take the same job
 * at once; every later write about a job names the lease token it was claimed with, so a consumer that
 * lost its lease (it stalled past it and another took the job) cannot overwrite the newer run's outcome.
 */
export function createSqliteJobQueue(options: SqliteJobQueueOptions): JobQueue {
  const now = options.now ?? (() => new Date());
  const queue = options.queue;
  const leaseMs = options.leaseMs;
  const retryAfterErrorMs = options.retryAfterErrorMs ?? leaseMs;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const reportError = options.onError ?? (() => {});

  if (options.file !== ':memory:') makePrivateDirSync(dirname(options.file));
  createPrivateDatabaseFile(options.file);
  const db = new Database(options.file);
  // Set first: switching a new file to WAL takes a lock that other processes opening it may hold.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);

  const insertJob = db.prepare<[string, string, string, number, number]>(
    `INSERT INTO jobs (queue, id, data, run_at, state, updated_at) VALUES (?, ?, ?, ?, 'waiting', ?) ON CONFLICT DO NOTHING`,
  );
  // Each side is limited on its own index first, so a backlog of due jobs costs a claim no sort of all of them.
  const claimDue = db.prepare<{ queue: string; owner: string; now: number; leaseUntil: number; limit: number }, ClaimedRow>(`
    UPDATE jobs SET state = 'active', attempt = attempt + 1, lease_owner = @owner, lease_until = @leaseUntil, updated_at = @now
    WHERE rowid IN (
      SELECT seq FROM (
        SELECT * FROM (
          SELECT rowid AS seq, run_at FROM jobs WHERE queue = @queue AND state = 'waiting' AND run_at <= @now
          ORDER BY run_at, rowid LIMIT @limit
        )
        UNION ALL
        SELECT * FROM (
          SELECT rowid AS seq, run_at FROM jobs WHERE queue = @queue AND state = 'active' AND lease_until <= @now LIMIT @limit
        )
        ORDER BY run_at, seq LIMIT @limit
      )
    )
    RETURNING id, data, attempt, run_at, rowid AS seq
  `);
  const renewLease = db.prepare<{ queue: string; id: string; owner: string; leaseUntil: number }>(
    `UPDATE jobs SET lease_until = @leaseUntil WHERE queue = @queue AND id = @id AND state = 'active' AND lease_owner = @owner`,
  );
  const finishRun = db.prepare<{
    queue: string;
    id: string;
    owner: string;
    state: 'waiting' | 'completed' | 'failed';
    runAt: number | null;
    error: string | null;
    now: number;
  }>(`
    UPDATE jobs SET state = @state, run_at = coalesce(@runAt, run_at), last_error = @error,
      lease_owner = NULL, lease_until = NULL, updated_at = @now
    WHERE queue = @queue AND id = @id AND state = 'active' AND lease_owner = @owner
  `);
  const retryFailed = db.prepare<{ queue: string; id: string; runAt: number; now: number }>(
    `UPDATE jobs SET state = 'waiting', run_at = @runAt, updated_at = @now WHERE queue = @queue AND id = @id AND state = 'failed'`,
  );
  const countByState = db
    .prepare<[string], [state: string, count: number]>('SELECT state, count(*) FROM jobs WHERE queue = ? GROUP BY state')
    .raw(true);
  const countDelayed = db
    .prepare<[string, number], number>(`SELECT count(*) FROM jobs WHERE queue = ? AND state = 'waiting' AND run_at > ?`)
    .pluck();
  const pruneCompleted = db.prepare<[string, number]>(`DELETE FROM jobs WHERE queue = ? AND state = 'completed' AND updated_at < ?`);

  /** Takes the write lock up front so that processes sharing the file wait their turn instead of failing. */
  const write = <Args extends unknown[], Result>(work: (...args: Args) => Result) => {
    const transaction = db.transaction(work);
    return (...args: Args): Result => transaction.immediate(...args);
  };

  let prunedAt = -Infinity;
  const pruneIfDue = write((at: number) => {
    if (at - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = at;
    pruneCompleted.run(queue, at - options.completedRetentionMs);
  });
  const addAll = write((jobs: readonly NewJob[], at: number) => {
    let due = false;
    for (const job of jobs) {
      const runAt = job.runAt?.getTime() ?? at;
      const added = insertJob.run(queue, job.id, JSON.stringify(job.data ?? null), runAt, at).changes > 0;
      due ||= added && runAt <= at;
    }
    return due;
  });
  const claim = write((limit: number, owner: string): ClaimedRow[] => {
    const at = now().getTime();
    return claimDue.all({ queue, owner, now: at, leaseUntil: at + leaseMs, limit });
  });
  const finish = write(
    (run: Run, state: 'waiting' | 'completed' | 'failed', runAt: number | null, error: string | null) =>
      finishRun.run({ queue, id: run.job.id, owner: run.owner, state, runAt, error, now: now().getTime() }).changes > 0,
  );

  const consumers = new Set<SqliteConsumer>();
  let closed = false;

  class SqliteConsumer implements JobConsumer {
    private readonly runs = new Set<Run>();
    private stopping = false;
    private pumpQueued = false;
    private readonly pollTimer: NodeJS.Timeout;
    private readonly renewTimer: NodeJS.Timeout;
    private stopped: Promise<void> | undefined;

    constructor(
      private readonly handler: (job: Job) => Promise<JobOutcome>,
      private readonly concurrency: number,
    ) {
      this.pollTimer = setInterval(() => this.pump(), pollIntervalMs);
      this.renewTimer = setInterval(() => this.renewLeases(), Math.max(1, Math.floor(leaseMs / RENEWALS_PER_LEASE)));
      this.wake();
    }

    /** Looks for due jobs on the next turn of the event loop (several wake-ups in one turn make one look). */
    wake(): void {
      if (this.pumpQueued || this.stopping) return;
      this.pumpQueued = true;
      setImmediate(() => {
        this.pumpQueued = false;
        this.pump();
      });
    }

    private pump(): void {
      if (this.stopping) return;
      const free = this.concurrency - this.runs.size;
      if (free <= 0) return;
      try {
        pruneIfDue(now().getTime());
        const owner = randomUUID();
        const claimed = claim(free, owner).sort((a, b) => a.run_at - b.run_at || a.seq - b.seq);
        for (const row of claimed) this.start({ id: row.id, data: JSON.parse(row.data) as unknown, attempt: row.attempt }, owner);
      } catch (error) {
        reportError(error);
      }
    }

    private start(job: Job, owner: string): void {
      const run: Run = { job, owner, finished: Promise.resolve() };
      run.finished = this.runHandler(run).finally(() => {
        this.runs.delete(run);
        this.wake();
      });
      this.runs.add(run);
    }

    private async runHandler(run: Run): Promise<void> {
      let outcome: JobOutcome | null;
      let thrown: unknown;
      try {
        outcome = await this.handler(run.job);
      } catch (error) {
        outcome = null;
        thrown = error;
      }
      try {
        if (outcome === null) {
          const message = thrown instanceof Error ? thrown.message : String(thrown);
          finish(run, 'waiting', now().getTime() + retryAfterErrorMs, message);
          return;
        }
        switch (outcome.status) {
          case 'completed':
            finish(run, 'completed', null, null);
            return;
          case 'retry':
            finish(run, 'waiting', outcome.runAt.getTime(), null);
            return;
          case 'failed':
            finish(run, 'failed', null, outcome.reason);
            return;
          default:
            assertNever(outcome);
        }
      } catch (error) {
        // The outcome is not recorded: the lease runs out and the job is run again.
        reportError(error);
      }
    }

    private renewLeases(): void {
      if (this.runs.size === 0) return;
      try {
        const leaseUntil = now().getTime() + leaseMs;
        for (const run of this.runs) renewLease.run({ queue, id: run.job.id, owner: run.owner, leaseUntil });
      } catch (error) {
        reportError(error);
      }
    }

    stop(): Promise<void> {
      this.stopped ??= (async () => {
        this.stopping = true;
        clearInterval(this.pollTimer);
        await Promise.all([...this.runs].map((run) => run.finished));
        clearInterval(this.renewTimer);
        consumers.delete(this);
      })();
      return this.stopped;
    }
  }

  return {
    async add(jobs) {
      if (jobs.length === 0) return;
      const at = now().getTime();
      pruneIfDue(at);
      if (addAll(jobs, at)) for (const consumer of consumers) consumer.wake();
    },

    consume(handler, { concurrency }) {
      if (closed) throw new Error(`job queue ${queue} is closed`);
      if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a whole number of at least 1');
      const consumer = new SqliteConsumer(handler, concurrency);
      consumers.add(consumer);
      return consumer;
    },

    async retry(jobId, runAt) {
      const at = now().getTime();
      const retried = retryFailed.run({ queue, id: jobId, runAt: runAt?.getTime() ?? at, now: at }).changes > 0;
      if (retried) for (const consumer of consumers) consumer.wake();
      return retried;
    },

    async counts() {
      const counts: JobCounts = { waiting: 0, delayed: 0, active: 0, failed: 0, completed: 0 };
      const read = db.transaction(() => {
        for (const [state, count] of countByState.all(queue)) {
          if (state === 'waiting' || state === 'active' || state === 'failed' || state === 'completed') counts[state] = count;
        }
        counts.delayed = countDelayed.get(queue, now().getTime())!;
        counts.waiting -= counts.delayed;
      });
      read();
      return counts;
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      db.close();
    },
  };
}
