import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeaseGrant, ProjectorLease } from '../../src/projectionEngine/projectorLease.js';

/**
 * Opens a lease store on the suite's shared backend (one SQLite file, one Redis key prefix): every store it
 * opens is another holder competing for the same names.
 */
export type OpenProjectorLease = (ttlMs: number) => Promise<ProjectorLease>;

/** Long enough that a loaded machine renews well within it, short enough to wait out in a test. */
const SHORT_TTL_MS = 300;
const LONG_TTL_MS = 60_000;

const aLeaseName = (): string => `contract-${randomUUID()}`;

function granted(grant: LeaseGrant | null): LeaseGrant {
  if (!grant) throw new Error('expected the lease to be granted');
  return grant;
}

/** What every ProjectorLease adapter must do. */
export function projectorLeaseContract(name: string, open: OpenProjectorLease): void {
  describe(`${name} projector lease (contract)`, () => {
    const opened: ProjectorLease[] = [];
    const holders = async (count: number, ttlMs = LONG_TTL_MS): Promise<ProjectorLease[]> => {
      const stores = await Promise.all(Array.from({ length: count }, () => open(ttlMs)));
      opened.push(...stores);
      return stores;
    };

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    it('when a lease is free, then the first holder gets it with a positive token and others get null while it is held', async () => {
      const [first, second] = await holders(2);
      const lease = aLeaseName();

      const grant = granted(await first!.acquire(lease));

      expect(grant).toEqual({ name: lease, token: expect.any(Number) });
      expect(Number.isSafeInteger(grant.token) && grant.token > 0).toBe(true);
      expect(await second!.acquire(lease)).toBeNull();
      expect(await first!.acquire(lease)).toBeNull();
      expect(first!.holder).not.toBe(second!.holder);
    });

    it('when 40 acquisitions of one lease from 4 holders run at once, then exactly one is granted', async () => {
      const stores = await holders(4);
      const lease = aLeaseName();

      const grants = await Promise.all(Array.from({ length: 40 }, (_, index) => stores[index % stores.length]!.acquire(lease)));

      expect(grants.filter((grant) => grant !== null)).toHaveLength(1);
    });

    it('when the holder releases the lease, then another holder gets it at once with a greater token', async () => {
      const [first, second] = await holders(2);
      const lease = aLeaseName();
      const firstGrant = granted(await first!.acquire(lease));

      await first!.release(firstGrant);
      const secondGrant = granted(await second!.acquire(lease));

      expect(secondGrant.token).toBeGreaterThan(firstGrant.token);
      expect(await first!.renew(firstGrant)).toBe(false);
    });

    it('when the holder stops renewing, then after the time to live another holder gets the lease with a greater token', async () => {
      const [first, second] = await holders(2, SHORT_TTL_MS);
      const lease = aLeaseName();
      const firstGrant = granted(await first!.acquire(lease));
      expect(await second!.acquire(lease)).toBeNull();

      await sleep(SHORT_TTL_MS * 2);
      const secondGrant = granted(await second!.acquire(lease));

      expect(secondGrant.token).toBeGreaterThan(firstGrant.token);
    });

    it('when an expired holder renews or releases after another took over, then it gets false and the new holding stays', async () => {
      const [first, second, third] = await holders(3, SHORT_TTL_MS);
      const lease = aLeaseName();
      const stale = granted(await first!.acquire(lease));
      await sleep(SHORT_TTL_MS * 2);
      const current = granted(await second!.acquire(lease));

      expect(await first!.renew(stale)).toBe(false);
      await first!.release(stale);

      expect(await third!.acquire(lease)).toBeNull();
      expect(await second!.renew(current)).toBe(true);
    });

    it('when the holder renews within the time to live, then the lease outlives it', async () => {
      const [first, second] = await holders(2, SHORT_TTL_MS * 2);
      const lease = aLeaseName();
      const grant = granted(await first!.acquire(lease));

      for (let renewal = 0; renewal < 6; renewal++) {
        await sleep(SHORT_TTL_MS / 3);
        expect(await first!.renew(grant)).toBe(true);
      }

      expect(await second!.acquire(lease)).toBeNull();
    });

    it('when a lease lapsed unrenewed and no one took it, then its renewal answers false', async () => {
      const [first] = await holders(1, SHORT_TTL_MS);
      const grant = granted(await first!.acquire(aLeaseName()));

      await sleep(SHORT_TTL_MS * 2);

      expect(await first!.renew(grant)).toBe(false);
    });

    it('when leases of different names are taken, then each is held on its own', async () => {
      const [first, second] = await holders(2);
      const [one, other] = [aLeaseName(), aLeaseName()];

      granted(await first!.acquire(one));

      granted(await second!.acquire(other));
      expect(await second!.acquire(one)).toBeNull();
    });

    it('when a lease changes hands many times, then every token is greater than the one before', async () => {
      const [first, second] = await holders(2);
      const lease = aLeaseName();
      const tokens: number[] = [];
      for (let round = 0; round < 6; round++) {
        const store = round % 2 === 0 ? first! : second!;
        const grant = granted(await store.acquire(lease));
        tokens.push(grant.token);
        await store.release(grant);
      }

      expect(tokens).toEqual([...tokens].sort((left, right) => left - right));
      expect(new Set(tokens).size).toBe(tokens.length);
    });
  });
}
