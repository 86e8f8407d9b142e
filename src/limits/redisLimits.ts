import { createRedisClient } from '../cache/redisClient.js';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../domain/errors.js';
import {
  assertValidConsumeRequest,
  consumeResult,
  dhakaDayOf,
  floorFor,
  PER_MINUTE_WINDOW_MS,
  type DhakaDay,
  type Clock,
  type ConsumeRequest,
  type LimitCode,
  type Limits,
} from './limits.js';

/**
 * Checks every limit and records an allowed request in one atomic step: Redis runs a script without
 * interleaving other commands, so N parallel consumes against a limit L let exactly L through.
 *
 * The consumes a process starts in the same turn of its event loop (concurrent requests) go to Redis as one
 * batch: one EVALSHA decides them in the order they were made, each against the state the ones before it
 * left, so every request is still decided atomically and in one round trip. Within a batch the script
 * reads each key once and writes it once: a busy client's requests share one prune, one quota read, one
 * ZADD of all their members and one HSET, and the window is counted once per distinct instant (adding
 * the batch's own members that are still inside it), so Redis's work per request shrinks as the client's
 * traffic grows.
 *
 * The time is the caller's (ARGV), not Redis TIME, so an injected clock governs the windows; the Dhaka day
 * and month are chosen by the caller too. The checks mirror `refusalOf` in limits.ts (same order); the
 * shared contract suite holds both adapters to it.
 *
 * Two keys per client environment (see `limitsKeys`): one sorted set of the last minute's requests, scored
 * by time, serves both rolling windows (the burst window is the newest part of the minute: planLimits caps
 * it at 60 s), and one hash per Dhaka month holds the month's units and each day's. A counter below its
 * floor (Redis lost it, or counted less while it was away) continues from the floor, and the raised figure
 * is written with the batch, as the in-process limiter keeps it. The hash gets its expiry when it is created (its month is
 * fixed); the window's is renewed with every batch that adds to it.
 *
 * KEYS: window and quota of each request in turn.
 * ARGV: ARGS_PER_CONSUME per request: now ms, burst cutoff, minute cutoff, burst limit, per-minute limit,
 * daily limit, monthly limit (-1: uncapped), overage (1/0), units, charges quota (1/0), unique member,
 * quota TTL s, day field, day floor, month floor.
 * Reply: one flat array, REPLY_FIELDS values per request in turn: refusal (0 allowed, 1 burst, 2 minute, 3 daily, 4 monthly), burst count,
 * minute count, oldest burst and minute timestamps ('' unless refused), day used, month used; counts after
 * recording when allowed, as found when refused.
 */
const ARGS_PER_CONSUME = 15;
/** Values per request in the script's flat reply (see ScriptReply). */
const REPLY_FIELDS = 7;

const CONSUME_SCRIPT = `
local windows = {}
local windowOrder = {}
local quotas = {}
local quotaOrder = {}

-- Members of the window above a cutoff (an exclusive bound): those stored before this batch, counted once
-- per distinct cutoff, plus this batch's, kept up to date as they are added.
local function countAbove(w, cutoff)
  local count = w.above[cutoff]
  if count == nil then
    count = redis.call('ZCOUNT', w.key, '(' .. cutoff, '+inf')
    local limit = tonumber(cutoff)
    for _, score in ipairs(w.scores) do
      if score > limit then count = count + 1 end
    end
    w.above[cutoff] = count
  end
  return count
end

local function added(w, score, member)
  table.insert(w.scores, score)
  table.insert(w.members, score)
  table.insert(w.members, member)
  for cutoff, count in pairs(w.above) do
    if score > tonumber(cutoff) then w.above[cutoff] = count + 1 end
  end
end

-- The oldest of this batch's members above a cutoff.
local function oldestAdded(w, cutoff)
  local limit = tonumber(cutoff)
  local oldest = nil
  for _, score in ipairs(w.scores) do
    if score > limit and (oldest == nil or score < oldest) then oldest = score end
  end
  return oldest
end

local function oldestAbove(w, cutoff)
  local stored = redis.call('ZRANGEBYSCORE', w.key, '(' .. cutoff, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)[2]
  local addedOldest = oldestAdded(w, cutoff)
  local oldest = stored and tonumber(stored) or nil
  if addedOldest ~= nil and (oldest == nil or addedOldest < oldest) then oldest = addedOldest end
  return oldest and string.format('%d', oldest) or ''
end

local function usedOf(q, field)
  local used = q.fields[field]
  if used == nil then
    used = tonumber(redis.call('HGET', q.key, field) or '0')
    q.fields[field] = used
  end
  return used
end

local replies = {}

-- One flat reply (REPLY_FIELDS values per request): Redis converts a nested table per request noticeably
-- slower than the same values in one array.
local function reply(i, refusal, burstCount, minuteCount, burstOldest, minuteOldest, dayUsed, monthUsed)
  local at = (i - 1) * ${REPLY_FIELDS}
  replies[at + 1] = refusal
  replies[at + 2] = burstCount
  replies[at + 3] = minuteCount
  replies[at + 4] = burstOldest
  replies[at + 5] = minuteOldest
  replies[at + 6] = dayUsed
  replies[at + 7] = monthUsed
end

for i = 1, #KEYS / 2 do
  local a = (i - 1) * ${ARGS_PER_CONSUME}
  local windowKey = KEYS[2 * i - 1]
  local quotaKey = KEYS[2 * i]
  local nowMs = ARGV[a + 1]
  local burstCutoff = ARGV[a + 2]
  local minuteCutoff = ARGV[a + 3]
  local burstLimit = tonumber(ARGV[a + 4])
  local perMinute = tonumber(ARGV[a + 5])
  local dailyLimit = tonumber(ARGV[a + 6])
  local monthlyLimit = tonumber(ARGV[a + 7])
  local overage = ARGV[a + 8] == '1'
  local units = tonumber(ARGV[a + 9])
  local chargesQuota = ARGV[a + 10] == '1'
  local dayField = ARGV[a + 13]

  local w = windows[windowKey]
  if w == nil then
    -- Members at or below the first cutoff have left every window of this batch (time only moves on).
    redis.call('ZREMRANGEBYSCORE', windowKey, '-inf', minuteCutoff)
    w = { key = windowKey, above = {}, scores = {}, members = {} }
    windows[windowKey] = w
    table.insert(windowOrder, w)
  end
  local q = quotas[quotaKey]
  if q == nil then
    local stored = redis.call('HMGET', quotaKey, 'month', dayField)
    q = { key = quotaKey, fields = { month = tonumber(stored[1] or '0') }, dirty = {}, ttl = nil }
    q.fields[dayField] = tonumber(stored[2] or '0')
    if not stored[1] then q.ttl = ARGV[a + 12] end
    quotas[quotaKey] = q
    table.insert(quotaOrder, q)
  end

  local burstCount = countAbove(w, burstCutoff)
  local minuteCount = countAbove(w, minuteCutoff)
  -- A floor above the stored figure raises it (a known lower bound of the usage, whatever this request's fate).
  local monthUsed = usedOf(q, 'month')
  local monthFloor = tonumber(ARGV[a + 15])
  if monthFloor > monthUsed then
    monthUsed = monthFloor
    q.fields.month = monthUsed
    q.dirty.month = true
  end
  local dayUsed = usedOf(q, dayField)
  local dayFloor = tonumber(ARGV[a + 14])
  if dayFloor > dayUsed then
    dayUsed = dayFloor
    q.fields[dayField] = dayUsed
    q.dirty[dayField] = true
  end

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
    reply(i, refusal, burstCount, minuteCount, oldestAbove(w, burstCutoff), oldestAbove(w, minuteCutoff), dayUsed, monthUsed)
  else
    added(w, tonumber(nowMs), ARGV[a + 11])
    if chargesQuota then
      dayUsed = dayUsed + units
      monthUsed = monthUsed + units
      q.fields.month = monthUsed
      q.fields[dayField] = dayUsed
      q.dirty.month = true
      q.dirty[dayField] = true
    end
    reply(i, 0, burstCount + 1, minuteCount + 1, '', '', dayUsed, monthUsed)
  end
end

for _, w in ipairs(windowOrder) do
  if #w.members > 0 then
    redis.call('ZADD', w.key, unpack(w.members))
    redis.call('PEXPIRE', w.key, ${PER_MINUTE_WINDOW_MS})
  end
end
for _, q in ipairs(quotaOrder) do
  local fieldsAndValues = {}
  for field in pairs(q.dirty) do
    table.insert(fieldsAndValues, field)
    table.insert(fieldsAndValues, q.fields[field])
  end
  if #fieldsAndValues > 0 then
    redis.call('HSET', q.key, unpack(fieldsAndValues))
    if q.ttl then redis.call('EXPIRE', q.key, q.ttl) end
  end
end
return replies
`;

/** Consumes per EVALSHA at most: a batch's reply stays small and its script run short. */
export const REDIS_CONSUME_BATCH = 64;

type ScriptReply = [number, number, number, string, string, number, number];

interface LimitsCommands {
  /** numberOfKeys, the keys, then the arguments (the key count varies with the batch). */
  consumeLimits(numberOfKeys: number, ...keysAndArgs: string[]): Promise<Array<ScriptReply[number]>>;
}

/** A consume waiting for its batch: its keys and arguments, and how to answer it. */
interface PendingConsume {
  keys: [window: string, quota: string];
  args: string[];
  resolve(reply: ScriptReply): void;
  reject(error: unknown): void;
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
  return keysOf(clientId, environment, dhakaDayOf(at.getTime()));
}

function keysOf(clientId: number, environment: ConsumeRequest['environment'], day: DhakaDay) {
  const prefix = `limits:${clientId}:${environment}`;
  return { window: `${prefix}:window`, quota: `${prefix}:quota:${day.monthKey}`, dayField: day.dayKey };
}

const secondsUntil = (resetAt: Date, nowMs: number) => Math.ceil((resetAt.getTime() - nowMs) / 1_000);

/**
 * Shared by every API replica: one EVALSHA per batch of the consumes made in the same turn of the event loop
 * (ioredis loads the script on NOSCRIPT by EVAL).
 */
export function createRedisLimits(redisUrl: string, options: { timeoutMs?: number; now?: Clock } = {}): Limits {
  const timeoutMs = options.timeoutMs ?? 1_000;
  const now = options.now ?? Date.now;
  const client = createRedisClient(redisUrl, timeoutMs);
  client.defineCommand('consumeLimits', { lua: CONSUME_SCRIPT });
  const commands = client as unknown as LimitsCommands;

  // Window members must be unique, or two requests in the same millisecond would count once: a random
  // prefix per adapter instance (so replicas differ) and a sequence within it.
  const memberPrefix = randomBytes(8).toString('base64url');
  let memberSequence = 0;

  let queued: PendingConsume[] = [];

  function sendBatch(batch: PendingConsume[]): void {
    const keys: string[] = [];
    const args: string[] = [];
    for (const pending of batch) {
      keys.push(pending.keys[0], pending.keys[1]);
      for (const arg of pending.args) args.push(arg);
    }
    commands.consumeLimits(keys.length, ...keys, ...args).then(
      (replies) => {
        for (const [index, pending] of batch.entries()) {
          pending.resolve(replies.slice(index * REPLY_FIELDS, (index + 1) * REPLY_FIELDS) as ScriptReply);
        }
      },
      (error: unknown) => {
        for (const pending of batch) pending.reject(error);
      },
    );
  }

  function sendQueued(): void {
    const all = queued;
    queued = [];
    for (let start = 0; start < all.length; start += REDIS_CONSUME_BATCH) sendBatch(all.slice(start, start + REDIS_CONSUME_BATCH));
  }

  /** Queues one request's script arguments; the first of a turn schedules the batch for the end of it. */
  function run(keys: PendingConsume['keys'], args: string[]): Promise<ScriptReply> {
    return new Promise((resolve, reject) => {
      if (queued.length === 0) setImmediate(sendQueued);
      queued.push({ keys, args, resolve, reject });
    });
  }

  return {
    async consume(request) {
      assertValidConsumeRequest(request);
      const { policy } = request;
      const nowMs = now();
      const day = dhakaDayOf(nowMs);
      const floor = floorFor(request, day.dayKey, day.monthKey);
      memberSequence += 1;
      const keys = keysOf(request.clientId, request.environment, day);
      let reply: ScriptReply;
      try {
        reply = await run(
          [keys.window, keys.quota],
          [
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
            String(secondsUntil(day.monthResetAt, nowMs) + COUNTER_GRACE_SECONDS),
            keys.dayField,
            String(floor.day),
            String(floor.month),
          ],
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
