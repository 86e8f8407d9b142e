import { dirname } from 'node:path';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { createPrivateDatabaseFile, makePrivateDirSync } from '../dataDir.js';
import { newLeaseHolder, type LeaseGrant, type ProjectorLease } from './projectorLease.js';

const BUSY_TIMEOUT_MS = 5_000;

/** The file in DATA_DIR the embedded mode keeps its projector leases in. */
export const PROJECTOR_LEASES_FILE_NAME = 'leases.sqlite';

/*
 * One row per lease name, kept after a release so that its last token stays: the next token is counted from
 * it. `holder` is null once released; a lease whose `expires_at` (ms, by the store's clock) has passed is free.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS projector_leases (
    name TEXT PRIMARY KEY,
    holder TEXT,
    token INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

interface LeaseRow {
  holder: string | null;
  token: number;
  expires_at: number;
}

export interface SqliteProjectorLeaseOptions {
  /** The SQLite file (created owner-only), or ':memory:' for a store only this process uses (tests). */
  file: string;
  ttlMs: number;
  /** Wall clock in ms: the processes sharing the file run on one machine, so they share it. */
  now?: () => number;
  holder?: string;
  /**
   * Whether the process that holds a lease still runs. By default: a holder on this host whose process is
   * gone (kill -9) is dead, so a restarted service takes its leases at once instead of after the time to live;
   * any other holder counts as alive until its lease expires.
   */
  holderIsAlive?: (holder: string) => boolean;
}

/**
 * Embedded mode's leases: one SQLite file (DATA_DIR/leases.sqlite, owner-only, WAL) that every process on the
 * machine may open. An acquisition is one IMMEDIATE transaction (read the row, then take it), so two
 * processes never both find a lease free; expiry is by the wall clock the processes share.
 */
export function createSqliteProjectorLease(options: SqliteProjectorLeaseOptions): ProjectorLease {
  const now = options.now ?? Date.now;
  const holder = options.holder ?? newLeaseHolder();
  const holderIsAlive = options.holderIsAlive ?? processOnThisHostRuns;
  const { ttlMs } = options;
  if (options.file !== ':memory:') makePrivateDirSync(dirname(options.file));
  createPrivateDatabaseFile(options.file);
  const db = new Database(options.file);
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.exec(SCHEMA);

  const find = db.prepare<[string], LeaseRow>('SELECT holder, token, expires_at FROM projector_leases WHERE name = ?');
  const take = db.prepare<[string, string, number, number]>(
    `INSERT INTO projector_leases (name, holder, token, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, token = excluded.token, expires_at = excluded.expires_at`,
  );
  const extend = db.prepare<[number, string, string, number, number]>(
    'UPDATE projector_leases SET expires_at = ? WHERE name = ? AND holder = ? AND token = ? AND expires_at > ?',
  );
  const giveUp = db.prepare<[string, string, number]>(
    'UPDATE projector_leases SET holder = NULL, expires_at = 0 WHERE name = ? AND holder = ? AND token = ?',
  );

  const acquire = db.transaction((name: string, at: number): LeaseGrant | null => {
    const row = find.get(name);
    if (row && row.holder !== null && row.expires_at > at && holderIsAlive(row.holder)) return null;
    const token = Math.max((row?.token ?? 0) + 1, at);
    take.run(name, holder, token, at + ttlMs);
    return { name, token };
  });

  return {
    holder,
    ttlMs,
    async acquire(name) {
      return acquire.immediate(name, now());
    },
    async renew(grant) {
      const at = now();
      return extend.run(at + ttlMs, grant.name, holder, grant.token, at).changes === 1;
    },
    async release(grant) {
      giveUp.run(grant.name, holder, grant.token);
    },
    async close() {
      db.close();
    },
  };
}

/** See SqliteProjectorLeaseOptions.holderIsAlive; holders are `host:pid:random` (newLeaseHolder). */
function processOnThisHostRuns(holder: string): boolean {
  const [host, pidText] = holder.split(':');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
