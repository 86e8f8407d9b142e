import { randomUUID } from 'node:crypto';
import { createRedisClient } from '../cache/redisClient.js';
import { IdempotencyUnavailable, type IdempotencyStore, type IdempotencyTimes, type Reservation } from './idempotencyStore.js';

/*
 * One hash per client and key: request_hash, state, token, result, expires_at (ms by the caller's clock, so
 * an injected clock governs lapses as in the SQLite adapter). Redis's own expiry only clears lapsed hashes
 * away. Each script runs without interleaving, so concurrent reserves from every replica are decided one
 * after the other.
 */

/** ARGV: now ms, request hash, new token, lease ms. Reply: {'new'}, {'in_flight'}, {'completed', result} or {'mismatch'}. */
const RESERVE_SCRIPT = `
local found = redis.call('HMGET', KEYS[1], 'request_hash', 'state', 'result', 'expires_at')
local now = tonumber(ARGV[1])
if found[1] and tonumber(found[4]) > now then
  if found[1] ~= ARGV[2] then return { 'mismatch' } end
  if found[2] == 'completed' then return { 'completed', found[3] } end
  return { 'in_flight' }
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'request_hash', ARGV[2], 'state', 'in_flight', 'token', ARGV[3], 'expires_at', now + tonumber(ARGV[4]))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return { 'new' }
`;

/** ARGV: token, result, expires_at ms, retention ms. */
const COMPLETE_SCRIPT = `
local found = redis.call('HMGET', KEYS[1], 'token', 'state')
if found[1] ~= ARGV[1] or found[2] ~= 'in_flight' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'completed', 'result', ARGV[2], 'expires_at', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/** ARGV: token. */
const RELEASE_SCRIPT = `
local found = redis.call('HMGET', KEYS[1], 'token', 'state')
if found[1] ~= ARGV[1] or found[2] ~= 'in_flight' then return 0 end
return redis.call('DEL', KEYS[1])
`;

type ReserveReply = ['new'] | ['in_flight'] | ['completed', string] | ['mismatch'];

export function createRedisIdempotencyStore<Result>(
  redisUrl: string,
  options: IdempotencyTimes & { timeoutMs?: number; prefix?: string },
): IdempotencyStore<Result> {
  const redis = createRedisClient(redisUrl, options.timeoutMs ?? 1_000);
  const now = options.now ?? Date.now;
  const keyOf = (clientId: number, key: string) => `${options.prefix ?? 'idempotency'}:${clientId}:${key}`;
  /** A Redis failure is the client's 503, never a 500. */
  const run = async <Reply>(script: string, key: string, ...args: string[]): Promise<Reply> => {
    try {
      return (await redis.eval(script, 1, key, ...args)) as Reply;
    } catch {
      throw new IdempotencyUnavailable();
    }
  };
  return {
    async reserve(clientId, key, requestHash): Promise<Reservation<Result>> {
      const token = randomUUID();
      const reply = await run<ReserveReply>(
        RESERVE_SCRIPT,
        keyOf(clientId, key),
        String(now()),
        requestHash,
        token,
        String(options.inFlightLeaseMs),
      );
      switch (reply[0]) {
        case 'new':
          return { status: 'new', token };
        case 'completed':
          return { status: 'completed', result: JSON.parse(reply[1]) as Result };
        case 'in_flight':
          return { status: 'in_flight' };
        case 'mismatch':
          return { status: 'mismatch' };
      }
    },
    async complete(clientId, key, token, result) {
      const expiresAt = now() + options.retentionMs;
      await run(COMPLETE_SCRIPT, keyOf(clientId, key), token, JSON.stringify(result), String(expiresAt), String(options.retentionMs));
    },
    async release(clientId, key, token) {
      await run(RELEASE_SCRIPT, keyOf(clientId, key), token);
    },
    async close() {
      redis.disconnect();
    },
  };
}
