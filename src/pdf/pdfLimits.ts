import { dhakaDayOf, PER_MINUTE_WINDOW_MS, type Clock } from '../limits/limits.js';
import type { PdfLimits } from './pdfSettings.js';

/**
 * PDF generation limits (contract: Limits, "PDF generation has its own editable minute, day and month
 * limits"): one unit per newly rendered brochure, counted per client across its keys and environments. One
 * `consume` checks the three limits and records the unit only when all pass, atomically: N concurrent
 * consumes against a limit L let exactly L through. A refused consume leaves no trace.
 *
 * Adapters: in process (embedded mode) and Redis (REDIS_URL, shared by every API replica); both pass
 * test/pdf/pdfLimitsContract.ts. Checked in this order: minute, day, month.
 */
export interface PdfLimiter {
  consume(clientId: number, limits: PdfLimits): Promise<PdfConsumeResult>;
  close(): Promise<void>;
}

export type PdfLimitCode = 'PER_MINUTE_LIMIT_EXCEEDED' | 'DAILY_LIMIT_EXCEEDED' | 'MONTHLY_LIMIT_EXCEEDED';

export interface PdfQuotaState {
  limit: number;
  used: number;
  remaining: number;
  /** Minute: when the oldest unit in the window leaves it (now when the window is empty); day and month: the Dhaka reset. */
  resetAt: Date;
}

export interface PdfLimitStates {
  minute: PdfQuotaState;
  daily: PdfQuotaState;
  monthly: PdfQuotaState;
}

export type PdfConsumeResult =
  | ({ allowed: true } & PdfLimitStates)
  | ({ allowed: false; code: PdfLimitCode; retryAfterSeconds: number; resetAt: Date } & PdfLimitStates);

/** What a consume saw: units in the rolling minute (and the oldest one's time), today and this month. */
export interface PdfUsageSnapshot {
  minuteCount: number;
  minuteOldestMs: number | null;
  dayUsed: number;
  monthUsed: number;
}

export function pdfRefusalOf(limits: PdfLimits, snapshot: PdfUsageSnapshot): PdfLimitCode | null {
  if (snapshot.minuteCount >= limits.per_minute) return 'PER_MINUTE_LIMIT_EXCEEDED';
  if (snapshot.dayUsed >= limits.daily) return 'DAILY_LIMIT_EXCEEDED';
  if (snapshot.monthUsed >= limits.monthly) return 'MONTHLY_LIMIT_EXCEEDED';
  return null;
}

const state = (limit: number, used: number, resetAt: Date): PdfQuotaState => ({
  limit,
  used,
  remaining: Math.max(0, limit - used),
  resetAt,
});

/** The answer both adapters give: after recording when allowed, as found when refused. */
export function pdfConsumeResult(
  limits: PdfLimits,
  nowMs: number,
  snapshot: PdfUsageSnapshot,
  refusal: PdfLimitCode | null,
): PdfConsumeResult {
  const day = dhakaDayOf(nowMs);
  const minuteReset = new Date((snapshot.minuteOldestMs ?? nowMs) + (snapshot.minuteOldestMs === null ? 0 : PER_MINUTE_WINDOW_MS));
  const states: PdfLimitStates = {
    minute: state(limits.per_minute, snapshot.minuteCount, minuteReset),
    daily: state(limits.daily, snapshot.dayUsed, day.dayResetAt),
    monthly: state(limits.monthly, snapshot.monthUsed, day.monthResetAt),
  };
  if (refusal === null) return { allowed: true, ...states };
  const resetAt =
    refusal === 'PER_MINUTE_LIMIT_EXCEEDED'
      ? states.minute.resetAt
      : refusal === 'DAILY_LIMIT_EXCEEDED'
        ? day.dayResetAt
        : day.monthResetAt;
  const retryAfterSeconds = Math.max(1, Math.ceil((resetAt.getTime() - nowMs) / 1_000));
  return { allowed: false, code: refusal, retryAfterSeconds, resetAt, ...states };
}

interface ClientPdfUsage {
  /** Times (ms) of the units still in the rolling minute, oldest first. */
  minute: number[];
  day: { period: string; used: number };
  month: { period: string; used: number };
}

/** Embedded mode: one process, so each consume runs to completion without interleaving. */
export function createInProcessPdfLimiter(options: { now?: Clock } = {}): PdfLimiter {
  const now = options.now ?? Date.now;
  const usage = new Map<number, ClientPdfUsage>();
  return {
    async consume(clientId, limits) {
      const nowMs = now();
      const { dayKey, monthKey } = dhakaDayOf(nowMs);
      const stored = usage.get(clientId);
      const current: ClientPdfUsage = {
        minute: (stored?.minute ?? []).filter((at) => at > nowMs - PER_MINUTE_WINDOW_MS),
        day: stored?.day.period === dayKey ? stored.day : { period: dayKey, used: 0 },
        month: stored?.month.period === monthKey ? stored.month : { period: monthKey, used: 0 },
      };
      usage.set(clientId, current);
      const snapshot = (): PdfUsageSnapshot => ({
        minuteCount: current.minute.length,
        minuteOldestMs: current.minute[0] ?? null,
        dayUsed: current.day.used,
        monthUsed: current.month.used,
      });
      const refusal = pdfRefusalOf(limits, snapshot());
      if (refusal !== null) return pdfConsumeResult(limits, nowMs, snapshot(), refusal);
      current.minute.push(nowMs);
      current.day.used += 1;
      current.month.used += 1;
      return pdfConsumeResult(limits, nowMs, snapshot(), null);
    },
    async close() {
      usage.clear();
    },
  };
}
