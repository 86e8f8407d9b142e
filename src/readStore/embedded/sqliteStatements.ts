import type Database from 'better-sqlite3';
import { WRITE_SQL } from './sqliteSchema.js';

export type Statements = ReturnType<typeof prepareStatements>;

export function prepareStatements(db: Database.Database) {
  return {
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    ping: db.prepare<[], number>('SELECT 1').pluck(),
    aliases: db.prepare<[], [string, string]>('SELECT logical, physical FROM aliases').raw(),
    upsertAlias: db.prepare<[string, string]>(
      'INSERT INTO aliases (logical, physical) VALUES (?, ?) ON CONFLICT (logical) DO UPDATE SET physical = excluded.physical',
    ),
    declaredIndexes: db
      .prepare<[], [string, string, string]>('SELECT collection, name, spec FROM declared_indexes ORDER BY collection, name')
      .raw(),
    insertIndex: db.prepare<[string, string, string]>('INSERT OR REPLACE INTO declared_indexes (collection, name, spec) VALUES (?, ?, ?)'),
    versions: db.prepare<[], [string, number]>('SELECT collection, version FROM collection_versions').raw(),
    versionOf: db.prepare<[string], number>('SELECT version FROM collection_versions WHERE collection = ?').pluck(),
    bumpVersion: db.prepare<[string], number>(WRITE_SQL.bumpVersion).pluck(),
    deleteVersion: db.prepare<[string]>('DELETE FROM collection_versions WHERE collection = ?'),
    docs: db.prepare<[string], string>('SELECT doc FROM documents WHERE collection = ?').pluck(),
    doc: db.prepare<[string, string], string>('SELECT doc FROM documents WHERE collection = ? AND id = ?').pluck(),
    /** The documents of the stored ids in a JSON array, in no particular order: one statement for a page of them. */
    docsWithIds: db
      .prepare<[string, string], string>('SELECT doc FROM documents WHERE collection = ? AND id IN (SELECT value FROM json_each(?))')
      .pluck(),
    docsSince: db.prepare<[string, number], string>('SELECT doc FROM documents WHERE collection = ? AND version > ?').pluck(),
    docsInIdRange: db
      .prepare<[string, string, string, number], string>(
        'SELECT doc FROM documents WHERE collection = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?',
      )
      .pluck(),
    countDocs: db.prepare<[string], number>('SELECT COUNT(*) FROM documents WHERE collection = ?').pluck(),
    docIds: db.prepare<[string], string>('SELECT id FROM documents WHERE collection = ?').pluck(),
    upsertDoc: db.prepare<[string, string, number, string]>(WRITE_SQL.upsertDoc),
    deleteDoc: db.prepare<[string, string]>(WRITE_SQL.deleteDoc),
    dropDocs: db.prepare<[string]>('DELETE FROM documents WHERE collection = ?'),
    checkpoint: db.prepare<[string, string], string>('SELECT position FROM checkpoints WHERE scope = ? AND name = ?').pluck(),
    upsertCheckpoint: db.prepare<[string, string, string, number | null]>(WRITE_SQL.upsertCheckpoint),
    checkpointToken: db
      .prepare<[string, string], number | null>('SELECT fencing_token FROM checkpoints WHERE scope = ? AND name = ?')
      .pluck(),
    // The live fencing token never goes down: a promoted generation written without one keeps it.
    promoteCheckpoints: db.prepare<[string, string]>(
      `INSERT INTO checkpoints (scope, name, position, fencing_token)
       SELECT ?, name, position, fencing_token FROM checkpoints WHERE scope = ?
       ON CONFLICT (scope, name) DO UPDATE SET position = excluded.position,
         fencing_token = max(coalesce(fencing_token, excluded.fencing_token), coalesce(excluded.fencing_token, fencing_token))`,
    ),
    dropCheckpoints: db.prepare<[string]>('DELETE FROM checkpoints WHERE scope = ?'),
    pendingOf: db.prepare<[string], [string, string]>('SELECT physical, logical FROM pending_generations WHERE generation = ?').raw(),
    pendingGenerationsOf: db.prepare<[string], string>('SELECT DISTINCT generation FROM pending_generations WHERE logical = ?').pluck(),
    insertPending: db.prepare<[string, string, string]>('INSERT INTO pending_generations (physical, logical, generation) VALUES (?, ?, ?)'),
    dropPending: db.prepare<[string]>('DELETE FROM pending_generations WHERE generation = ?'),
  };
}
