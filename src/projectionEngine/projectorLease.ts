import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Projector lease port: at most one process at a time holds the lease of a name (a projection's checkpoint
 * name, or the webhook dispatcher's), for a time to live that it renews while it works. Each acquisition
 * comes with a fencing token greater than every token issued for that name before; the holder writes its
 * checkpoint with it, and the read store refuses a checkpoint write carrying a lower token than the stored
 * one (see Checkpoint.fencingToken), so a holder that was paused past its lease's expiry cannot overwrite
 * what the next holder wrote.
 *
 * Adapters: Redis (redisProjectorLease.ts, when REDIS_URL is set) and SQLite (sqliteProjectorLease.ts, a
 * file in DATA_DIR shared by the processes of one machine). Both pass test/projectionEngine/projectorLeaseContract.ts.
 *
 * A token is the greater of the name's last token plus one and the lease store's clock in milliseconds: a
 * lease store that lost its data (Redis flushed, the SQLite file deleted) still issues tokens above every one
 * the read store has kept, as long as its clock has not gone back.
 */
export interface ProjectorLease {
  /** Who this store acquires for: `host:pid:random`, one per store, logged with the leases it takes. */
  readonly holder: string;
  readonly ttlMs: number;
  /** The lease, when no one holds it (or the holding lapsed); null while another holder has it. */
  acquire(name: string): Promise<LeaseGrant | null>;
  /** Extends the lease by the time to live from now; false when it is no longer this grant's (expired and taken, or released). */
  renew(grant: LeaseGrant): Promise<boolean>;
  /** Gives the lease up, if it is still this grant's, so that a standby takes over at once. */
  release(grant: LeaseGrant): Promise<void>;
  close(): Promise<void>;
}

export interface LeaseGrant {
  readonly name: string;
  /** Greater than every token issued for the name before. */
  readonly token: number;
}

/** `host:pid:random`: readable in logs, and unique even for two stores of one process. */
export function newLeaseHolder(): string {
  return `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
}
