/**
 * DESIGN.md's webhook retry schedule: after the first attempt fails, retries follow immediately, then after
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; nine attempts in all, the last about 28 hours after the first.
 * Entry n is the wait before attempt n + 2.
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = Object.freeze([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);

/**
 * Each wait varies by up to this fraction either way, so that the deliveries of many events that failed
 * together (a receiver down, then back) do not all come back in the same second.
 */
export const RETRY_JITTER = 0.2;

/** The immediate retry is spread over this much instead (a fraction of nothing is nothing). */
export const IMMEDIATE_RETRY_SPREAD_MS = 1_000;

/**
 * When attempt `attempt` (1-based, just failed at `failedAt`) should be retried, or null after the last.
 * `random` returns a number in [0, 1) (Math.random, or a fixed one in tests).
 */
export function nextAttemptAt(attempt: number, failedAt: Date, random: () => number): Date | null {
  if (!Number.isSafeInteger(attempt) || attempt < 1) throw new RangeError(`nextAttemptAt: attempt must be 1 or more, got ${attempt}`);
  const delaySeconds = RETRY_DELAYS_SECONDS[attempt - 1];
  if (delaySeconds === undefined) return null;
  const draw = Math.min(Math.max(random(), 0), 1);
  const delayMs =
    delaySeconds === 0 ? draw * IMMEDIATE_RETRY_SPREAD_MS : delaySeconds * 1000 * (1 - RETRY_JITTER + 2 * RETRY_JITTER * draw);
  return new Date(failedAt.getTime() + Math.round(delayMs));
}
