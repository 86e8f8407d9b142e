import type { Redis } from 'ioredis';
import type { ServiceMetrics } from './serviceMetrics.js';

/** What this process last learnt of Redis: from its heartbeat writes and its readiness pings. */
export interface RedisProbe {
  /** PING within the client's command timeout; the answer is recorded. */
  ping(): Promise<boolean>;
  /** The outcome of another call of ours to Redis (`operation` names it in redis_errors_total). */
  record(operation: string, ok: boolean): void;
  /** Whether the last call succeeded; null before the first. */
  reachable(): boolean | null;
}

/**
 * `limitsViaRedis`: this process keeps rate limits in Redis (an API process with REDIS_URL and RATE_LIMITS=on),
 * so while Redis does not answer its limits are kept in process (src/limits/createLimits.ts), which the
 * fallback gauge shows.
 */
export function createRedisProbe(client: Redis, metrics: ServiceMetrics | null, limitsViaRedis: boolean): RedisProbe {
  let lastOk: boolean | null = null;
  const record = (operation: string, ok: boolean) => {
    lastOk = ok;
    if (!metrics) return;
    metrics.redisUp.set(ok ? 1 : 0);
    if (!ok) metrics.redisErrors.inc({ operation });
    if (limitsViaRedis) metrics.limitsFallback.set(ok ? 0 : 1);
  };
  return {
    async ping() {
      const ok = await client.ping().then(
        (answer) => answer === 'PONG',
        () => false,
      );
      record('ping', ok);
      return ok;
    },
    record,
    reachable: () => lastOk,
  };
}
