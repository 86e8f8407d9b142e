import { describe, expect, it } from 'vitest';
import { nextAttemptAt, RETRY_DELAYS_SECONDS } from '../../src/webhooks/retrySchedule.js';

const failedAt = new Date('2026-01-01T00:00:00.000Z');
const secondsAfterFailure = (next: Date | null) => (next === null ? null : (next.getTime() - failedAt.getTime()) / 1000);
const fixed = (value: number) => () => value;

describe('retry schedule', () => {
  it("when read, then it is DESIGN.md's: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    expect(RETRY_DELAYS_SECONDS).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(Object.isFrozen(RETRY_DELAYS_SECONDS)).toBe(true);
  });

  describe('when the jitter draw is in the middle, then each retry waits the scheduled time exactly', () => {
    it.each([
      [2, 5],
      [3, 300],
      [4, 1800],
      [5, 7200],
      [6, 18000],
      [7, 36000],
      [8, 36000],
    ])('attempt %i failed: retry after %i s', (attempt, seconds) => {
      expect(secondsAfterFailure(nextAttemptAt(attempt, failedAt, fixed(0.5)))).toBe(seconds);
    });
  });

  it('when the first attempt fails, then the retry is immediate, spread over a second at most', () => {
    expect(secondsAfterFailure(nextAttemptAt(1, failedAt, fixed(0)))).toBe(0);
    expect(secondsAfterFailure(nextAttemptAt(1, failedAt, fixed(0.5)))).toBe(0.5);
    expect(secondsAfterFailure(nextAttemptAt(1, failedAt, fixed(0.9999)))).toBe(1);
  });

  describe('when the draw is at either end, then the wait moves by a fifth at most, never below zero', () => {
    it.each([
      [2, 0, 4],
      [2, 0.99999999, 6],
      [3, 0, 240],
      [3, 0.99999999, 360],
      [8, 0, 28800],
      [8, 0.99999999, 43200],
    ])('attempt %i, draw %f: %i s', (attempt, draw, seconds) => {
      expect(secondsAfterFailure(nextAttemptAt(attempt, failedAt, fixed(draw)))).toBe(seconds);
    });

    it('and a random source that strays outside [0, 1) is held to it', () => {
      expect(secondsAfterFailure(nextAttemptAt(3, failedAt, fixed(-5)))).toBe(240);
      expect(secondsAfterFailure(nextAttemptAt(3, failedAt, fixed(7)))).toBe(360);
    });
  });

  it('when Math.random draws, then every wait of every attempt stays within its band', () => {
    for (let round = 0; round < 500; round += 1) {
      RETRY_DELAYS_SECONDS.forEach((scheduled, index) => {
        const waited = secondsAfterFailure(nextAttemptAt(index + 1, failedAt, Math.random))!;
        if (scheduled === 0) expect(waited).toBeGreaterThanOrEqual(0);
        if (scheduled === 0) expect(waited).toBeLessThanOrEqual(1);
        if (scheduled > 0) expect(waited).toBeGreaterThanOrEqual(scheduled * 0.8);
        if (scheduled > 0) expect(waited).toBeLessThanOrEqual(scheduled * 1.2);
      });
    }
  });

  it('when the ninth attempt (the eighth retry) fails, then there is no next attempt', () => {
    expect(nextAttemptAt(8, failedAt, fixed(0.5))).not.toBeNull();
    expect(nextAttemptAt(9, failedAt, fixed(0.5))).toBeNull();
    expect(nextAttemptAt(50, failedAt, fixed(0.5))).toBeNull();
  });

  it('when the whole schedule runs without jitter, then the last attempt comes about 28 hours after the first', () => {
    const total = RETRY_DELAYS_SECONDS.reduce((sum, seconds) => sum + seconds, 0);
    expect(total).toBe(99_305);
    expect(total / 3600).toBeCloseTo(27.6, 1);
  });

  it('when the attempt number is not a positive whole number, then it is a programming error', () => {
    for (const attempt of [0, -1, 1.5, Number.NaN]) expect(() => nextAttemptAt(attempt, failedAt, Math.random)).toThrow(RangeError);
  });
});
