import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Webhook signing secrets must be used in clear to sign every delivery (HMAC), so unlike API keys they
 * cannot be kept as hashes: they are sealed with AES-256-GCM under WEBHOOK_SECRET_KEY, and only the sealed
 * form reaches events and read models. The webhook's id is the associated data, so a sealed secret copied
 * to another webhook does not open.
 */
export interface WebhookSecretBox {
  seal(webhookId: string, secret: string): string;
  /** Throws when the sealed text was altered, sealed for another webhook or under another key. */
  open(webhookId: string, sealed: string): string;
}

/** What a client is shown once: `whsec_` and 32 random bytes, base64url. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** `v1:` and base64url of nonce (12 bytes), tag (16 bytes) and ciphertext; the version names the scheme. */
const SEALED_PREFIX = 'v1:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const SEALED_SECRET_PATTERN = /^v1:[A-Za-z0-9_-]{40,}$/;

const KEY_BYTES = 32;

/** An AES-256-GCM box under a 32-byte key. */
export function createWebhookSecretBox(key: Buffer): WebhookSecretBox {
  if (key.length !== KEY_BYTES) throw new Error(`A webhook secret key is ${KEY_BYTES} bytes.`);
  const sealingKey = Buffer.from(key);
  return {
    seal(webhookId, secret) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', sealingKey, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(webhookId, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${SEALED_PREFIX}${Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
    },
    open(webhookId, sealed) {
      if (!SEALED_SECRET_PATTERN.test(sealed)) throw new Error('Not a sealed webhook secret.');
      const bytes = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', sealingKey, bytes.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(webhookId, 'utf8'));
      decipher.setAuthTag(bytes.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
