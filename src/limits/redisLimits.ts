import { createRedisClient } from '../cache/redisClient.js';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../domain/errors.js';
import {
  assertValidConsumeRequest,
  consumeResult,
  dhakaDayKey,
  dhakaMonthKey,
  floorFor,
  nextDhakaMonthStart,
  PER_MINUTE_WINDOW_MS,
  type Clock,
  type ConsumeRequest,
  type LimitCode,
  type Limits,
} from './limits.js';

/**
 * Checks every limit and records an allowed request in one atomic step: Redis runs a script without
 * interleaving other commands, so N parallel consumes against a limit L let exactly L through.
 *
 * The time is the caller's (ARGV), not Redis TIME, so an injected clock governs the windows; the Dhaka day
 * and month are chosen by the caller too. The checks mirror `refusalOf` in limits.ts (same order); the
 * shared contract suite holds both adapters to it.
 *
 * Two keys per client environment (see `limitsKeys`): one sorted set of the last minute's requests, scored
 * by time, serves both rolling windows (the burst window is the newest part of the minute: planLimits caps
 * it at 60 s), and one hash per Dhaka month holds the month's units and each day's. A counter below its
 * floor (Redis lost it, or counted less while it was away) continues from the floor; the hash is written
 * with HSET, so the floor is carried into Redis with the request.
 *
 * KEYS: window, quota.
 * ARGV: now ms, burst cutoff, minute cutoff, burst limit, per-minute limit, daily limit, monthly limit
 * (-1: uncapped), overage (1/0), units, charges quota (1/0), unique member, quota TTL s, day field, day
 * floor, month floor.
 * Reply: refusal (0 allowed, 1 burst, 2 minute, 3 daily, 4 monthly), burst count, minute count, oldest
 * burst and minute timestamps ('' unless refused), day used, month used; counts after recording when
 * allowed, as found when refused.
 */
const CONSUME_SCRIPT = `
local window = KEYS[1]
local quota = KEYS[2]
local nowMs = ARGV[1]
local burstAfter = '(' .. ARGV[2]
local burstLimit = tonumber(ARGV[4])
local perMinute = tonumber(ARGV[5])
local dailyLimit = tonumber(ARGV[6])
local monthlyLimit = tonumber(ARGV[7])
local overage = ARGV[8] == '1'
local units = tonumber(ARGV[9])
local chargesQuota = ARGV[10] == '1'
local dayField = ARGV[13]

redis.call('ZREMRANGEBYSCORE', window, '-inf', ARGV[3])
local minuteCount = redis.call('ZCARD', window)
local burstCount = redis.call('ZCOUNT', window, burstAfter, '+inf')
local stored = redis.call('HMGET', quota, 'month', dayField)
local monthUsed = math.max(tonumber(stored[1] or '0'), tonumber(ARGV[15]))
local dayUsed = math.max(tonumber(stored[2] or '0'), tonumber(ARGV[14]))

local refusal = 0
if burstCount >= burstLimit then
  refusal = 1
elseif minuteCount >= perMinute then
  refusal = 2
elseif chargesQuota and dailyLimit >= 0 and dayUsed + units > dailyLimit then
  refusal = 3
elseif chargesQuota and monthlyLimit >= 0 and not overage and monthUsed + units > monthlyLimit then
  refusal = 4
end

if refusal > 0 then
  local burstOldest = redis.call('ZRANGEBYSCORE', window, burstAfter, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2] or ''
  local minuteOldest = redis.call('ZRANGE', window, 0, 0, 'WITHSCORES')[2] or ''
  return {refusal, burstCount, minuteCount, burstOldest, minuteOldest, dayUsed, monthUsed}
end

redis.call('ZADD', window, nowMs, ARGV[11])
redis.call('PEXPIRE', window, ${PER_MINUTE_WINDOW_MS})
if chargesQuota then
  dayUsed = dayUsed + units
  monthUsed = monthUsed + units
  redis.call('HSET', quota, 'month', monthUsed, dayField, dayUsed)
  redis.call('EXPIRE', quota, ARGV[12])
end
return {0, burstCount + 1, minuteCount + 1, '', '', dayUsed, monthUsed}
`;

type ScriptReply = [number, number, number, string, string, number, number];

interface LimitsCommands {
  consumeLimits(...keysAndArgs: string[]): Promise<ScriptReply>;
}

const REFUSALS: Record<number, LimitCode> = {
  1: 'BURST_LIMIT_EXCEEDED',
  2: 'PER_MINUTE_LIMIT_EXCEEDED',
  3: 'DAILY_LIMIT_EXCEEDED',
  4: 'MONTHLY_LIMIT_EXCEEDED',
};

/**
 * A counter outlives its reset by this much, so a replica whose clock runs a little behind still finds the
 * finished period's count instead of starting it afresh.
 */
const COUNTER_GRACE_SECONDS = 3_600;

/** 503 while Redis cannot be reached: limits that cannot be checked are not waved through. */
export class LimitsUnavailable extends ApiError {
  constructor() {
    super(503, 'SERVICE_UNAVAILABLE', 'Rate limits cannot be checked right now; retry shortly.', { retry_after_seconds: 1 });
  }
}

/**
 * The Redis keys of one client environment at `at`: its window (sorted set) and its month's quota hash,
 * whose field `month` holds the month's units and the field named `dayField` the day's.
 */
export function limitsKeys(clientId: number, environment: ConsumeRequest['environment'], at: Date) {
  const prefix = `limits:${clientId}:${environment}`;
  return { window: `${prefix}:window`, quota: `${prefix}:quota:${dhakaMonthKey(at)}`, dayField: dhakaDayKey(at) };
}

const secondsUntil = (resetAt: Date, nowMs: number) => Math.ceil((resetAt.getTime() - nowMs) / 1_000);

/** Shared by every API replica: one EVALSHA per consume (ioredis loads the script on NOSCRIPT by EVAL). */
export function createRedisLimits(redisUrl: string, options: { timeoutMs?: number; now?: Clock } = {}): Limits {
  const timeoutMs = options.timeoutMs ?? 1_000;
  const now = options.now ?? Date.now;
  const client = createRedisClient(redisUrl, timeoutMs);
  client.defineCommand('consumeLimits', { numberOfKeys: 2, lua: CONSUME_SCRIPT });
  const commands = client as unknown as LimitsCommands;

  // Window members must be unique, or two requests in the same millisecond would count once: a random
  // prefix per adapter instance (so replicas differ) and a sequence within it.
  const memberPrefix = randomBytes(8).toString('base64url');
  let memberSequence = 0;

  return {
    async consume(request) {
      assertValidConsumeRequest(request);
      const { policy } = request;
      const nowMs = now();
      const at = new Date(nowMs);
      const keys = limitsKeys(request.clientId, request.environment, at);
      const floor = floorFor(request, keys.dayField, dhakaMonthKey(at));
      memberSequence += 1;
      let reply: ScriptReply;
      try {
        reply = await commands.consumeLimits(
          keys.window,
          keys.quota,
          String(nowMs),
          String(nowMs - policy.burst.windowMs),
          String(nowMs - PER_MINUTE_WINDOW_MS),
          String(policy.burst.limit),
          String(policy.perMinute),
          String(policy.daily ?? -1),
          String(policy.monthly ?? -1),
          policy.overage !== null ? '1' : '0',
          String(request.units),
          request.chargesQuota ? '1' : '0',
          `${memberPrefix}:${memberSequence}`,
          String(secondsUntil(nextDhakaMonthStart(at), nowMs) + COUNTER_GRACE_SECONDS),
          keys.dayField,
          String(floor.day),
          String(floor.month),
        );
      } catch {
        throw new LimitsUnavailable();
      }
      const [refusal, burstCount, minuteCount, burstOldest, minuteOldest, dayUsed, monthUsed] = reply;
      const snapshot = {
        burstCount,
        minuteCount,
        burstOldestMs: burstOldest === '' ? null : Number(burstOldest),
        minuteOldestMs: minuteOldest === '' ? null : Number(minuteOldest),
        dayUsed,
        monthUsed,
      };
      return consumeResult(request, nowMs, snapshot, REFUSALS[refusal] ?? null);
    },
    async close() {
      client.disconnect();
    },
  };
}
