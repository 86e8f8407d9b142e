import { describe, expect, it } from 'vitest';
import { createInProcessNonceStore } from '../../src/access/nonceStore.js';
import { nonceStoreContract } from './nonceStoreContract.js';

nonceStoreContract('in-process', () => createInProcessNonceStore());

describe('in-process nonce store memory bound', () => {
  it('when claims expire, then they are swept and the nonce can be claimed again', async () => {
    let now = 0;
    const store = createInProcessNonceStore({ capacity: 2, now: () => now });
    expect(await store.claim(1, 'a', 10)).toBe(true);
    expect(await store.claim(1, 'b', 10)).toBe(true);
    now = 10_000;
    expect(await store.claim(1, 'c', 10)).toBe(true);
    expect(await store.claim(1, 'a', 10)).toBe(true);
    expect(await store.claim(1, 'c', 10)).toBe(false);
  });

  it('when the store is full of live nonces, then the oldest is forgotten and the newer ones are still refused', async () => {
    let now = 0;
    const store = createInProcessNonceStore({ capacity: 2, now: () => now });
    expect(await store.claim(1, 'a', 60)).toBe(true);
    now = 1_000;
    expect(await store.claim(1, 'b', 60)).toBe(true);
    now = 2_000;
    expect(await store.claim(1, 'c', 60)).toBe(true);
    expect(await store.claim(1, 'b', 60)).toBe(false);
    expect(await store.claim(1, 'c', 60)).toBe(false);
    expect(await store.claim(1, 'a', 60)).toBe(true);
  });
});
