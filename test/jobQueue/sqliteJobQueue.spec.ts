import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { JobQueue } from '../../src/jobQueue/jobQueue.js';
import { createSqliteJobQueue, type SqliteJobQueueOptions } from '../../src/jobQueue/sqliteJobQueue.js';
import { eventually } from '../support/eventually.js';
import { startConsumerProcess, type ConsumerProcess } from './consumerProcesses.js';
import { aJob, deferred, jobQueueContract, pause, recordingHandler } from './jobQueueContract.js';

const tempDir = mkdtempSync(join(tmpdir(), 'sqlite-job-queue-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

const HOUR = 3_600_000;
let queues = 0;

/** A queue of its own name in a shared file (or the file given), on the real clock unless one is given. */
function aQueue(overrides: Partial<SqliteJobQueueOptions> = {}): JobQueue {
  return createSqliteJobQueue({
    file: join(tempDir, 'jobs.sqlite'),
    queue: `queue-${++queues}`,
    leaseMs: 5_000,
    retryAfterErrorMs: 100,
    completedRetentionMs: 24 * HOUR,
    pollIntervalMs: 50,
    ...overrides,
  });
}

/** A clock the test moves by hand. */
function aClock(start = '2026-03-01T08:00:00Z') {
  let current = new Date(start).getTime();
  return { now: () => new Date(current), advance: (ms: number) => (current += ms), at: (ms: number) => new Date(current + ms) };
}

jobQueueContract('embedded SQLite', () => aQueue());

describe('embedded SQLite job queue', () => {
  it('when the queue opens a new file, then the file is owner-only and in WAL mode', async () => {
    const file = join(tempDir, 'private', 'jobs.sqlite');
    const queue = aQueue({ file });
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const db = new Database(file, { readonly: true });
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      db.close();
    } finally {
      await queue.close();
    }
  });

  it('when jobs fell due at different past times, then they run earliest first', async () => {
    const clock = aClock();
    const queue = aQueue({ now: clock.now });
    const runs = recordingHandler();
    try {
      await queue.add([aJob('third', {}, clock.at(-1_000)), aJob('first', {}, clock.at(-3_000))]);
      await queue.add([aJob('second', {}, clock.at(-2_000)), aJob('fourth')]);
      const consumer = queue.consume(runs.handler, { concurrency: 1 });
      await eventually('every job to complete', async () => (await queue.counts()).completed === 4);
      await consumer.stop();
      expect(runs.ids()).toEqual(['first', 'second', 'third', 'fourth']);
    } finally {
      await queue.close();
    }
  });

  it('when a job is due later by the injected clock, then it runs once that clock reaches its time', async () => {
    const clock = aClock();
    const queue = aQueue({ now: clock.now });
    const runs = recordingHandler();
    try {
      await queue.add([aJob('in-five-seconds', {}, clock.at(5_000))]);
      const consumer = queue.consume(runs.handler, { concurrency: 1 });
      await pause(200);
      expect(runs.ids()).toEqual([]);
      expect(await queue.counts()).toMatchObject({ waiting: 0, delayed: 1 });
      clock.advance(4_999);
      await pause(200);
      expect(runs.ids()).toEqual([]);
      clock.advance(1);
      await eventually('the job to complete', async () => (await queue.counts()).completed === 1);
      await consumer.stop();
    } finally {
      await queue.close();
    }
  });

  it('when a completed job id is added again, then it is ignored within the retention and added once it is pruned', async () => {
    const clock = aClock();
    const queue = aQueue({ now: clock.now, completedRetentionMs: 24 * HOUR });
    const runs = recordingHandler();
    try {
      const consumer = queue.consume(runs.handler, { concurrency: 1 });
      await queue.add([aJob('once', { round: 1 })]);
      await eventually('the job to complete', async () => (await queue.counts()).completed === 1);
      clock.advance(23 * HOUR);
      await queue.add([aJob('once', { round: 2 })]);
      expect(await queue.counts()).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0, completed: 1 });

      clock.advance(2 * HOUR);
      await queue.add([aJob('once', { round: 3 })]);
      await eventually('the job added again to complete', async () => runs.ids().length === 2 && (await queue.counts()).completed === 1);
      await consumer.stop();
      expect(runs.of('once')).toEqual([
        { id: 'once', data: { round: 1 }, attempt: 1 },
        { id: 'once', data: { round: 3 }, attempt: 1 },
      ]);
    } finally {
      await queue.close();
    }
  });

  it('when a handler runs past its lease, then another consumer runs the job, and the first one cannot overwrite its outcome', async () => {
    const clock = aClock();
    const file = join(tempDir, 'lost-lease.sqlite');
    const first = aQueue({ file, queue: 'deliveries', now: clock.now, leaseMs: 60_000 });
    const second = aQueue({ file, queue: 'deliveries', now: clock.now, leaseMs: 60_000 });
    const release = deferred();
    const stalled = recordingHandler(async () => {
      await release.promise;
      return { status: 'failed', reason: 'too late to say' };
    });
    const healthy = recordingHandler();
    try {
      await first.add([aJob('contested')]);
      const stalledConsumer = first.consume(stalled.handler, { concurrency: 1 });
      await eventually('the first consumer to start the job', () => stalled.ids().length === 1);

      const healthyConsumer = second.consume(healthy.handler, { concurrency: 1 });
      await pause(150);
      expect(healthy.ids()).toEqual([]);
      clock.advance(60_000);
      await eventually('the second consumer to complete the job', async () => (await second.counts()).completed === 1);
      expect(healthy.of('contested')).toEqual([{ id: 'contested', data: { id: 'contested' }, attempt: 2 }]);

      release.resolve();
      await stalledConsumer.stop();
      await healthyConsumer.stop();
      expect(await first.counts()).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0, completed: 1 });
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('when a handler runs longer than its lease, then the lease is renewed and no other consumer takes the job', async () => {
    const file = join(tempDir, 'renewed-lease.sqlite');
    const first = aQueue({ file, queue: 'deliveries', leaseMs: 300 });
    const second = aQueue({ file, queue: 'deliveries', leaseMs: 300 });
    const slow = recordingHandler(async () => {
      await pause(1_200);
      return { status: 'completed' };
    });
    const other = recordingHandler();
    try {
      await first.add([aJob('long')]);
      const slowConsumer = first.consume(slow.handler, { concurrency: 1 });
      await eventually('the job to start', () => slow.ids().length === 1);
      const otherConsumer = second.consume(other.handler, { concurrency: 1 });
      await eventually('the job to complete', async () => (await first.counts()).completed === 1);
      await Promise.all([slowConsumer.stop(), otherConsumer.stop()]);
      expect(other.ids()).toEqual([]);
      expect(slow.of('long')).toHaveLength(1);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('embedded SQLite job queue across processes', () => {
  const children: ConsumerProcess[] = [];
  afterAll(() => children.forEach((child) => child.kill()));

  it('when two processes compete for one file, then no job runs twice at once and every job completes', async () => {
    const dir = mkdtempSync(join(tempDir, 'competing-'));
    const file = join(dir, 'jobs.sqlite');
    const recordFile = join(dir, 'runs.sqlite');
    const queue = aQueue({ file, queue: 'deliveries' });
    try {
      const ids = Array.from({ length: 200 }, (_, index) => `delivery-${index}`);
      await queue.add(ids.map((id) => aJob(id)));
      const settings = { adapter: 'sqlite', file, queue: 'deliveries', leaseMs: 5_000, concurrency: 4 } as const;
      const pair = [0, 1].map(() => startConsumerProcess({ ...settings, mode: 'record', recordFile, workMs: 10, waitForGo: true }));
      children.push(...pair);
      await Promise.all(pair.map((child) => child.printed('loaded')));
      for (const child of pair) child.child.stdin!.write('go\n');

      await eventually('every job to complete', async () => (await queue.counts()).completed === 200, { timeoutMs: 25_000 });
      pair.forEach((child) => child.kill());

      const runs = new Database(recordFile, { readonly: true });
      const overlaps = runs.prepare('SELECT id FROM overlaps').all();
      const done = runs.prepare<[], { id: string; pid: number }>('SELECT id, pid FROM done').all();
      runs.close();
      expect(overlaps).toEqual([]);
      expect(done.map((run) => run.id).sort()).toEqual([...ids].sort());
      expect(new Set(done.map((run) => run.pid))).toEqual(new Set(pair.map((child) => child.child.pid)));
    } finally {
      await queue.close();
    }
  });

  it('when the process running a job is killed -9, then the job runs again in another process once its lease expires', async () => {
    const file = join(mkdtempSync(join(tempDir, 'killed-')), 'jobs.sqlite');
    const queue = aQueue({ file, queue: 'deliveries', leaseMs: 1_000 });
    const runs = recordingHandler();
    try {
      await queue.add([aJob('survivor', { event: 'project.updated' })]);
      const doomed = startConsumerProcess({ adapter: 'sqlite', file, queue: 'deliveries', leaseMs: 1_000, concurrency: 1, mode: 'hang' });
      children.push(doomed);
      await doomed.printed('started survivor 1');
      doomed.kill();
      expect(await doomed.exited).toBe('SIGKILL');
      expect(await queue.counts()).toMatchObject({ active: 1, completed: 0 });

      const consumer = queue.consume(runs.handler, { concurrency: 1 });
      await eventually('the job to complete in this process', async () => (await queue.counts()).completed === 1);
      await consumer.stop();
      expect(runs.of('survivor')).toEqual([{ id: 'survivor', data: { event: 'project.updated' }, attempt: 2 }]);
    } finally {
      await queue.close();
    }
  });
});
