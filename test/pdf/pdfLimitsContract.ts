import { describe, expect, it } from 'vitest';
import type { PdfLimiter } from '../../src/pdf/pdfLimits.js';

/** What every PdfLimiter adapter must do; `make` gets a clock the suite moves and a fresh client id range. */
export function pdfLimiterContract(name: string, make: (now: () => number) => PdfLimiter) {
  describe(`${name}: PDF limits contract`, () => {
    const limits = { per_minute: 5, daily: 7, monthly: 9 };
    let clientId = Math.floor(Math.random() * 1_000_000_000);
    const nextClient = () => (clientId += 1);

    it('when 20 consumes run at once against 5 per minute, then exactly 5 pass and the others are told when the minute frees', async () => {
      let nowMs = Date.UTC(2025, 2, 10, 6);
      const limiter = make(() => nowMs);
      const client = nextClient();
      const results = await Promise.all(Array.from({ length: 20 }, () => limiter.consume(client, limits)));
      expect(results.filter((result) => result.allowed)).toHaveLength(5);
      const refused = results.find((result) => !result.allowed)!;
      expect(refused).toMatchObject({ allowed: false, code: 'PER_MINUTE_LIMIT_EXCEEDED', retryAfterSeconds: 60 });
      expect(refused.minute).toMatchObject({ limit: 5, used: 5, remaining: 0 });
      nowMs += 60_001;
      expect(await limiter.consume(client, limits)).toMatchObject({ allowed: true, daily: { used: 6, remaining: 1 } });
      await limiter.close();
    });

    it('when the day is used up, then DAILY_LIMIT_EXCEEDED until Dhaka midnight; then the month stops it', async () => {
      // 17:00 UTC is 23:00 in Dhaka: the day resets an hour later.
      let nowMs = Date.UTC(2025, 2, 10, 17);
      const limiter = make(() => nowMs);
      const client = nextClient();
      for (let unit = 0; unit < 7; unit += 1) {
        nowMs += 61_000;
        expect((await limiter.consume(client, limits)).allowed).toBe(true);
      }
      nowMs += 61_000;
      const refused = await limiter.consume(client, limits);
      expect(refused).toMatchObject({ allowed: false, code: 'DAILY_LIMIT_EXCEEDED', daily: { used: 7, remaining: 0 } });
      expect(refused.allowed ? null : refused.resetAt.toISOString()).toBe('2025-03-10T18:00:00.000Z');
      nowMs = Date.UTC(2025, 2, 10, 18, 30);
      expect(await limiter.consume(client, limits)).toMatchObject({ allowed: true, daily: { used: 1 }, monthly: { used: 8 } });
      nowMs += 61_000;
      expect(await limiter.consume(client, limits)).toMatchObject({ allowed: true, monthly: { used: 9, remaining: 0 } });
      nowMs += 61_000;
      expect(await limiter.consume(client, limits)).toMatchObject({ allowed: false, code: 'MONTHLY_LIMIT_EXCEEDED' });
      await limiter.close();
    });

    it('when one client is refused, then another client is not', async () => {
      const nowMs = Date.UTC(2025, 2, 10, 6);
      const limiter = make(() => nowMs);
      const [first, second] = [nextClient(), nextClient()];
      for (let unit = 0; unit < 5; unit += 1) await limiter.consume(first, limits);
      expect((await limiter.consume(first, limits)).allowed).toBe(false);
      expect((await limiter.consume(second, limits)).allowed).toBe(true);
      await limiter.close();
    });
  });
}
