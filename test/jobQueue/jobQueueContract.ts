import { describe, expect, it } from 'vitest';
import type { Job, JobOutcome, JobQueue } from '../../src/jobQueue/jobQueue.js';
import { eventually } from '../support/eventually.js';

/**
 * What every JobQueue adapter must do; each adapter's spec calls this with a factory that opens a queue of
 * its own (fresh name or prefix) on the real clock, with a lease of a few seconds and a thrown handler's job
 * run again after about 100 ms.
 */
export function jobQueueContract(name: string, open: () => Promise<JobQueue> | JobQueue): void {
  describe(`JobQueue contract: ${name}`, () => {
    async function withQueue(test: (queue: JobQueue) => Promise<void>): Promise<void> {
      const queue = await open();
      try {
        await test(queue);
      } finally {
        await queue.close();
      }
    }

    it('when a job id is added twice, before and after it ran, then it runs once with the data it was first added with', () =>
      withQueue(async (queue) => {
        const runs = recordingHandler();
        await queue.add([aJob('a', { version: 1 }), aJob('b')]);
        await queue.add([aJob('a', { version: 2 })]);
        const consumer = queue.consume(runs.handler, { concurrency: 2 });
        await eventually('both jobs to complete', async () => (await queue.counts()).completed === 2);
        await queue.add([aJob('a', { version: 3 }), aJob('b')]);
        await queue.add([aJob('c')]);
        await eventually('the new job to complete', async () => (await queue.counts()).completed === 3);
        await consumer.stop();
        expect(runs.ids().sort()).toEqual(['a', 'b', 'c']);
        expect(runs.of('a')).toEqual([{ id: 'a', data: { version: 1 }, attempt: 1 }]);
      }));

    it('when jobs fall due at different times, then one consumer at a time runs them in due order, never early', () =>
      withQueue(async (queue) => {
        const runs = recordingHandler();
        const start = Date.now();
        const late = new Date(start + 900);
        const early = new Date(start + 400);
        await queue.add([aJob('late', {}, late)]);
        await queue.add([aJob('early', {}, early)]);
        await queue.add([aJob('now-1'), aJob('now-2'), aJob('now-3')]);
        const consumer = queue.consume(runs.handler, { concurrency: 1 });
        await eventually('every job to complete', async () => (await queue.counts()).completed === 5);
        await consumer.stop();
        expect(runs.ids()).toEqual(['now-1', 'now-2', 'now-3', 'early', 'late']);
        expect(runs.startedAt('early')).toBeGreaterThanOrEqual(early.getTime());
        expect(runs.startedAt('late')).toBeGreaterThanOrEqual(late.getTime());
      }));

    it('when a job is due in an hour, then it is counted as delayed and not run while due jobs are', () =>
      withQueue(async (queue) => {
        const runs = recordingHandler();
        await queue.add([aJob('later', {}, new Date(Date.now() + 3_600_000)), aJob('due')]);
        const consumer = queue.consume(runs.handler, { concurrency: 2 });
        await eventually('the due job to complete', async () => (await queue.counts()).completed === 1);
        await consumer.stop();
        expect(runs.ids()).toEqual(['due']);
        expect(await queue.counts()).toEqual({ waiting: 0, delayed: 1, active: 0, failed: 0, completed: 1 });
      }));

    it('when a handler answers retry, then the same job runs again at that time with its data and the next attempt number', () =>
      withQueue(async (queue) => {
        const retryAts: number[] = [];
        const runs = recordingHandler((job) => {
          if (job.attempt > 2) return { status: 'completed' };
          retryAts.push(Date.now() + 150);
          return { status: 'retry', runAt: new Date(retryAts.at(-1)!) };
        });
        await queue.add([aJob('flaky', { to: 'receiver' })]);
        const consumer = queue.consume(runs.handler, { concurrency: 1 });
        await eventually('the third attempt to complete', async () => (await queue.counts()).completed === 1);
        await consumer.stop();
        expect(runs.of('flaky')).toEqual([1, 2, 3].map((attempt) => ({ id: 'flaky', data: { to: 'receiver' }, attempt })));
        expect(runs.startedAt('flaky', 2)).toBeGreaterThanOrEqual(retryAts[0]!);
        expect(runs.startedAt('flaky', 3)).toBeGreaterThanOrEqual(retryAts[1]!);
      }));

    it('when a handler answers failed, then the job stays failed until a manual retry runs it again', () =>
      withQueue(async (queue) => {
        const runs = recordingHandler((job) =>
          job.attempt === 1 ? { status: 'failed', reason: 'receiver gone' } : { status: 'completed' },
        );
        await queue.add([aJob('doomed')]);
        const consumer = queue.consume(runs.handler, { concurrency: 1 });
        await eventually('the job to fail', async () => (await queue.counts()).failed === 1);
        expect(await queue.retry('unknown')).toBe(false);
        expect(runs.of('doomed')).toHaveLength(1);

        expect(await queue.retry('doomed')).toBe(true);
        expect(await queue.retry('doomed')).toBe(false);
        await eventually('the retried job to complete', async () => (await queue.counts()).completed === 1);
        await consumer.stop();
        expect(runs.of('doomed').map((run) => run.attempt)).toEqual([1, 2]);
        expect(await queue.counts()).toMatchObject({ failed: 0, completed: 1 });
        expect(await queue.retry('doomed')).toBe(false);
      }));

    it('when a failed job is retried for a later time, then it is delayed until then', () =>
      withQueue(async (queue) => {
        const runs = recordingHandler((job) => (job.attempt === 1 ? { status: 'failed', reason: 'no' } : { status: 'completed' }));
        await queue.add([aJob('later')]);
        const consumer = queue.consume(runs.handler, { concurrency: 1 });
        await eventually('the job to fail', async () => (await queue.counts()).failed === 1);
        const runAt = new Date(Date.now() + 400);
        expect(await queue.retry('later', runAt)).toBe(true);
        await eventually('the retried job to complete', async () => (await queue.counts()).completed === 1);
        await consumer.stop();
        expect(runs.startedAt('later', 2)).toBeGreaterThanOrEqual(runAt.getTime());
        expect(runs.of('later').map((run) => run.attempt)).toEqual([1, 2]);
      }));

    it('when a handler throws, then the job is run again with the next attempt number', () =>
      withQueue(async (queue) => {
        const runs = recordingHandler((job) => {
          if (job.attempt === 1) throw new Error('socket hang up');
          return { status: 'completed' };
        });
        await queue.add([aJob('thrown')]);
        const consumer = queue.consume(runs.handler, { concurrency: 1 });
        await eventually('the second attempt to complete', async () => (await queue.counts()).completed === 1);
        await consumer.stop();
        expect(runs.of('thrown').map((run) => run.attempt)).toEqual([1, 2]);
        expect(await queue.counts()).toMatchObject({ failed: 0, completed: 1 });
      }));

    it('when more jobs are due than the concurrency, then no more than that many run at once, and all of them run', () =>
      withQueue(async (queue) => {
        let running = 0;
        let mostAtOnce = 0;
        const runs = recordingHandler(async () => {
          running++;
          mostAtOnce = Math.max(mostAtOnce, running);
          await pause(30);
          running--;
          return { status: 'completed' };
        });
        await queue.add(Array.from({ length: 12 }, (_, index) => aJob(`job-${index}`)));
        const consumer = queue.consume(runs.handler, { concurrency: 3 });
        await eventually('every job to complete', async () => (await queue.counts()).completed === 12);
        await consumer.stop();
        expect(mostAtOnce).toBe(3);
        expect(runs.ids()).toHaveLength(12);
      }));

    it('when two consumers share a queue, then each job runs once', () =>
      withQueue(async (queue) => {
        const runs = recordingHandler(async () => {
          await pause(5);
          return { status: 'completed' };
        });
        await queue.add(Array.from({ length: 30 }, (_, index) => aJob(`shared-${index}`)));
        const consumers = [queue.consume(runs.handler, { concurrency: 4 }), queue.consume(runs.handler, { concurrency: 4 })];
        await eventually('every job to complete', async () => (await queue.counts()).completed === 30);
        await Promise.all(consumers.map((consumer) => consumer.stop()));
        expect(runs.ids().sort()).toEqual(Array.from({ length: 30 }, (_, index) => `shared-${index}`).sort());
      }));

    it('when a consumer is stopped mid-job, then stop waits for the handler and its outcome, and takes no new job', () =>
      withQueue(async (queue) => {
        const release = deferred();
        const runs = recordingHandler(async () => {
          await release.promise;
          return { status: 'completed' };
        });
        await queue.add([aJob('slow')]);
        const consumer = queue.consume(runs.handler, { concurrency: 2 });
        await eventually('the job to start', () => runs.ids().length === 1);
        let stopped = false;
        const stopping = consumer.stop().then(() => (stopped = true));
        await queue.add([aJob('after-stop')]);
        await pause(100);
        expect(stopped).toBe(false);
        release.resolve();
        await stopping;
        expect(await queue.counts()).toEqual({ waiting: 1, delayed: 0, active: 0, failed: 0, completed: 1 });
        expect(runs.ids()).toEqual(['slow']);
      }));

    it('when jobs are in every state, then counts tells them apart', () =>
      withQueue(async (queue) => {
        const release = deferred();
        const handler = async (job: Job): Promise<JobOutcome> => {
          if (job.id.startsWith('fail')) return { status: 'failed', reason: 'refused' };
          if (job.id.startsWith('hold')) await release.promise;
          return { status: 'completed' };
        };
        expect(await queue.counts()).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0, completed: 0 });
        await queue.add([aJob('done'), aJob('fail-1'), aJob('fail-2'), aJob('hold')]);
        await queue.add([aJob('delayed-1', {}, new Date(Date.now() + 3_600_000)), aJob('delayed-2', {}, new Date(Date.now() + 3_600_000))]);
        expect(await queue.counts()).toEqual({ waiting: 4, delayed: 2, active: 0, failed: 0, completed: 0 });
        const consumer = queue.consume(handler, { concurrency: 4 });
        const counted = await eventually('the running jobs to settle', async () => {
          const counts = await queue.counts();
          return counts.completed === 1 && counts.failed === 2 && counts;
        });
        expect(counted).toEqual({ waiting: 0, delayed: 2, active: 1, failed: 2, completed: 1 });
        release.resolve();
        await consumer.stop();
        expect(await queue.counts()).toEqual({ waiting: 0, delayed: 2, active: 0, failed: 2, completed: 2 });
      }));
  });
}

export function aJob(id: string, data: unknown = { id }, runAt?: Date) {
  return runAt ? { id, data, runAt } : { id, data };
}

interface RecordedRun extends Job {
  startedAt: number;
}

/** A handler that records every run (in start order), answering what `answer` says (completed by default). */
export function recordingHandler(answer: (job: Job) => JobOutcome | Promise<JobOutcome> = () => ({ status: 'completed' })) {
  const runs: RecordedRun[] = [];
  return {
    handler: async (job: Job): Promise<JobOutcome> => {
      runs.push({ ...job, startedAt: Date.now() });
      return answer(job);
    },
    ids: () => runs.map((run) => run.id),
    of: (id: string): Job[] => runs.filter((run) => run.id === id).map(({ id, data, attempt }) => ({ id, data, attempt })),
    startedAt: (id: string, attempt = 1) => runs.find((run) => run.id === id && run.attempt === attempt)?.startedAt,
  };
}

export function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
