import { describe, expect, it } from 'vitest';
import { dhakaDayKey, dhakaMonthKey, nextDhakaDayStart, nextDhakaMonthStart } from '../../src/limits/limits.js';

const at = (iso: string) => new Date(iso);

describe('Dhaka quota calendar (UTC+6, no DST)', () => {
  it('when it is 18:00 UTC on 31 January, then in Dhaka it is already 1 February: new day and new month', () => {
    expect(dhakaDayKey(at('2026-01-31T18:00:00Z'))).toBe('2026-02-01');
    expect(dhakaMonthKey(at('2026-01-31T18:00:00Z'))).toBe('2026-02');
    expect(dhakaDayKey(at('2026-01-31T17:59:59.999Z'))).toBe('2026-01-31');
    expect(dhakaMonthKey(at('2026-01-31T17:59:59.999Z'))).toBe('2026-01');
  });

  it('when it is 17:59:59 UTC on 31 December, then Dhaka is still in 2026-12-31, and a second later in 2027', () => {
    expect(dhakaDayKey(at('2026-12-31T17:59:59Z'))).toBe('2026-12-31');
    expect(dhakaMonthKey(at('2026-12-31T17:59:59Z'))).toBe('2026-12');
    expect(dhakaDayKey(at('2026-12-31T18:00:00Z'))).toBe('2027-01-01');
    expect(dhakaMonthKey(at('2026-12-31T18:00:00Z'))).toBe('2027-01');
  });

  it('when the UTC date is earlier than the Dhaka date, then the Dhaka date is used (00:30 Dhaka is 18:30 UTC the day before)', () => {
    expect(dhakaDayKey(at('2026-06-14T18:30:00Z'))).toBe('2026-06-15');
  });

  it('when asked for the next daily reset, then it is the next Dhaka midnight, 18:00 UTC, and a reset instant itself starts a new day', () => {
    expect(nextDhakaDayStart(at('2026-03-15T06:00:00Z')).toISOString()).toBe('2026-03-15T18:00:00.000Z');
    expect(nextDhakaDayStart(at('2026-03-15T17:59:59.999Z')).toISOString()).toBe('2026-03-15T18:00:00.000Z');
    expect(nextDhakaDayStart(at('2026-03-15T18:00:00Z')).toISOString()).toBe('2026-03-16T18:00:00.000Z');
  });

  it('when asked for the next monthly reset, then it is Dhaka midnight on the 1st, across short months, leap years and the year end', () => {
    expect(nextDhakaMonthStart(at('2026-01-31T17:59:59Z')).toISOString()).toBe('2026-01-31T18:00:00.000Z');
    expect(nextDhakaMonthStart(at('2026-01-31T18:00:00Z')).toISOString()).toBe('2026-02-28T18:00:00.000Z');
    expect(nextDhakaMonthStart(at('2028-02-10T00:00:00Z')).toISOString()).toBe('2028-02-29T18:00:00.000Z');
    expect(nextDhakaMonthStart(at('2026-12-31T17:59:59Z')).toISOString()).toBe('2026-12-31T18:00:00.000Z');
    expect(nextDhakaMonthStart(at('2026-12-31T18:00:00Z')).toISOString()).toBe('2027-01-31T18:00:00.000Z');
  });
});
