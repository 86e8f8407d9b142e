import { afterEach, describe, expect, it } from 'vitest';
import type { PdfRenderNotices } from '../../src/pdf/pdfRenderNotices.js';

/** A waiting side and an announcing side: one object in process, two processes' worth over Redis. */
export interface NoticePair {
  waiter: PdfRenderNotices;
  announcer: PdfRenderNotices;
}

const fingerprint = (n: number) => n.toString(16).padStart(64, '0');

/** What every adapter of PdfRenderNotices does; each adapter's spec calls it. */
export function pdfRenderNoticesContract(name: string, open: () => NoticePair): void {
  describe(`${name} PDF render notices`, () => {
    const opened: NoticePair[] = [];
    const pair = () => {
      const notices = open();
      opened.push(notices);
      return notices;
    };
    afterEach(async () => {
      for (const { waiter, announcer } of opened.splice(0)) await Promise.all([...new Set([waiter, announcer])].map((n) => n.close()));
    });

    it('when the fingerprint is announced while a request waits, then the wait ends long before its timeout', async () => {
      const { waiter, announcer } = pair();
      const startedAt = Date.now();
      const waiting = waiter.wait(fingerprint(1), 5_000);
      // The announcement may race the waiter's subscription: announce until the wait ends.
      const repeat = setInterval(() => announcer.announce(fingerprint(1)), 20);
      try {
        await waiting;
      } finally {
        clearInterval(repeat);
      }
      expect(Date.now() - startedAt).toBeLessThan(2_000);
    });

    it('when another fingerprint is announced, then the wait runs to its timeout', async () => {
      const { waiter, announcer } = pair();
      await waiter.wait(fingerprint(2), 1);
      const startedAt = Date.now();
      const waiting = waiter.wait(fingerprint(3), 300);
      announcer.announce(fingerprint(4));
      await waiting;
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
    });

    it('when nothing is announced, then the wait resolves after its time', async () => {
      const { waiter } = pair();
      const startedAt = Date.now();
      await waiter.wait(fingerprint(5), 150);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(140);
    });

    it('when several requests wait for one fingerprint, then one announcement ends every wait', async () => {
      const { waiter, announcer } = pair();
      await waiter.wait(fingerprint(6), 1);
      const startedAt = Date.now();
      const waits = [waiter.wait(fingerprint(7), 5_000), waiter.wait(fingerprint(7), 5_000), waiter.wait(fingerprint(7), 5_000)];
      const repeat = setInterval(() => announcer.announce(fingerprint(7)), 20);
      try {
        await Promise.all(waits);
      } finally {
        clearInterval(repeat);
      }
      expect(Date.now() - startedAt).toBeLessThan(2_000);
    });

    it('when the notices are closed, then the requests still waiting are let go at once', async () => {
      const { waiter } = pair();
      const startedAt = Date.now();
      const waiting = waiter.wait(fingerprint(8), 5_000);
      await waiter.close();
      await waiting;
      expect(Date.now() - startedAt).toBeLessThan(2_000);
    });
  });
}
