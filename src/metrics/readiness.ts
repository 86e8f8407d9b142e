import type { EventStore } from '../eventStore/eventStore.js';
import type { ReadStore } from '../readStore/readStore.js';
import type { ProjectionLagProbe } from './projectionLag.js';

/** A dependency that does not answer within this long counts as down (as for /v1/health). */
const CHECK_TIMEOUT_MS = 2_000;

export const READINESS_CHECKS = ['event_store', 'read_store', 'redis', 'projections'] as const;
export type ReadinessCheck = (typeof READINESS_CHECKS)[number];

/** A projection past a bound: how far behind it is. */
export interface LaggingProjection {
  projection: string;
  events_behind: number;
  seconds_behind: number;
}

export interface ReadinessReport {
  ready: boolean;
  /** Each check's outcome; `redis` only where REDIS_URL is set. */
  checks: Partial<Record<ReadinessCheck, boolean>>;
  /** The checks that failed, in the order above. */
  failed: ReadinessCheck[];
  lagging: LaggingProjection[];
  bounds: { max_lag_events: number; max_lag_seconds: number };
}

export interface Readiness {
  check(): Promise<ReadinessReport>;
}

export interface ReadinessOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  /** Pinged where REDIS_URL is set; null without Redis. */
  redis: { ping(): Promise<boolean> } | null;
  lag: ProjectionLagProbe;
  maxLagEvents: number;
  maxLagSeconds: number;
}

/** `work`'s answer, or `failed` when it throws or hangs past the deadline. */
async function withinDeadline<T, F>(work: () => Promise<T>, failed: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(failed), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work().catch(() => failed), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ready (for traffic from a load balancer or an orchestrator) when the stores answer, Redis answers where it
 * is configured, and every read model is current enough: no more than `maxLagEvents` events and
 * `maxLagSeconds` seconds behind the log. Liveness is another question (src/http/operationsRoutes.ts): a
 * process that is not ready is still alive, and restarting it would not make the read models catch up.
 */
export function createReadiness(options: ReadinessOptions): Readiness {
  const { maxLagEvents, maxLagSeconds } = options;
  return {
    async check() {
      const redisProbe = options.redis;
      const [eventStore, readStore, redis, lag] = await Promise.all([
        withinDeadline(() => options.eventStore.ping(), false),
        withinDeadline(() => options.readStore.ping(), false),
        redisProbe ? withinDeadline(() => redisProbe.ping(), false) : null,
        withinDeadline(() => options.lag.current(), null),
      ]);
      const lagging = (lag?.projections ?? [])
        .filter((projection) => projection.eventsBehind > maxLagEvents || projection.secondsBehind > maxLagSeconds)
        .map((projection) => ({
          projection: projection.name,
          events_behind: projection.eventsBehind,
          seconds_behind: Math.round(projection.secondsBehind * 10) / 10,
        }));
      const checks: ReadinessReport['checks'] = {
        event_store: eventStore,
        read_store: readStore,
        ...(redis === null ? {} : { redis }),
        projections: lag !== null && lagging.length === 0,
      };
      const failed = READINESS_CHECKS.filter((check) => checks[check] === false);
      return {
        ready: failed.length === 0,
        checks,
        failed,
        lagging,
        bounds: { max_lag_events: maxLagEvents, max_lag_seconds: maxLagSeconds },
      };
    },
  };
}
