/*
 * What the embedded store's thread and its generation writer thread (writerThread.ts) send each other.
 */

/** What the writer thread is started with. */
export interface WriterSettings {
  file: string;
  busyTimeoutMs: number;
  /** The thread's nice value (Linux): see HELPER_THREAD_NICENESS in generationWriter.ts. */
  niceness: number;
}

/**
 * One write of a generation. Row i goes to physicals[rowPhysicals[i]]; `ids` holds the rows' stored ids back
 * to back (idLengths[i] characters each), and `docs` their documents' JSON in UTF-8, back to back, row i's
 * ending at docEnds[i] (-1 for a delete). The documents are encoded once, on the queueing thread, into a
 * buffer that is handed over rather than copied, and bound as they are (CAST to TEXT, the same value a
 * string gives): as one string, they were copied into the message, out of it, per row, and converted to
 * UTF-8 per row again on the writer's thread. One string and a few typed arrays cost the structured clone
 * far less than a string per row.
 */
export interface WriterBatch {
  generation: string;
  scope: string;
  physicals: string[];
  rowPhysicals: Int32Array<ArrayBuffer>;
  idLengths: Int32Array<ArrayBuffer>;
  ids: string;
  docEnds: Int32Array<ArrayBuffer>;
  docs: Uint8Array<ArrayBuffer>;
  checkpoints: Array<[name: string, position: string, fencingToken: number | null]>;
}

/** A batch, or null: close once the batches before it are committed. */
export type WriterMessage = WriterBatch | null;

export interface WriterFailure {
  message: string;
  code?: string;
}

/** One per batch, in the order the batches were sent. */
export interface WriterReply {
  generation: string;
  error?: WriterFailure;
}
