import { createRedisClient } from './redisClient.js';

/** The `cache` check of /v1/health. */
export interface CacheHealth {
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Embedded mode: the cache lives in this process, so it is available whenever the process answers. */
export const inProcessCacheHealth: CacheHealth = {
  ping: async () => true,
  close: async () => {},
};

export const REDIS_PING_TIMEOUT_MS = 500;

/**
 * Redis PING with a short deadline on one long-lived connection. While Redis is unreachable the client
 * keeps reconnecting in the background; a queued PING is dropped after one failed reconnect, so health
 * requests never pile up commands.
 */
export function createRedisCacheHealth(redisUrl: string, options: { timeoutMs?: number } = {}): CacheHealth {
  const timeoutMs = options.timeoutMs ?? REDIS_PING_TIMEOUT_MS;
  const client = createRedisClient(redisUrl, timeoutMs);

  return {
    async ping() {
      try {
        return (await client.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      client.disconnect();
    },
  };
}
