import { randomBytes } from 'node:crypto';
import { createRedisClient } from '../cache/redisClient.js';
import { dhakaDayOf, PER_MINUTE_WINDOW_MS, type Clock } from '../limits/limits.js';
import { pdfConsumeResult, type PdfLimitCode, type PdfLimiter } from './pdfLimits.js';

/**
 * Checks the three PDF limits and records the unit in one script, which Redis runs without interleaving:
 * concurrent consumes from every replica are decided one after the other. Two keys per client: a sorted
 * set of the last minute's units (scored by time) and a hash per Dhaka month with the month's units and
 * each day's. The time is the caller's, so an injected clock governs the windows, as in the in-process
 * limiter.
 *
 * ARGV: now ms, minute cutoff, per-minute limit, daily limit, monthly limit, unique member, day field,
 * quota TTL s. Reply: refusal (0 allowed, 1 minute, 2 day, 3 month), minute count, oldest unit in the
 * minute ('' when none), day used, month used.
 */
const CONSUME_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local minute = redis.call('ZCARD', KEYS[1])
local day = tonumber(redis.call('HGET', KEYS[2], ARGV[7]) or '0')
local month = tonumber(redis.call('HGET', KEYS[2], 'month') or '0')
local refusal = 0
if minute >= tonumber(ARGV[3]) then
  refusal = 1
elseif day >= tonumber(ARGV[4]) then
  refusal = 2
elseif month >= tonumber(ARGV[5]) then
  refusal = 3
end
if refusal == 0 then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[6])
  redis.call('PEXPIRE', KEYS[1], ${PER_MINUTE_WINDOW_MS})
  day = redis.call('HINCRBY', KEYS[2], ARGV[7], 1)
  month = redis.call('HINCRBY', KEYS[2], 'month', 1)
  redis.call('EXPIRE', KEYS[2], ARGV[8])
  minute = minute + 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2] or ''
return { refusal, minute, oldest, day, month }
`;

const REFUSALS: Record<number, PdfLimitCode> = { 1: 'PER_MINUTE_LIMIT_EXCEEDED', 2: 'DAILY_LIMIT_EXCEEDED', 3: 'MONTHLY_LIMIT_EXCEEDED' };

/** A month's hash outlives its month by a day, so a late reader of the month still finds it. */
const QUOTA_TTL_SECONDS = 32 * 86_400;

type Reply = [number, number, string, number, number];

export function createRedisPdfLimiter(redisUrl: string, options: { timeoutMs?: number; now?: Clock } = {}): PdfLimiter {
  const redis = createRedisClient(redisUrl, options.timeoutMs ?? 1_000);
  const now = options.now ?? Date.now;
  // Members must be unique per unit: two units in the same millisecond are two members.
  const memberPrefix = randomBytes(6).toString('hex');
  let sequence = 0;
  return {
    async consume(clientId, limits) {
      const nowMs = now();
      const day = dhakaDayOf(nowMs);
      const keys = [`pdf-limits:${clientId}:minute`, `pdf-limits:${clientId}:quota:${day.monthKey}`];
      sequence += 1;
      const args = [
        String(nowMs),
        String(nowMs - PER_MINUTE_WINDOW_MS),
        String(limits.per_minute),
        String(limits.daily),
        String(limits.monthly),
        `${nowMs}:${memberPrefix}:${sequence}`,
        day.dayKey,
        String(QUOTA_TTL_SECONDS),
      ];
      const [refusal, minuteCount, oldest, dayUsed, monthUsed] = (await redis.eval(CONSUME_SCRIPT, 2, ...keys, ...args)) as Reply;
      return pdfConsumeResult(
        limits,
        nowMs,
        { minuteCount, minuteOldestMs: oldest === '' ? null : Number(oldest), dayUsed, monthUsed },
        REFUSALS[refusal] ?? null,
      );
    },
    async close() {
      redis.disconnect();
    },
  };
}
