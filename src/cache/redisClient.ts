import { Redis } from 'ioredis';

/**
 * The Redis connection every Redis adapter uses: short timeouts so a request never waits long on an
 * unreachable Redis, one retry per command, and reconnection in the background. Failures surface on the
 * call that met them (each adapter turns them into its own answer), so connection errors are not logged
 * once per reconnect attempt.
 */
export function createRedisClient(redisUrl: string, timeoutMs: number): Redis {
  const client = new Redis(redisUrl, {
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
  client.on('error', () => {});
  return client;
}
