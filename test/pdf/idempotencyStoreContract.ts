import { describe, expect, it } from 'vitest';
import type { IdempotencyStore, IdempotencyTimes } from '../../src/pdf/idempotencyStore.js';

interface StoredAnswer {
  fingerprint: string;
  pages: number;
}

const TIMES = { retentionMs: 24 * 3_600_000, inFlightLeaseMs: 40_000 };

/** What every IdempotencyStore adapter must do; `make` gets the times with a clock the suite moves. */
export function idempotencyStoreContract(name: string, make: (times: IdempotencyTimes) => Promise<IdempotencyStore<StoredAnswer>>) {
  describe(`${name}: idempotency store contract`, () => {
    let clientId = Math.floor(Math.random() * 1_000_000_000);
    const nextClient = () => (clientId += 1);
    const answer: StoredAnswer = { fingerprint: 'f'.repeat(64), pages: 6 };

    const started = async () => {
      const clock = { nowMs: Date.UTC(2025, 2, 10, 6) };
      const store = await make({ ...TIMES, now: () => clock.nowMs });
      return { clock, store };
    };

    it('when 50 reserves of one key run at once, then exactly one is new and the others see it in flight', async () => {
      const { store } = await started();
      const client = nextClient();
      const reservations = await Promise.all(Array.from({ length: 50 }, () => store.reserve(client, 'key-1', 'hash-a')));
      expect(reservations.filter((reservation) => reservation.status === 'new')).toHaveLength(1);
      expect(reservations.filter((reservation) => reservation.status === 'in_flight')).toHaveLength(49);
      await store.close();
    });

    it('when a completed key is used again, then the same request gets the result and another request a mismatch, for 24 h', async () => {
      const { clock, store } = await started();
      const client = nextClient();
      const first = await store.reserve(client, 'key-2', 'hash-a');
      if (first.status !== 'new') throw new Error(`expected a new reservation, got ${first.status}`);
      expect(await store.reserve(client, 'key-2', 'hash-b')).toEqual({ status: 'mismatch' });
      await store.complete(client, 'key-2', first.token, answer);
      clock.nowMs += TIMES.retentionMs - 1;
      expect(await store.reserve(client, 'key-2', 'hash-a')).toEqual({ status: 'completed', result: answer });
      expect(await store.reserve(client, 'key-2', 'hash-b')).toEqual({ status: 'mismatch' });
      clock.nowMs += 1;
      expect((await store.reserve(client, 'key-2', 'hash-b')).status).toBe('new');
      await store.close();
    });

    it('when a reservation is released, then the key is free again; a stale token changes nothing', async () => {
      const { store } = await started();
      const client = nextClient();
      const first = await store.reserve(client, 'key-3', 'hash-a');
      if (first.status !== 'new') throw new Error('expected a new reservation');
      await store.release(client, 'key-3', 'not-the-token');
      expect(await store.reserve(client, 'key-3', 'hash-a')).toEqual({ status: 'in_flight' });
      await store.release(client, 'key-3', first.token);
      const second = await store.reserve(client, 'key-3', 'hash-b');
      expect(second.status).toBe('new');
      await store.complete(client, 'key-3', first.token, answer);
      expect(await store.reserve(client, 'key-3', 'hash-b')).toEqual({ status: 'in_flight' });
      await store.close();
    });

    it('when a reservation is neither completed nor released within its lease, then it lapses and the key is free', async () => {
      const { clock, store } = await started();
      const client = nextClient();
      const first = await store.reserve(client, 'key-4', 'hash-a');
      clock.nowMs += TIMES.inFlightLeaseMs;
      const second = await store.reserve(client, 'key-4', 'hash-a');
      expect(second.status).toBe('new');
      if (first.status !== 'new' || second.status !== 'new') throw new Error('expected new reservations');
      await store.complete(client, 'key-4', first.token, { ...answer, pages: 1 });
      await store.complete(client, 'key-4', second.token, answer);
      expect(await store.reserve(client, 'key-4', 'hash-a')).toEqual({ status: 'completed', result: answer });
      await store.close();
    });

    it('when two clients use the same key, then each has its own', async () => {
      const { store } = await started();
      const [first, second] = [nextClient(), nextClient()];
      expect((await store.reserve(first, 'shared', 'hash-a')).status).toBe('new');
      expect((await store.reserve(second, 'shared', 'hash-b')).status).toBe('new');
      await store.close();
    });
  });
}
