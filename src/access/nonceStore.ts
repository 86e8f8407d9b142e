import { createRedisClient } from '../cache/redisClient.js';
import { ApiError } from '../domain/errors.js';

/**
 * Single-use request-signing nonces (Authentication rule 6). Nonces are scoped per client: two clients may
 * pick the same nonce without refusing each other.
 */
export interface NonceStore {
  /** True the first time `nonce` is claimed for `clientId` within `ttlSeconds`; false while an earlier claim lives. */
  claim(clientId: number, nonce: string, ttlSeconds: number): Promise<boolean>;
  close(): Promise<void>;
}

function nonceKey(clientId: number, nonce: string): string {
  return `nonce:${clientId}:${nonce}`;
}

/**
 * 503: a signed request cannot be checked for replay while Redis is unreachable, so it is refused, as a
 * temporary condition worth retrying (not a 500). The cause is kept for the log without the nonce.
 */
export class NonceStoreUnavailable extends ApiError {
  constructor(readonly causeMessage: string) {
    super(503, 'SERVICE_UNAVAILABLE', 'Signed requests cannot be verified right now; retry shortly.', { retry_after_seconds: 1 });
  }
}

/**
 * Shared by every API replica: `SET key 1 EX ttl NX` claims and expires in one atomic round trip. A Redis
 * failure rejects the claim (the request is refused rather than let through unchecked) with an error of its
 * own: ioredis attaches the command's arguments, which hold the nonce, and the error gets logged.
 */
export function createRedisNonceStore(redisUrl: string, options: { timeoutMs?: number } = {}): NonceStore {
  const timeoutMs = options.timeoutMs ?? 1_000;
  const client = createRedisClient(redisUrl, timeoutMs);
  return {
    async claim(clientId, nonce, ttlSeconds) {
      try {
        return (await client.set(nonceKey(clientId, nonce), '1', 'EX', ttlSeconds, 'NX')) === 'OK';
      } catch (error) {
        throw new NonceStoreUnavailable((error as Error).message);
      }
    },
    async close() {
      client.disconnect();
    },
  };
}

const IN_PROCESS_NONCE_CAPACITY = 200_000;

/**
 * Embedded mode: one process, so a Map of expiry times suffices. Memory is bounded: expired entries are
 * swept from the front on every claim (entries are kept in expiry order when every claim uses the same TTL,
 * as the signing check does), and all of them once the store is full. A store still full of live nonces
 * then forgets the oldest: beyond `capacity` claims per TTL, replay protection is traded for bounded memory;
 * deployments with that much signed traffic run Redis.
 */
export function createInProcessNonceStore(options: { capacity?: number; now?: () => number } = {}): NonceStore {
  const capacity = options.capacity ?? IN_PROCESS_NONCE_CAPACITY;
  const now = options.now ?? Date.now;
  const expiries = new Map<string, number>();

  const sweepFront = (at: number) => {
    for (const [key, expiresAt] of expiries) {
      if (expiresAt > at) return;
      expiries.delete(key);
    }
  };
  const sweepAll = (at: number) => {
    for (const [key, expiresAt] of expiries) if (expiresAt <= at) expiries.delete(key);
  };

  return {
    async claim(clientId, nonce, ttlSeconds) {
      const at = now();
      sweepFront(at);
      const key = nonceKey(clientId, nonce);
      const expiresAt = expiries.get(key);
      if (expiresAt !== undefined && expiresAt > at) return false;
      // Re-inserted at the end, so insertion order stays expiry order.
      expiries.delete(key);
      if (expiries.size >= capacity) sweepAll(at);
      for (const oldest of expiries.keys()) {
        if (expiries.size < capacity) break;
        expiries.delete(oldest);
      }
      expiries.set(key, at + ttlSeconds * 1_000);
      return true;
    },
    async close() {
      expiries.clear();
    },
  };
}

export function createNonceStore(redisUrl: string | undefined): NonceStore {
  return redisUrl ? createRedisNonceStore(redisUrl) : createInProcessNonceStore();
}
