import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignedLink {
  /** Path and query below `{base_url}`: `/documents/...?expires=...&signature=...`. */
  pathAndQuery: string;
  expiresAt: Date;
}

/**
 * Short-lived public links (spec: Signed document links). `expires` (Unix seconds) and `signature`
 * (HMAC-SHA256 over the path and the expiry) are the whole authorization, so a link can be handed to a
 * browser but neither extended nor pointed at another file.
 */
export interface LinkSigner {
  sign(path: string, now: Date): SignedLink;
  /**
   * `valid` when the signature is ours for this path and expiry and the expiry has not passed; `expired` when
   * it is ours but the expiry has passed (so the holder learns to fetch a new link rather than suspect the
   * link was damaged); `invalid` for anything else: another path, an altered expiry, a signature that is not
   * ours, or either parameter malformed.
   */
  verify(path: string, expires: string, signature: string, now: Date): LinkVerdict;
}

export type LinkVerdict = 'valid' | 'expired' | 'invalid';

/**
 * Expiries are rounded up to a multiple of this many seconds (counted from the Unix epoch, so every replica
 * rounds alike): a third of the TTL, 300 s at the default 900. A link is then valid for at least the TTL and
 * less than TTL + window, and every link to a file minted within one window is the same link, so the
 * response that carries it (and its ETag) stays the same and If-None-Match can be answered 304.
 */
export const expiryWindowSeconds = (ttlSeconds: number): number => Math.max(1, Math.floor(ttlSeconds / 3));

export function createLinkSigner(secret: string, ttlSeconds: number): LinkSigner {
  const mac = (path: string, expires: string) => createHmac('sha256', secret).update(`${path}\n${expires}`).digest();
  const windowSeconds = expiryWindowSeconds(ttlSeconds);
  return {
    sign(path, now) {
      const earliestExpiry = Math.floor(now.getTime() / 1000) + ttlSeconds;
      const expires = String(Math.ceil(earliestExpiry / windowSeconds) * windowSeconds);
      const signature = mac(path, expires).toString('hex');
      return { pathAndQuery: `${path}?expires=${expires}&signature=${signature}`, expiresAt: new Date(Number(expires) * 1000) };
    },
    verify(path, expires, signature, now) {
      if (!/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
      // The signature is checked first, so only a link we minted can be told apart as expired.
      if (!timingSafeEqual(mac(path, expires), Buffer.from(signature, 'hex'))) return 'invalid';
      return Number(expires) * 1000 <= now.getTime() ? 'expired' : 'valid';
    },
  };
}
