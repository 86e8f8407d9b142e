import { createRedisClient } from '../cache/redisClient.js';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../domain/errors.js';
import {
  assertValidConsumeRequest,
  consumeResult,
  dhakaDayKey,
  dhakaMonthKey,
  floorFor,
  nextDhakaDayStart,
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
 * and month are chosen by the caller too, as the counters' keys. The checks mirror `refusalOf` in
 * limits.ts (same order); the shared contract suite holds both adapters to it.
 *
 * KEYS: burst window, minute window (sorted sets scored by timestamp), day counter, month counter.
 * ARGV: now ms, burst cutoff, minute cutoff, burst limit, per-minute limit, daily limit, monthly limit
 * (-1: uncapped), overage (1/0), units, charges quota (1/0), unique member, burst window ms, day counter
 * TTL s, month counter TTL s, day floor, month floor.
 * A counter below its floor (Redis lost it, or counted less while it was away) continues from the floor;
 * the counters are written with SET, not INCRBY, so the floor is carried into Redis with the request.
 * Reply: refusal (0 allowed, 1 burst, 2 minute, 3 daily, 4 monthly), burst count, minute count, oldest
 * burst and minute timestamps ('' unless refused), day used, month used; counts after recording when
 * allowed, as found when refused.
 */
const CONSUME_SCRIPT = `
local nowMs = ARGV[1]
local burstLimit = tonumber(ARGV[4])
local perMinute = tonumber(ARGV[5])
local dailyLimit = tonumber(ARGV[6])
local monthlyLimit = tonumber(ARGV[7])
local overage = ARGV[8] == '1'
local units = tonumber(ARGV[9])
local chargesQuota = ARGV[10] == '1'
local member = ARGV[11]

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
local burstCount = redis.call('ZCARD', KEYS[1])
local minuteCount = redis.call('ZCARD', KEYS[2])
local dayUsed = math.max(tonumber(redis.call('GET', KEYS[3]) or '0'), tonumber(ARGV[15]))
local monthUsed = math.max(tonumber(redis.call('GET', KEYS[4]) or '0'), tonumber(ARGV[16]))

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
  local burstOldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2] or ''
  local minuteOldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2] or ''
  return {refusal, burstCount, minuteCount, burstOldest, minuteOldest, dayUsed, monthUsed}
end

redis.call('ZADD', KEYS[1], nowMs, member)
redis.call('PEXPIRE', KEYS[1], ARGV[12])
redis.call('ZADD', KEYS[2], nowMs, member)
redis.call('PEXPIRE', KEYS[2], ${PER_MINUTE_WINDOW_MS})
if chargesQuota then
  dayUsed = dayUsed + units
  redis.call('SET', KEYS[3], dayUsed, 'EX', ARGV[13])
  monthUsed = monthUsed + units
  redis.call('SET', KEYS[4], monthUsed, 'EX', ARGV[14])
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

function limitsKeyPrefix(clientId: number, environment: ConsumeRequest['environment']): string {
  return `limits:${clientId}:${environment}`;
}

const secondsUntil = (resetAt: Date, nowMs: number) => Math.ceil((resetAt.getTime() - nowMs) / 1_000);

/** Shared by every API replica: one EVALSHA per consume (ioredis loads the script on NOSCRIPT by EVAL). */
export function createRedisLimits(redisUrl: string, options: { timeoutMs?: number; now?: Clock } = {}): Limits {
  const timeoutMs = options.timeoutMs ?? 1_000;
  const now = options.now ?? Date.now;
  const client = createRedisClient(redisUrl, timeoutMs);
  client.defineCommand('consumeLimits', { numberOfKeys: 4, lua: CONSUME_SCRIPT });
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
      const prefix = limitsKeyPrefix(request.clientId, request.environment);
      const dayKey = dhakaDayKey(at);
      const monthKey = dhakaMonthKey(at);
      const floor = floorFor(request, dayKey, monthKey);
      memberSequence += 1;
      let reply: ScriptReply;
      try {
        reply = await commands.consumeLimits(
          `${prefix}:burst`,
          `${prefix}:minute`,
          `${prefix}:day:${dayKey}`,
          `${prefix}:month:${monthKey}`,
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
          String(policy.burst.windowMs),
          String(secondsUntil(nextDhakaDayStart(at), nowMs) + COUNTER_GRACE_SECONDS),
          String(secondsUntil(nextDhakaMonthStart(at), nowMs) + COUNTER_GRACE_SECONDS),
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
