/*
 * The SQLite file of the embedded read store: documents keyed by (physical collection, id), the
 * checkpoints, the logical -> physical aliases of blue/green generations, declared indexes and one version
 * counter per physical collection.
 */

export const BUSY_TIMEOUT_MS = 5000;

/** The statements of a write, shared with the generation writer's connection. */
export const WRITE_SQL = {
  bumpVersion: `INSERT INTO collection_versions (collection, version) VALUES (?, 1)
    ON CONFLICT (collection) DO UPDATE SET version = version + 1 RETURNING version`,
  upsertDoc: `INSERT INTO documents (collection, id, version, doc) VALUES (?, ?, ?, ?)
    ON CONFLICT (collection, id) DO UPDATE SET version = excluded.version, doc = excluded.doc`,
  /** As upsertDoc, from the document's UTF-8 bytes: stored as the TEXT the string would give. */
  upsertEncodedDoc: `INSERT INTO documents (collection, id, version, doc) VALUES (?, ?, ?, CAST(? AS TEXT))
    ON CONFLICT (collection, id) DO UPDATE SET version = excluded.version, doc = excluded.doc`,
  deleteDoc: 'DELETE FROM documents WHERE collection = ? AND id = ?',
  /**
   * Stores nothing (no change) when the checkpoint carries a fencing token lower than the stored one; one
   * without a token keeps the stored token.
   */
  upsertCheckpoint: `INSERT INTO checkpoints (scope, name, position, fencing_token) VALUES (?, ?, ?, ?)
    ON CONFLICT (scope, name) DO UPDATE SET position = excluded.position,
      fencing_token = coalesce(excluded.fencing_token, fencing_token)
    WHERE excluded.fencing_token IS NULL OR fencing_token IS NULL OR excluded.fencing_token >= fencing_token`,
};

export const SCHEMA = `
  CREATE TABLE IF NOT EXISTS documents (
    collection TEXT NOT NULL,
    id TEXT NOT NULL,
    version INTEGER NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (collection, id)
  );
  CREATE INDEX IF NOT EXISTS documents_by_version ON documents (collection, version);
  CREATE TABLE IF NOT EXISTS collection_versions (
    collection TEXT PRIMARY KEY,
    version INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS aliases (
    logical TEXT PRIMARY KEY,
    physical TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS pending_generations (
    physical TEXT PRIMARY KEY,
    logical TEXT NOT NULL,
    generation TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS checkpoints (
    scope TEXT NOT NULL,
    name TEXT NOT NULL,
    position TEXT NOT NULL,
    fencing_token INTEGER,
    PRIMARY KEY (scope, name)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS declared_indexes (
    collection TEXT NOT NULL,
    name TEXT NOT NULL,
    spec TEXT NOT NULL,
    PRIMARY KEY (collection, name)
  ) WITHOUT ROWID;
`;

/** Columns added since a file was created, with the statement that adds each (run once, in a write transaction). */
export const ADDED_COLUMNS: ReadonlyArray<{ table: string; column: string; add: string }> = [
  { table: 'checkpoints', column: 'fencing_token', add: 'ALTER TABLE checkpoints ADD COLUMN fencing_token INTEGER' },
];
