import { randomUUID } from 'node:crypto';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { createPrivateDatabaseFile, makePrivateDirSync } from '../dataDir.js';
import type { IdempotencyStore, IdempotencyTimes, Reservation } from './idempotencyStore.js';

const BUSY_TIMEOUT_MS = 5_000;
/** Lapsed rows are deleted at most this often (by the store's clock). */
const PRUNE_EVERY_MS = 60_000;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS idempotency_keys (
    client_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'completed')),
    token TEXT NOT NULL,
    result TEXT,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (client_id, key)
  );
  CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
`;

interface KeyRow {
  request_hash: string;
  state: 'in_flight' | 'completed';
  result: string | null;
  expires_at: number;
}

/**
 * Embedded mode: one SQLite file (DATA_DIR/idempotency.sqlite, owner-only, WAL) that every process on the
 * machine may open. A reserve is one IMMEDIATE transaction (read, then insert or replace a lapsed row), so
 * two reserves of one key, from any process, never both find it free.
 */
export function createSqliteIdempotencyStore<Result>(options: IdempotencyTimes & { file: string }): IdempotencyStore<Result> {
  const now = options.now ?? Date.now;
  if (options.file !== ':memory:') makePrivateDirSync(dirname(options.file));
  createPrivateDatabaseFile(options.file);
  const db = new Database(options.file);
  db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.exec(SCHEMA);

  const find = db.prepare<[number, string], KeyRow>(
    'SELECT request_hash, state, result, expires_at FROM idempotency_keys WHERE client_id = ? AND key = ?',
  );
  const claim = db.prepare<[number, string, string, string, number]>(
    `INSERT OR REPLACE INTO idempotency_keys (client_id, key, request_hash, state, token, result, expires_at)
     VALUES (?, ?, ?, 'in_flight', ?, NULL, ?)`,
  );
  const completeRow = db.prepare<[string, number, number, string, string]>(
    `UPDATE idempotency_keys SET state = 'completed', result = ?, expires_at = ?
     WHERE client_id = ? AND key = ? AND token = ? AND state = 'in_flight'`,
  );
  const releaseRow = db.prepare<[number, string, string]>(
    `DELETE FROM idempotency_keys WHERE client_id = ? AND key = ? AND token = ? AND state = 'in_flight'`,
  );
  const prune = db.prepare<[number]>('DELETE FROM idempotency_keys WHERE expires_at <= ?');
  let prunedAt = 0;

  const reserve = db.transaction((clientId: number, key: string, requestHash: string, at: number): Reservation<Result> => {
    const row = find.get(clientId, key);
    if (row && row.expires_at > at) {
      if (row.request_hash !== requestHash) return { status: 'mismatch' };
      if (row.state === 'completed') return { status: 'completed', result: JSON.parse(row.result!) as Result };
      return { status: 'in_flight' };
    }
    const token = randomUUID();
    claim.run(clientId, key, requestHash, token, at + options.inFlightLeaseMs);
    return { status: 'new', token };
  });

  return {
    async reserve(clientId, key, requestHash) {
      const at = now();
      if (at - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = at;
        prune.run(at);
      }
      return reserve.immediate(clientId, key, requestHash, at);
    },
    async complete(clientId, key, token, result) {
      completeRow.run(JSON.stringify(result), now() + options.retentionMs, clientId, key, token);
    },
    async release(clientId, key, token) {
      releaseRow.run(clientId, key, token);
    },
    async close() {
      db.close();
    },
  };
}
