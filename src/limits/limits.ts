import type { KeyEnvironment } from '../vocabulary/keyEnvironment.js';

/**
 * Rate limits and quotas of one client environment (Limits in the contract). One `consume` call checks
 * every limit and, only when the request is allowed, records it: a refused request leaves no trace.
 *
 * Check order when several limits are exceeded (the first one answers): burst, per minute, daily,
 * monthly. The cheap, short-lived limits come first so that a client hammering the API is told to slow
 * down (seconds) rather than that its day is over.
 */
export interface Limits {
  consume(request: ConsumeRequest): Promise<ConsumeResult>;
  close(): Promise<void>;
}

/** The limits a plan (or a client's contract) sets for one environment; every count is an integer >= 1. */
export interface LimitPolicy {
  /** Rolling window of a few seconds, counted in requests (DESIGN default: 20 per 2,000 ms). */
  burst: { limit: number; windowMs: number };
  /** Requests per rolling 60 s. */
  perMinute: number;
  /** Units per calendar day in Asia/Dhaka; null: no daily cap. */
  daily: number | null;
  /** Units per calendar month in Asia/Dhaka; null: no monthly allowance (test keys). */
  monthly: number | null;
  /**
   * Past the monthly allowance requests are allowed, reported as overage and billed at this price instead
   * of refused; null: refused (the default).
   */
  overage: OveragePrice | null;
}

/** What one request past the monthly allowance costs, as a plan states it (a decimal string, not a float). */
export interface OveragePrice {
  price_per_request: string;
  currency: string;
}

/**
 * Usage of the current Dhaka day and month known from elsewhere (the durable usage record, or what the
 * shared counters said before they were lost). A limiter counts from at least these figures, so usage
 * survives a restart of the process or of Redis; a figure for another period than the limiter's own is
 * ignored (the period turned between reading the floor and consuming).
 */
export interface UsageFloor {
  dayKey: string;
  day: number;
  monthKey: string;
  month: number;
}

export interface ConsumeRequest {
  clientId: number;
  environment: KeyEnvironment;
  policy: LimitPolicy;
  /** Daily and monthly quota cost (a weighted batch costs several); burst and per minute count 1 request. */
  units: number;
  /** False for a 304 Not Modified: counted by burst and per minute, but it costs no daily or monthly quota. */
  chargesQuota: boolean;
  usageFloor?: UsageFloor;
}

export type LimitCode = 'BURST_LIMIT_EXCEEDED' | 'PER_MINUTE_LIMIT_EXCEEDED' | 'DAILY_LIMIT_EXCEEDED' | 'MONTHLY_LIMIT_EXCEEDED';

/**
 * A calendar quota after the request (allowed) or as it stands (refused). Usage is counted even without a
 * cap, so `used` is always the period's real figure; an uncapped quota reports `limit` and `remaining` as
 * null rather than an invented integer (0 would read as "exhausted", -1 as a number to compute with), and
 * the HTTP layer leaves its headers out. `remaining` never goes below 0, also in overage.
 */
export interface QuotaState {
  limit: number | null;
  used: number;
  remaining: number | null;
  /** The next Asia/Dhaka midnight (daily) or first of the month at that midnight (monthly). */
  resetAt: Date;
}

/** RateLimit-Limit / RateLimit-Remaining: the per-minute limit and what is left of it. */
export interface RateLimitState {
  limit: number;
  remaining: number;
}

export interface ConsumeAllowed {
  allowed: true;
  /** True when some of this request's units went past the monthly allowance (overage plans only). */
  overage: boolean;
  /** How many of this request's units are billed as overage; 0 when none. */
  overageUnits: number;
  rateLimit: RateLimitState;
  daily: QuotaState;
  monthly: QuotaState;
}

export interface ConsumeRefused {
  allowed: false;
  code: LimitCode;
  /**
   * Whole seconds, rounded up, until the same request could pass the limit that refused it: for burst and
   * per minute, until the oldest request in the window leaves it; for daily and monthly, until the reset.
   * A batch costing more units than the whole cap is still told the reset: the limit is bounded, the plan
   * is what the client must change.
   */
  retryAfterSeconds: number;
  /** The instant `retryAfterSeconds` points at, before rounding. */
  resetAt: Date;
  rateLimit: RateLimitState;
  daily: QuotaState;
  monthly: QuotaState;
}

export type ConsumeResult = ConsumeAllowed | ConsumeRefused;

/** Injected so tests move time without sleeping; milliseconds since the epoch. */
export type Clock = () => number;

export const PER_MINUTE_WINDOW_MS = 60_000;

/** Asia/Dhaka is UTC+6 all year (no daylight saving time), so a fixed offset is exact. */
const DHAKA_OFFSET_MS = 6 * 3_600_000;

/** Year, month (0-based) and day of `at` on the Dhaka wall calendar. */
function dhakaCalendar(at: Date): { year: number; month: number; day: number } {
  const local = new Date(at.getTime() + DHAKA_OFFSET_MS);
  return { year: local.getUTCFullYear(), month: local.getUTCMonth(), day: local.getUTCDate() };
}

const twoDigits = (value: number) => String(value).padStart(2, '0');

/** `YYYY-MM-DD` of the Dhaka calendar day containing `at`. */
export function dhakaDayKey(at: Date): string {
  const { year, month, day } = dhakaCalendar(at);
  return `${year}-${twoDigits(month + 1)}-${twoDigits(day)}`;
}

/** `YYYY-MM` of the Dhaka calendar month containing `at`. */
export function dhakaMonthKey(at: Date): string {
  const { year, month } = dhakaCalendar(at);
  return `${year}-${twoDigits(month + 1)}`;
}

/** The first Dhaka midnight after `at`: when the daily quota resets. */
export function nextDhakaDayStart(at: Date): Date {
  const { year, month, day } = dhakaCalendar(at);
  return new Date(Date.UTC(year, month, day + 1) - DHAKA_OFFSET_MS);
}

/** Midnight in Dhaka on the first of the month after `at`: when the monthly quota resets. */
export function nextDhakaMonthStart(at: Date): Date {
  const { year, month } = dhakaCalendar(at);
  return new Date(Date.UTC(year, month + 1, 1) - DHAKA_OFFSET_MS);
}

/**
 * The Dhaka calendar day an instant falls in: its day and month keys and both resets. Every request of a day
 * needs the same figures, so the last day is kept and handed out again; its Dates are shared and never
 * changed.
 */
export interface DhakaDay {
  dayKey: string;
  monthKey: string;
  /** The day's first millisecond (its midnight in Dhaka). */
  startMs: number;
  /** The next Dhaka midnight: when the daily quota resets. */
  dayResetAt: Date;
  /** Midnight in Dhaka on the first of the next month: when the monthly quota resets. */
  monthResetAt: Date;
}

const DAY_MS = 86_400_000;

let lastDhakaDay: DhakaDay | null = null;

export function dhakaDayOf(atMs: number): DhakaDay {
  const last = lastDhakaDay;
  if (last !== null && atMs >= last.startMs && atMs < last.dayResetAt.getTime()) return last;
  const at = new Date(atMs);
  const dayResetAt = nextDhakaDayStart(at);
  lastDhakaDay = {
    dayKey: dhakaDayKey(at),
    monthKey: dhakaMonthKey(at),
    startMs: dayResetAt.getTime() - DAY_MS,
    dayResetAt,
    monthResetAt: nextDhakaMonthStart(at),
  };
  return lastDhakaDay;
}

const isCount = (value: number) => Number.isSafeInteger(value) && value >= 1;

/**
 * A policy or request outside these bounds is a bug of the caller, not a client error: a zero limit would
 * refuse every request without a window to wait for, and fractional units would break integer billing.
 */
export function assertValidConsumeRequest(request: ConsumeRequest): void {
  const { policy, units } = request;
  const problems: string[] = [];
  if (!Number.isSafeInteger(request.clientId)) problems.push('clientId must be an integer');
  if (!isCount(units)) problems.push('units must be an integer >= 1');
  if (!validPolicies.has(policy)) problems.push(...policyProblems(policy));
  const floor = request.usageFloor;
  if (floor && !(Number.isSafeInteger(floor.day) && floor.day >= 0 && Number.isSafeInteger(floor.month) && floor.month >= 0)) {
    problems.push('usageFloor figures must be integers >= 0');
  }
  if (problems.length > 0) throw new RangeError(`Invalid limits request: ${problems.join('; ')}`);
}

/**
 * Policies already found valid: a client's policy object is made once per client document (see
 * lookupAccess) and comes with every request of that client. Policies are not changed once made.
 */
const validPolicies = new WeakSet<LimitPolicy>();

function policyProblems(policy: LimitPolicy): string[] {
  const problems: string[] = [];
  if (!isCount(policy.burst.limit)) problems.push('burst.limit must be an integer >= 1');
  if (!isCount(policy.burst.windowMs) || policy.burst.windowMs > PER_MINUTE_WINDOW_MS) {
    // The Redis adapter keeps one window: the burst window must be the newest part of the minute.
    problems.push('burst.windowMs must be an integer from 1 to 60,000');
  }
  if (!isCount(policy.perMinute)) problems.push('perMinute must be an integer >= 1');
  if (policy.daily !== null && !isCount(policy.daily)) problems.push('daily must be null or an integer >= 1');
  if (policy.monthly !== null && !isCount(policy.monthly)) problems.push('monthly must be null or an integer >= 1');
  if (problems.length === 0) validPolicies.add(policy);
  return problems;
}

/** The floor's day and month figures that apply to the limiter's own periods (0 for any other period). */
export function floorFor(request: ConsumeRequest, dayKey: string, monthKey: string): { day: number; month: number } {
  const floor = request.usageFloor;
  return {
    day: floor?.dayKey === dayKey ? floor.day : 0,
    month: floor?.monthKey === monthKey ? floor.month : 0,
  };
}

/** What a consume saw before deciding, as both adapters gather it. */
export interface LimitSnapshot {
  /** Requests in each window, old ones already dropped, not counting this one. */
  burstCount: number;
  minuteCount: number;
  /** Timestamp (ms) of the oldest request in each window; null when the window is empty. */
  burstOldestMs: number | null;
  minuteOldestMs: number | null;
  dayUsed: number;
  monthUsed: number;
}

/** Why a snapshot refuses the request, or null when it may pass; the check order lives here only. */
export function refusalOf(request: ConsumeRequest, snapshot: LimitSnapshot): LimitCode | null {
  const { policy, units } = request;
  if (snapshot.burstCount >= policy.burst.limit) return 'BURST_LIMIT_EXCEEDED';
  if (snapshot.minuteCount >= policy.perMinute) return 'PER_MINUTE_LIMIT_EXCEEDED';
  // A request that costs no quota cannot exceed one.
  if (!request.chargesQuota) return null;
  if (policy.daily !== null && snapshot.dayUsed + units > policy.daily) return 'DAILY_LIMIT_EXCEEDED';
  if (policy.monthly !== null && policy.overage === null && snapshot.monthUsed + units > policy.monthly) {
    return 'MONTHLY_LIMIT_EXCEEDED';
  }
  return null;
}

function quotaState(limit: number | null, used: number, resetAt: Date): QuotaState {
  return { limit, used, remaining: limit === null ? null : Math.max(0, limit - used), resetAt };
}

/**
 * The result both adapters answer. For an allowed request the snapshot is the state after recording it
 * (window counts and usage include it); for a refusal, the state left untouched.
 */
export function consumeResult(request: ConsumeRequest, nowMs: number, snapshot: LimitSnapshot, refusal: LimitCode | null): ConsumeResult {
  const day = dhakaDayOf(nowMs);
  const { policy } = request;
  const rateLimit = { limit: policy.perMinute, remaining: Math.max(0, policy.perMinute - snapshot.minuteCount) };
  const daily = quotaState(policy.daily, snapshot.dayUsed, day.dayResetAt);
  const monthly = quotaState(policy.monthly, snapshot.monthUsed, day.monthResetAt);
  if (refusal === null) {
    const overageUnits =
      request.chargesQuota && policy.monthly !== null ? Math.min(request.units, Math.max(0, snapshot.monthUsed - policy.monthly)) : 0;
    return { allowed: true, overage: overageUnits > 0, overageUnits, rateLimit, daily, monthly };
  }
  const resetAt = refusalResetAt(refusal, policy, snapshot, daily, monthly);
  const retryAfterSeconds = Math.max(1, Math.ceil((resetAt.getTime() - nowMs) / 1_000));
  return { allowed: false, code: refusal, retryAfterSeconds, resetAt, rateLimit, daily, monthly };
}

function refusalResetAt(refusal: LimitCode, policy: LimitPolicy, snapshot: LimitSnapshot, daily: QuotaState, monthly: QuotaState): Date {
  switch (refusal) {
    // A full window is never empty, so the oldest request is known; counting from it, the window has
    // room again the moment that request leaves.
    case 'BURST_LIMIT_EXCEEDED':
      return new Date(snapshot.burstOldestMs! + policy.burst.windowMs);
    case 'PER_MINUTE_LIMIT_EXCEEDED':
      return new Date(snapshot.minuteOldestMs! + PER_MINUTE_WINDOW_MS);
    case 'DAILY_LIMIT_EXCEEDED':
      return daily.resetAt;
    case 'MONTHLY_LIMIT_EXCEEDED':
      return monthly.resetAt;
  }
}
