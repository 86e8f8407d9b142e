import { Redis } from 'ioredis';

/**
 * The Redis connection every Redis adapter uses: short timeouts so a request never waits long on an
 * unreachable Redis, one retry per command, auto-pipelining, and reconnection in the background. Failures
 * surface on the call that met them (each adapter turns them into its own answer), so connection errors
 * are not logged once per reconnect attempt.
 */
export function createRedisClient(redisUrl: string, timeoutMs: number): Redis {
  const client = new Redis(redisUrl, {
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    // Commands issued in the same tick (concurrent requests) leave in one write and come back in one read:
    // fewer system calls on both sides, each command still its own round trip in Redis's count.
    enableAutoPipelining: true,
  });
  client.on('error', () => {});
  return client;
}
