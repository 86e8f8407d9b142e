import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'edt_';

/** The prefix and 32 bytes as unpadded base64url (see API_KEY_PATTERN for why the last character is restricted). */
export const EDITOR_TOKEN_PATTERN = /^edt_[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** A new editor token with 256 bits from the system's CSPRNG. It is shown once; only its hash is kept. */
export function generateEditorToken(): string {
  return `${PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * SHA-256 hex of the whole token. A token is 256 random bits, not a password, so a fast unsalted hash is as
 * safe as a slow one (see hashApiKey) and lets a presented token be found by its hash.
 */
export function hashEditorToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What may be shown again (`edt_AbCd…`): 24 of the 256 bits, useless for guessing. */
export function editorTokenHint(token: string): string {
  return `${token.slice(0, PREFIX.length + 4)}…`;
}

export const EDITOR_TOKEN_HASH = /^[0-9a-f]{64}$/;
export const EDITOR_TOKEN_HINT = /^edt_[A-Za-z0-9_-]{4}…$/;
