import { afterEach, describe, expect, it, vi } from 'vitest';
import { orderedEventIds } from '../../src/import/orderedEventIds.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('ordered event ids', () => {
  it('when many ids are made within one millisecond, then each is a UUIDv7 of that millisecond and greater than the one before', () => {
    const now = Date.UTC(2030, 0, 1);
    vi.spyOn(Date, 'now').mockReturnValue(now);
    const next = orderedEventIds();
    // More than 2^16: the sequence's last four digits wrap around at least once.
    const ids = Array.from({ length: 150_000 }, () => next());

    expect(ids.every((id) => UUID_V7.test(id))).toBe(true);
    expect(ids.every((id) => id.startsWith(`${now.toString(16).padStart(12, '0').slice(0, 8)}-`))).toBe(true);
    expect(ids.findIndex((id, index) => index > 0 && id <= ids[index - 1]!)).toBe(-1);
  });

  it('when the clock moves on, then the ids carry the new millisecond and keep increasing', () => {
    const clock = vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2030, 0, 1));
    const next = orderedEventIds();
    const before = next();
    clock.mockReturnValue(Date.UTC(2030, 0, 1) + 1);
    const after = next();

    expect(after > before).toBe(true);
    expect(after.replace(/-/g, '').slice(0, 12)).toBe((Date.UTC(2030, 0, 1) + 1).toString(16).padStart(12, '0'));
  });
});
