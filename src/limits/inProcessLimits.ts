import {
  assertValidConsumeRequest,
  consumeResult,
  dhakaDayOf,
  floorFor,
  PER_MINUTE_WINDOW_MS,
  refusalOf,
  type Clock,
  type Limits,
  type LimitSnapshot,
} from './limits.js';

/** A calendar counter: the period it counts (Dhaka day or month key) and the units used in it. */
interface PeriodCounter {
  period: string;
  used: number;
}

interface ClientEnvironmentUsage {
  /** Timestamps (ms) of the requests still inside each window, oldest first. */
  burst: number[];
  minute: number[];
  day: PeriodCounter;
  month: PeriodCounter;
}

/** Drops the timestamps that have left a window ending at `nowMs`; they are kept oldest first. */
function pruneWindow(timestamps: number[], windowMs: number, nowMs: number): void {
  const cutoff = nowMs - windowMs;
  let expired = 0;
  while (expired < timestamps.length && timestamps[expired]! <= cutoff) expired += 1;
  if (expired > 0) timestamps.splice(0, expired);
}

/**
 * A counter of another period has passed its reset: the new period starts from zero. Either way the count
 * is at least the floor known from elsewhere.
 */
function currentPeriod(counter: PeriodCounter, period: string, floor: number): PeriodCounter {
  const current = counter.period === period ? counter : { period, used: 0 };
  current.used = Math.max(current.used, floor);
  return current;
}

function snapshotOf(current: ClientEnvironmentUsage): LimitSnapshot {
  return {
    burstCount: current.burst.length,
    minuteCount: current.minute.length,
    burstOldestMs: current.burst[0] ?? null,
    minuteOldestMs: current.minute[0] ?? null,
    dayUsed: current.day.used,
    monthUsed: current.month.used,
  };
}

/**
 * Embedded mode: one process, so a consume runs to completion without interleaving and is atomic by
 * construction. Memory per client environment is bounded by its burst and per-minute limits (timestamps
 * outside a window are pruned on every consume) plus two counters, each replaced once its period is over.
 */
export function createInProcessLimits(options: { now?: Clock } = {}): Limits {
  const now = options.now ?? Date.now;
  const usage = new Map<string, ClientEnvironmentUsage>();

  return {
    async consume(request) {
      assertValidConsumeRequest(request);
      const nowMs = now();
      const usageKey = `${request.clientId}:${request.environment}`;
      const stored = usage.get(usageKey);
      const { dayKey, monthKey } = dhakaDayOf(nowMs);
      const floor = floorFor(request, dayKey, monthKey);
      const current: ClientEnvironmentUsage = {
        burst: stored?.burst ?? [],
        minute: stored?.minute ?? [],
        day: currentPeriod(stored?.day ?? { period: '', used: 0 }, dayKey, floor.day),
        month: currentPeriod(stored?.month ?? { period: '', used: 0 }, monthKey, floor.month),
      };
      usage.set(usageKey, current);
      pruneWindow(current.burst, request.policy.burst.windowMs, nowMs);
      pruneWindow(current.minute, PER_MINUTE_WINDOW_MS, nowMs);

      const before = snapshotOf(current);
      const refusal = refusalOf(request, before);
      if (refusal !== null) return consumeResult(request, nowMs, before, refusal);

      current.burst.push(nowMs);
      current.minute.push(nowMs);
      if (request.chargesQuota) {
        current.day.used += request.units;
        current.month.used += request.units;
      }
      return consumeResult(request, nowMs, snapshotOf(current), null);
    },
    async close() {
      usage.clear();
    },
  };
}
