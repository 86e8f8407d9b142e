import type { Redis } from 'ioredis';
import { createRedisClient } from '../cache/redisClient.js';

/**
 * Word from the worker that a brochure's outcome (its PDF record, or a failure) is in the read store, so that
 * a request waiting for it looks at once instead of on its next poll. A notice only shortens the wait: the
 * record is what answers, and a notice that never comes (lost, or no channel between the processes) leaves
 * the poll to find the outcome. Adapters: in process (every role in one process) and Redis pub/sub
 * (REDIS_URL: replicas hear the workers of every process).
 */
export interface PdfRenderNotices {
  /** The outcome of `fingerprint` is stored. */
  announce(fingerprint: string): void;
  /** Resolves once `fingerprint` is announced, or after `ms`, whichever comes first. */
  wait(fingerprint: string, ms: number): Promise<void>;
  close(): Promise<void>;
}

/** The waiters of one process, by fingerprint. */
class LocalWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  wake(fingerprint: string): void {
    const waiters = this.waiting.get(fingerprint);
    if (!waiters) return;
    this.waiting.delete(fingerprint);
    for (const wake of waiters) wake();
  }

  wait(fingerprint: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(fingerprint) ?? new Set<() => void>();
      this.waiting.set(fingerprint, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiting.get(fingerprint) === waiters) this.waiting.delete(fingerprint);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  wakeAll(): void {
    for (const fingerprint of [...this.waiting.keys()]) this.wake(fingerprint);
  }
}

export function createInProcessPdfRenderNotices(): PdfRenderNotices {
  const waiters = new LocalWaiters();
  return {
    announce: (fingerprint) => waiters.wake(fingerprint),
    wait: (fingerprint, ms) => waiters.wait(fingerprint, ms),
    close: async () => waiters.wakeAll(),
  };
}

const REDIS_TIMEOUT_MS = 1_000;

/**
 * One channel for every outcome (named after JOB_QUEUE_PREFIX, so deployments sharing a Redis stay apart): a message is a fingerprint (64 hex digits), and each process wakes its own
 * waiters of it. Publishing is fire-and-forget: a Redis that does not answer costs the waiting request its
 * next poll, never the render.
 */
export function createRedisPdfRenderNotices(redisUrl: string, options: { channel: string }): PdfRenderNotices {
  const { channel } = options;
  const waiters = new LocalWaiters();
  const publisher = createRedisClient(redisUrl, REDIS_TIMEOUT_MS);
  let subscriber: Redis | null = null;
  const subscribed = (): Promise<void> => {
    if (subscriber) return Promise.resolve();
    subscriber = publisher.duplicate();
    subscriber.on('error', () => {});
    subscriber.on('message', (_channel: string, fingerprint: string) => waiters.wake(fingerprint));
    return subscriber.subscribe(channel).then(
      () => undefined,
      () => undefined,
    );
  };
  return {
    announce(fingerprint) {
      waiters.wake(fingerprint);
      publisher.publish(channel, fingerprint).catch(() => undefined);
    },
    async wait(fingerprint, ms) {
      const waiting = waiters.wait(fingerprint, ms);
      await subscribed();
      return waiting;
    },
    async close() {
      waiters.wakeAll();
      const toClose: Redis[] = [publisher, ...(subscriber ? [subscriber] : [])];
      await Promise.all(toClose.map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
