import { createRedisClient } from '../cache/redisClient.js';
import { newLeaseHolder, type LeaseGrant, type ProjectorLease } from './projectorLease.js';

/*
 * Per lease name two keys in one hash slot (Redis Cluster runs a script only on keys of one slot): the lease,
 * `holder#token` with Redis's own expiry (PX), and the name's last token, which never expires. Each script
 * runs without interleaving. Taking the lease and counting its token happen in one script: done as SET NX
 * then INCR, a holder paused between the two past its expiry would get a token above its successor's.
 */

/** KEYS: lease, last token. ARGV: holder, ttl ms. Reply: the token, or nil while the lease is held. */
const ACQUIRE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local token = redis.call('INCRBY', KEYS[2], math.max(1, now - last))
redis.call('SET', KEYS[1], ARGV[1] .. '#' .. token, 'NX', 'PX', ARGV[2])
return token
`;

/** KEYS: lease. ARGV: holder#token, ttl ms. Reply: 1 when renewed. */
const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
`;

/** KEYS: lease. ARGV: holder#token. */
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

export interface RedisProjectorLeaseOptions {
  ttlMs: number;
  /** Key prefix, so that deployments (and test runs) sharing one Redis keep their leases apart. */
  prefix: string;
  holder?: string;
  /** Redis command timeout. */
  timeoutMs?: number;
}

/** Leases in Redis (REDIS_URL), for projectors on any number of machines; expiry by Redis's clock. */
export function createRedisProjectorLease(redisUrl: string, options: RedisProjectorLeaseOptions): ProjectorLease {
  const redis = createRedisClient(redisUrl, options.timeoutMs ?? 1_000);
  const holder = options.holder ?? newLeaseHolder();
  const { ttlMs } = options;
  const leaseKey = (name: string) => `${options.prefix}:projector-lease:{${name}}`;
  const tokenKey = (name: string) => `${leaseKey(name)}:token`;
  const valueOf = (grant: LeaseGrant) => `${holder}#${grant.token}`;
  return {
    holder,
    ttlMs,
    async acquire(name) {
      const token = (await redis.eval(ACQUIRE_SCRIPT, 2, leaseKey(name), tokenKey(name), holder, String(ttlMs))) as number | null;
      return token === null ? null : { name, token };
    },
    async renew(grant) {
      return (await redis.eval(RENEW_SCRIPT, 1, leaseKey(grant.name), valueOf(grant), String(ttlMs))) === 1;
    },
    async release(grant) {
      await redis.eval(RELEASE_SCRIPT, 1, leaseKey(grant.name), valueOf(grant));
    },
    async close() {
      redis.disconnect();
    },
  };
}
