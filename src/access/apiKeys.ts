import { createHash, randomBytes } from 'node:crypto';
import type { KeyEnvironment } from './accessContext.js';

const PREFIX: Record<KeyEnvironment, string> = { live: 'svc_live_', test: 'svc_test_' };

/**
 * A well-formed key: the environment prefix, then 32 bytes as unpadded base64url (43 characters). 32 bytes
 * are 256 bits and 43 characters carry 258, so the last character only takes the 16 values whose two low
 * bits are zero; anything else cannot have come from generateApiKey.
 */
export const API_KEY_PATTERN = /^svc_(live|test)_[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** A new key with 256 bits from the system's CSPRNG. It is shown once; only its hash is kept. */
export function generateApiKey(environment: KeyEnvironment): string {
  return `${PREFIX[environment]}${randomBytes(32).toString('base64url')}`;
}

/**
 * SHA-256 hex of the whole key, prefix included. Keys are 256 random bits, not passwords: there is nothing
 * to guess and no dictionary to precompute, so an unsalted fast hash is as safe as a slow salted one, and
 * it lets a key be looked up by its hash on every request.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Both prefixes have the same length. */
const HINT_LENGTH = PREFIX.live.length + 4;

/** What may be shown again to tell keys apart (`svc_live_AbCd…`): 24 of the 256 bits, useless for guessing. */
export function apiKeyHint(key: string): string {
  return `${key.slice(0, HINT_LENGTH)}…`;
}

/** The environment a key's prefix names; null for anything that is not a well-formed key. */
export function environmentOfApiKey(key: string): KeyEnvironment | null {
  return (API_KEY_PATTERN.exec(key)?.[1] as KeyEnvironment | undefined) ?? null;
}
