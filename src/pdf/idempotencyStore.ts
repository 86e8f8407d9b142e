import { z } from 'zod';
import { ApiError } from '../domain/errors.js';

/**
 * Idempotency-Key of POST /v1/projects/{project}/pdf: what a client's key was first used for, and its answer.
 * Keys are per client. A key is reserved by the first request (in flight, for a lease), then completed with
 * the result (kept for the retention, 24 h) or released when that request failed, so a retry can use it
 * again. A reservation whose request died (a crash) lapses at the end of its lease.
 *
 * Adapters: SQLite in DATA_DIR/idempotency.sqlite (embedded mode; every process on the machine shares it)
 * and Redis (REDIS_URL, shared by every API replica); both pass test/pdf/idempotencyStoreContract.ts.
 * Each reserve is atomic: of concurrent reserves of one key, exactly one is `new`.
 */
export interface IdempotencyStore<Result> {
  /** `requestHash` identifies the request the key is used with; the same key with another request is `mismatch`. */
  reserve(clientId: number, key: string, requestHash: string): Promise<Reservation<Result>>;
  /** Records the answer of the reservation `token` holds; nothing when that reservation lapsed meanwhile. */
  complete(clientId: number, key: string, token: string, result: Result): Promise<void>;
  /** Frees the key the reservation `token` holds (its request failed); nothing when it lapsed meanwhile. */
  release(clientId: number, key: string, token: string): Promise<void>;
  close(): Promise<void>;
}

export type Reservation<Result> =
  { status: 'new'; token: string } | { status: 'in_flight' } | { status: 'completed'; result: Result } | { status: 'mismatch' };

export interface IdempotencyTimes {
  /** How long a completed key is remembered, from its completion. */
  retentionMs: number;
  /** How long a reservation holds its key without completing or releasing it (longer than a request can take). */
  inFlightLeaseMs: number;
  /** Milliseconds since the epoch; Date.now by default. */
  now?: () => number;
}

export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;

/** The Idempotency-Key header's value: 1 to 255 visible ASCII characters (no spaces, no controls). */
export const idempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 visible ASCII characters (no spaces)')
  .optional()
  .meta({
    description: 'Makes a retry safe: the same key and request within 24 hours answer the first result (see above).',
    param: { id: 'IdempotencyKey' },
  });

export class IdempotencyKeyReused extends ApiError {
  constructor() {
    super(
      422,
      'IDEMPOTENCY_KEY_REUSED',
      'This Idempotency-Key was used with a different request in the last 24 hours; use a new key for a new request.',
      { header: 'Idempotency-Key' },
    );
  }
}

export class IdempotencyKeyInUse extends ApiError {
  constructor() {
    super(
      409,
      'IDEMPOTENCY_KEY_IN_USE',
      'A request with this Idempotency-Key is still being answered; retry it after a moment to get its result.',
      { header: 'Idempotency-Key', retry_after_seconds: 1 },
    );
  }
}

export class IdempotencyUnavailable extends ApiError {
  constructor() {
    super(503, 'SERVICE_UNAVAILABLE', 'Idempotency keys cannot be checked right now; retry shortly.', { retry_after_seconds: 1 });
  }
}
