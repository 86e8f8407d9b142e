/*
 * What the SQLite event store's read-ahead and its log reader thread (logReaderThread.ts) send each other.
 * The consumer sends credits (a number: read that many more pages); the thread answers a ReaderMessage per page.
 */

/** What the reader thread is started with. */
export interface LogReaderSettings {
  file: string;
  busyTimeoutMs: number;
  /** The SELECT of a page: `position > ?` in position order, `LIMIT ?`, the columns in EVENT_COLUMNS order. */
  sql: string;
  after: number;
  pageSize: number;
  /** The thread's nice value (Linux): see READER_NICENESS. */
  niceness: number;
}

/**
 * One page: its rows' id, data, metadata, stream name and timestamp back to back in `text`, each field
 * ending at the next of `ends` (five per row); each row's type code, revision and position in `numbers`
 * (three per row); the types first met on this page in `newTypes`, their codes following the earlier ones.
 */
export interface ReadPage {
  count: number;
  newTypes: string[];
  text: string;
  ends: Int32Array<ArrayBuffer>;
  numbers: Float64Array<ArrayBuffer>;
}

export type ReaderMessage = ReadPage | { error: string };
