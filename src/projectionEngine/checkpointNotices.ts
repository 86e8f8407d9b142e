import type { Redis } from 'ioredis';
import { z } from 'zod';
import { createRedisClient } from '../cache/redisClient.js';

/**
 * Word from the projector processes that projections committed batches, for the API processes that run no
 * projector and wait for a log position (X-Consistent-After): they look at once instead of on their next
 * poll. A notice only shortens the wait: the stored checkpoints are what count, and a notice that never comes
 * (lost while Redis reconnects) leaves the poll to find the checkpoint. Redis pub/sub (REDIS_URL); one
 * process with every role needs none, its projector tells its waiters itself.
 */
export interface CheckpointNotices {
  /** `checkpointName` is stored at `position`. Sent once per turn of the event loop, with the latest position of each checkpoint. */
  announce(checkpointName: string, position: bigint): void;
  /** `listener` hears every notice from now on (of every process, this one included). */
  listen(listener: (checkpoints: ReadonlyMap<string, bigint>) => void): void;
  close(): Promise<void>;
}

const REDIS_TIMEOUT_MS = 1_000;

/** A message: checkpoint names and their positions as decimal strings (positions exceed JSON's safe integers). */
const messageSchema = z.record(z.string(), z.string().regex(/^\d{1,20}$/));

/**
 * One channel (named after JOB_QUEUE_PREFIX, so deployments sharing a Redis stay apart). Publishing is
 * fire-and-forget: a Redis that does not answer costs a waiting request its next poll, never a projector
 * batch. A projector under load commits many batches a second; the notices of one turn of the event loop
 * leave as one message.
 */
export function createRedisCheckpointNotices(redisUrl: string, options: { channel: string }): CheckpointNotices {
  const { channel } = options;
  const publisher = createRedisClient(redisUrl, REDIS_TIMEOUT_MS);
  let subscriber: Redis | null = null;
  const listeners = new Set<(checkpoints: ReadonlyMap<string, bigint>) => void>();
  let pending = new Map<string, bigint>();
  let flush: NodeJS.Immediate | null = null;

  const publishPending = () => {
    flush = null;
    const message = JSON.stringify(Object.fromEntries([...pending].map(([name, position]) => [name, String(position)])));
    pending = new Map();
    publisher.publish(channel, message).catch(() => undefined);
  };

  const heard = (message: string) => {
    let parsed: z.infer<typeof messageSchema>;
    try {
      parsed = messageSchema.parse(JSON.parse(message));
    } catch {
      // Not ours (another program on the channel): nothing to learn from it.
      return;
    }
    const checkpoints = new Map(Object.entries(parsed).map(([name, position]) => [name, BigInt(position)]));
    for (const listener of listeners) listener(checkpoints);
  };

  return {
    announce(checkpointName, position) {
      const known = pending.get(checkpointName);
      if (known === undefined || position > known) pending.set(checkpointName, position);
      flush ??= setImmediate(publishPending);
    },
    listen(listener) {
      listeners.add(listener);
      if (subscriber) return;
      subscriber = publisher.duplicate();
      subscriber.on('error', () => {});
      subscriber.on('message', (_channel: string, message: string) => heard(message));
      subscriber.subscribe(channel).catch(() => undefined);
    },
    async close() {
      if (flush) clearImmediate(flush);
      flush = null;
      listeners.clear();
      const toClose: Redis[] = [publisher, ...(subscriber ? [subscriber] : [])];
      await Promise.all(toClose.map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
