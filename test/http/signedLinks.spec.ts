import { describe, expect, it } from 'vitest';
import { createLinkSigner, expiryWindowSeconds } from '../../src/http/signedLinks.js';

const SECRET = 'link-signing-secret-for-tests-0123456789';
const PATH = '/documents/master-plan/mp1/mp1.pdf';
/** 2030-01-01T00:00:00Z: a multiple of 300 seconds since the epoch. */
const BOUNDARY = Date.parse('2030-01-01T00:00:00Z');
const at = (secondsAfterBoundary: number) => new Date(BOUNDARY + secondsAfterBoundary * 1000);

const queryOf = (pathAndQuery: string) => {
  const query = new URL(pathAndQuery, 'https://api.example.com').searchParams;
  return { expires: query.get('expires')!, signature: query.get('signature')! };
};

describe('signed links', () => {
  it('when the TTL is set, then the expiry window is a third of it, at least one second', () => {
    expect(expiryWindowSeconds(900)).toBe(300);
    expect(expiryWindowSeconds(30)).toBe(10);
    expect(expiryWindowSeconds(86_400)).toBe(28_800);
    expect(expiryWindowSeconds(2)).toBe(1);
  });

  it('when a link is signed, then its expiry is now + TTL rounded up to the next multiple of the window', () => {
    const signer = createLinkSigner(SECRET, 900);
    expect(signer.sign(PATH, at(10)).expiresAt.toISOString()).toBe('2030-01-01T00:20:00.000Z');
    expect(signer.sign(PATH, at(300)).expiresAt.toISOString()).toBe('2030-01-01T00:20:00.000Z');
    expect(signer.sign(PATH, at(300.999)).expiresAt.toISOString()).toBe('2030-01-01T00:20:00.000Z');
    expect(signer.sign(PATH, at(301)).expiresAt.toISOString()).toBe('2030-01-01T00:25:00.000Z');
    for (const second of [0, 1, 299, 300, 301, 599, 4_321]) {
      const lifetime = (signer.sign(PATH, at(second)).expiresAt.getTime() - at(second).getTime()) / 1000;
      expect(lifetime, `signed at +${second}s`).toBeGreaterThanOrEqual(900);
      expect(lifetime, `signed at +${second}s`).toBeLessThan(900 + 300);
    }
  });

  it('when the same path is signed twice within one window, then the links are identical; across a boundary they differ', () => {
    const signer = createLinkSigner(SECRET, 900);
    expect(signer.sign(PATH, at(1)).pathAndQuery).toBe(signer.sign(PATH, at(300)).pathAndQuery);
    expect(signer.sign(PATH, at(301)).pathAndQuery).not.toBe(signer.sign(PATH, at(300)).pathAndQuery);
    expect(signer.sign('/documents/brochure/br1/br1.pdf', at(1)).pathAndQuery).not.toBe(signer.sign(PATH, at(1)).pathAndQuery);
  });

  it('when a link was minted in an earlier window, then it verifies until its own expiry and is expired from then on', () => {
    const signer = createLinkSigner(SECRET, 900);
    const { expires, signature } = queryOf(signer.sign(PATH, at(10)).pathAndQuery);
    expect(expires).toBe(String(BOUNDARY / 1000 + 1200));
    expect(signer.verify(PATH, expires, signature, at(301))).toBe('valid');
    expect(signer.verify(PATH, expires, signature, at(1199.999))).toBe('valid');
    expect(signer.verify(PATH, expires, signature, at(1200))).toBe('expired');
  });

  it('when the path, expiry or secret differ from what was signed, then the link is invalid, expired or not', () => {
    const signer = createLinkSigner(SECRET, 900);
    const { expires, signature } = queryOf(signer.sign(PATH, at(10)).pathAndQuery);
    for (const now of [at(20), at(5_000)]) {
      expect(signer.verify('/documents/brochure/br1/br1.pdf', expires, signature, now)).toBe('invalid');
      expect(signer.verify(PATH, String(Number(expires) + 300), signature, now)).toBe('invalid');
      expect(signer.verify(PATH, String(Number(expires) - 300), signature, now)).toBe('invalid');
      expect(createLinkSigner(`${SECRET}-other`, 900).verify(PATH, expires, signature, now)).toBe('invalid');
      expect(signer.verify(PATH, `${expires}x`, signature, now)).toBe('invalid');
      expect(signer.verify(PATH, expires, signature.toUpperCase(), now)).toBe('invalid');
      expect(signer.verify(PATH, expires, signature.slice(0, 63), now)).toBe('invalid');
      expect(signer.verify(PATH, expires, '', now)).toBe('invalid');
    }
  });
});
