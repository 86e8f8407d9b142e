import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { ReadStore } from '../readStore/readStore.js';

/** How a process's limiter keeps rate limits and quotas right now. */
export const LIMITS_MODES = ['redis', 'in-process', 'in-process-fallback', 'off'] as const;
export type LimitsMode = (typeof LIMITS_MODES)[number];

const failureSchema = z.object({ message: z.string(), at: z.string() });
export type ProjectionFailure = z.infer<typeof failureSchema>;

const heartbeatSchema = z.object({
  id: z.string(),
  pid: z.number().int(),
  host: z.string(),
  roles: z.array(z.string()),
  started_at: z.string(),
  last_seen: z.string(),
  /** API processes: how their limiter keeps limits (redis, in process, in process while Redis is away, off); null otherwise. */
  limits: z.enum(LIMITS_MODES).nullable(),
  /** Projector processes: the last failure of each projection that failed in it. */
  projection_errors: z.record(z.string(), failureSchema),
});

/** What each process writes every few seconds: who it is, what it runs, and what went wrong in it. */
export type ProcessHeartbeat = z.infer<typeof heartbeatSchema>;

/** Where heartbeats are kept: Redis when REDIS_URL is set, else the read store every process shares. */
export interface HeartbeatStore {
  put(heartbeat: ProcessHeartbeat): Promise<void>;
  list(): Promise<ProcessHeartbeat[]>;
  remove(ids: readonly string[]): Promise<void>;
}

/** Stored heartbeats that do not parse (another version's) are passed over rather than failing the list. */
const parsed = (candidates: readonly unknown[]): ProcessHeartbeat[] =>
  candidates.flatMap((candidate) => {
    const result = heartbeatSchema.safeParse(candidate);
    return result.success ? [result.data] : [];
  });

/** The read store collection of heartbeats: written by every process, made by no projection (a rebuild leaves it alone). */
export const PROCESS_HEARTBEATS = 'process_heartbeats';

export function readStoreHeartbeats(readStore: ReadStore): HeartbeatStore {
  return {
    put: (heartbeat) => readStore.write([{ op: 'put', collection: PROCESS_HEARTBEATS, doc: { _id: heartbeat.id, ...heartbeat } }]),
    async list() {
      return parsed((await readStore.find(PROCESS_HEARTBEATS)).items);
    },
    async remove(ids) {
      if (ids.length > 0) await readStore.write(ids.map((id) => ({ op: 'delete', collection: PROCESS_HEARTBEATS, id })));
    },
  };
}

/**
 * One Redis hash, a field per process, under JOB_QUEUE_PREFIX: deployments (and test runs) that share a Redis
 * each see their own processes.
 */
export const heartbeatsKey = (prefix: string) => `${prefix}:processes:heartbeats`;

export function redisHeartbeats(client: Redis, prefix: string): HeartbeatStore {
  const key = heartbeatsKey(prefix);
  return {
    async put(heartbeat) {
      await client.hset(key, heartbeat.id, JSON.stringify(heartbeat));
    },
    async list() {
      const fields = Object.values(await client.hgetall(key));
      return parsed(
        fields.flatMap((json) => {
          try {
            return [JSON.parse(json) as unknown];
          } catch {
            return [];
          }
        }),
      );
    },
    async remove(ids) {
      if (ids.length > 0) await client.hdel(key, ...ids);
    },
  };
}

export const HEARTBEAT_INTERVAL_MS = 5_000;
/** A process is listed as seen while its last heartbeat is this recent. */
export const SEEN_WITHIN_MS = 60_000;
/** Heartbeats older than this are deleted (a process killed without a clean stop leaves its last one). */
const FORGET_AFTER_MS = 10 * 60_000;

export interface Heartbeats {
  /** The processes whose last heartbeat is at most SEEN_WITHIN_MS old, this one included. */
  recent(): Promise<ProcessHeartbeat[]>;
  /** Stops writing and deletes this process's heartbeat, so it is not listed after a clean stop. */
  stop(): Promise<void>;
}

export interface HeartbeatOptions {
  store: HeartbeatStore;
  /** This process's heartbeat as of now (its last_seen and what it reports). */
  current: () => ProcessHeartbeat;
  /** Each write's outcome (the Redis probe records it). */
  onWrite?: (ok: boolean) => void;
  logger: Logger;
  intervalMs?: number;
  now?: () => number;
}

/**
 * Writes this process's heartbeat now and every few seconds, and now and then deletes the heartbeats of
 * processes long gone. A failed write is logged once per outage and tried again at the next beat.
 */
export function startHeartbeats(options: HeartbeatOptions): Heartbeats {
  const { store, current, logger } = options;
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? HEARTBEAT_INTERVAL_MS;
  const beatsPerPrune = Math.max(1, Math.round(SEEN_WITHIN_MS / intervalMs));
  let failing = false;
  let beats = 0;
  let running: Promise<void> = Promise.resolve();

  const pruneOld = async () => {
    const cutoff = now() - FORGET_AFTER_MS;
    const gone = (await store.list()).filter((heartbeat) => Date.parse(heartbeat.last_seen) < cutoff);
    await store.remove(gone.map((heartbeat) => heartbeat.id));
  };
  const beat = async () => {
    try {
      await store.put(current());
      if (beats++ % beatsPerPrune === 0) await pruneOld();
      options.onWrite?.(true);
      if (failing) logger.info({ component: 'heartbeat' }, 'heartbeats are written again');
      failing = false;
    } catch (error) {
      options.onWrite?.(false);
      if (!failing) logger.warn({ component: 'heartbeat', err: error }, 'writing the heartbeat failed; trying again at the next beat');
      failing = true;
    }
  };

  // Not awaited: a Redis or read store slow to answer must not hold up the start.
  running = beat();
  const timer = setInterval(() => {
    running = running.then(beat);
  }, intervalMs);
  // The heartbeat never keeps a process alive on its own.
  timer.unref();

  return {
    async recent() {
      const cutoff = now() - SEEN_WITHIN_MS;
      return (await store.list()).filter((heartbeat) => Date.parse(heartbeat.last_seen) >= cutoff);
    },
    async stop() {
      clearInterval(timer);
      await running;
      await store.remove([current().id]).catch((error: unknown) => {
        logger.warn({ component: 'heartbeat', err: error }, 'deleting the heartbeat at stop failed; it ages out of the status');
      });
    },
  };
}
