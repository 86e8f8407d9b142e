import type { Logger } from '../logger.js';
import { createInProcessLimits } from './inProcessLimits.js';
import type { Clock, Limits } from './limits.js';
import { createRedisLimits, LimitsUnavailable } from './redisLimits.js';

/** How long the in-process limiter stands in after Redis failed before Redis is tried again. */
const RETRY_REDIS_AFTER_MS = 5_000;

/**
 * Redis when REDIS_URL is set, else in process. When Redis cannot be reached the API keeps answering: the
 * in-process limiter stands in (each replica then limits on its own), the outage is logged once, and Redis
 * is tried again every few seconds until it answers, which is logged once too. /v1/health reports the
 * outage as `checks.cache: false`.
 */
export function createLimits(redisUrl: string | undefined, logger: Logger, options: { now?: Clock } = {}): Limits {
  const local = createInProcessLimits(options);
  if (!redisUrl) return local;
  const shared = createRedisLimits(redisUrl, options);
  const now = options.now ?? Date.now;
  let outageSince: number | null = null;
  return {
    async consume(request) {
      if (outageSince !== null && now() - outageSince < RETRY_REDIS_AFTER_MS) return local.consume(request);
      try {
        const result = await shared.consume(request);
        if (outageSince !== null) {
          outageSince = null;
          logger.info({ component: 'limits' }, 'Redis answers again: rate limits and quotas are shared again');
        }
        return result;
      } catch (error) {
        if (!(error instanceof LimitsUnavailable)) throw error;
        if (outageSince === null) {
          logger.warn(
            { component: 'limits', err: error },
            'Redis unreachable: rate limits and quotas are kept in process until it answers',
          );
        }
        outageSince = now();
        return local.consume(request);
      }
    },
    async close() {
      await Promise.all([shared.close(), local.close()]);
    },
  };
}
