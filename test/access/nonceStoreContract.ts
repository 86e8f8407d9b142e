import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NonceStore } from '../../src/access/nonceStore.js';

/** Nonces unique to one run, so a shared Redis keeps no state between runs that could matter. */
const freshNonce = () => `nonce-${randomUUID()}`;
/** Client ids unlikely to be used by a service under test sharing the same Redis. */
const freshClientId = () => 1_000_000_000 + Math.floor(Math.random() * 1_000_000_000);

/** What every NonceStore adapter must do; each adapter's spec calls this with a factory. */
export function nonceStoreContract(name: string, open: () => Promise<NonceStore> | NonceStore): void {
  describe(`NonceStore contract: ${name}`, () => {
    let store: NonceStore;

    beforeAll(async () => {
      store = await open();
    });

    afterAll(async () => {
      await store.close();
    });

    it('when a nonce is claimed for the first time, then the claim succeeds; a second claim of it fails', async () => {
      const clientId = freshClientId();
      const nonce = freshNonce();
      expect(await store.claim(clientId, nonce, 60)).toBe(true);
      expect(await store.claim(clientId, nonce, 60)).toBe(false);
    });

    it('when two clients claim the same nonce, then both succeed (nonces are scoped per client)', async () => {
      const nonce = freshNonce();
      expect(await store.claim(freshClientId(), nonce, 60)).toBe(true);
      expect(await store.claim(freshClientId(), nonce, 60)).toBe(true);
    });

    it('when different nonces are claimed by one client, then each succeeds', async () => {
      const clientId = freshClientId();
      expect(await store.claim(clientId, freshNonce(), 60)).toBe(true);
      expect(await store.claim(clientId, freshNonce(), 60)).toBe(true);
    });

    it('when many claims of one nonce run in parallel, then exactly one succeeds', async () => {
      const clientId = freshClientId();
      const nonce = freshNonce();
      const results = await Promise.all(Array.from({ length: 50 }, () => store.claim(clientId, nonce, 60)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('when the TTL of a claim has passed, then the nonce can be claimed again', async () => {
      const clientId = freshClientId();
      const nonce = freshNonce();
      expect(await store.claim(clientId, nonce, 1)).toBe(true);
      expect(await store.claim(clientId, nonce, 1)).toBe(false);
      // The TTL elapsing is the behaviour under test: a store's own clock, which the test cannot move.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await store.claim(clientId, nonce, 1)).toBe(true);
    });

    it('when a nonce holds characters such as colons and braces, then it is one nonce, distinct from similar ones', async () => {
      const clientId = freshClientId();
      const nonce = `${freshNonce()}:{x}*?[]`;
      expect(await store.claim(clientId, nonce, 60)).toBe(true);
      expect(await store.claim(clientId, nonce, 60)).toBe(false);
      expect(await store.claim(clientId, `${nonce}:`, 60)).toBe(true);
    });
  });
}
