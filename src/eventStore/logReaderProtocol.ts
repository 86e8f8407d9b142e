/*
 * What the SQLite event store's read-ahead and its log reader thread (logReaderThread.ts) send each other.
 * The consumer sends credits (a number: read that many more pages); the thread answers a ReaderMessage per page.
 */

/** What the reader thread is started with. */
export interface LogReaderSettings {
  file: string;
  busyTimeoutMs: number;
  /**
   * The SELECT of a page: `position > ? AND position <= ?` (after, head), then one parameter per type when
   * `types` is given, in position order, `LIMIT ?`, the columns in EVENT_COLUMNS order.
   */
  sql: string;
  /** The SELECT of the head position. */
  headSql: string;
  /** The types to read; null: every type. */
  types: string[] | null;
  after: number;
  pageSize: number;
  /** The thread's nice value (Linux): see READER_NICENESS. */
  niceness: number;
}

/**
 * One page: its rows' id, data, metadata, stream name and timestamp back to back in `text`, each field
 * ending at the next of `ends` (five per row); each row's type code, revision and position in `numbers`
 * (three per row); the types first met on this page in `newTypes`, their codes following the earlier ones;
 * `position`, how far it read the log (see LogPage.position).
 */
export interface ReadPage {
  count: number;
  newTypes: string[];
  text: string;
  ends: Int32Array<ArrayBuffer>;
  numbers: Float64Array<ArrayBuffer>;
  position: number;
}

export type ReaderMessage = ReadPage | { error: string };

/**
 * How far a page read the log, from the head read before it (its SELECT is bounded by that head, so an
 * append meanwhile is neither read nor stepped over): a full page reached its last row, which may be
 * before the head; a page with fewer rows than asked for found none of the types asked for up to the head.
 */
export function positionReadTo(after: number, head: number, rows: number, lastRow: number | undefined, pageSize: number): number {
  if (rows === pageSize && lastRow !== undefined) return lastRow;
  return Math.max(after, head);
}
