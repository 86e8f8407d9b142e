/*
 * The generation writer's thread (see generationWriter.ts): commits a generation's batches on a connection
 * of its own. Each batch (versions, documents, checkpoints) is committed whole or not at all, in the order
 * received; after a batch of a generation fails, none of that generation's later batches is committed.
 */
import { setPriority } from 'node:os';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { WRITE_SQL } from './sqliteSchema.js';
import type { WriterBatch, WriterFailure, WriterMessage, WriterReply, WriterSettings } from './writerProtocol.js';

if (!parentPort) throw new Error('writerThread.ts runs as a worker thread');
const port = parentPort;
const settings = workerData as WriterSettings;

const db = new Database(settings.file);
// Below the thread that queues the writes (see HELPER_THREAD_NICENESS in generationWriter.ts). On Linux a
// thread's nice value is its own, and setPriority(0, ...) sets the calling thread's; elsewhere it would be
// the whole process's.
if (process.platform === 'linux') {
  try {
    setPriority(0, settings.niceness);
  } catch {
    // Not allowed here: the thread keeps its priority.
  }
}
db.pragma(`busy_timeout = ${settings.busyTimeoutMs}`);
db.pragma('synchronous = NORMAL');
const bumpVersion = db.prepare<[string], number>(WRITE_SQL.bumpVersion).pluck();
const upsertEncodedDoc = db.prepare<[string, string, number, Uint8Array]>(WRITE_SQL.upsertEncodedDoc);
const deleteDoc = db.prepare<[string, string]>(WRITE_SQL.deleteDoc);
const upsertCheckpoint = db.prepare<[string, string, string, number | null]>(WRITE_SQL.upsertCheckpoint);

function write(batch: WriterBatch): void {
  const versions = new Map<string, number>();
  const { ids, docs, docEnds } = batch;
  let idStart = 0;
  let docStart = 0;
  for (let row = 0; row < batch.rowPhysicals.length; row++) {
    const physical = batch.physicals[batch.rowPhysicals[row]!]!;
    const idEnd = idStart + batch.idLengths[row]!;
    const id = ids.slice(idStart, idEnd);
    idStart = idEnd;
    const docEnd = docEnds[row]!;
    let version = versions.get(physical);
    if (version === undefined) {
      version = bumpVersion.get(physical)!;
      versions.set(physical, version);
    }
    if (docEnd < 0) {
      deleteDoc.run(physical, id);
    } else {
      upsertEncodedDoc.run(physical, id, version, docs.subarray(docStart, docEnd));
      docStart = docEnd;
    }
  }
  for (const [name, position, fencingToken] of batch.checkpoints) {
    // Only the generation's own rebuild writes its scope, so a lower token than the stored one is a bug there.
    if (upsertCheckpoint.run(batch.scope, name, position, fencingToken).changes === 0) {
      throw Object.assign(new Error(`Checkpoint ${name} of generation ${batch.generation} holds a greater fencing token`), {
        code: 'STALE_FENCING_TOKEN',
      });
    }
  }
}

const failed = new Map<string, WriterFailure>();
const failure = (cause: unknown): WriterFailure => {
  const { message, code } = (cause ?? {}) as { message?: unknown; code?: string };
  return { message: String(message), code };
};

// Batches queued meanwhile share one transaction: a commit rewrites the pages the batches share (tables'
// inner pages, versions, checkpoints) in the log once instead of per batch. They are written straight into
// it, since they were checked before they were sent and hardly ever fail; only when one does is the
// transaction rolled back and the batches committed again, each in a savepoint of its own, so that a
// failing batch takes only its own generation down. (A savepoint per batch on every commit cost the
// thread a sixth of its time copying pages into the statement journal.)
const commitAll = db.transaction((batches: readonly WriterBatch[]) => {
  for (const batch of batches) write(batch);
});
const commitOne = db.transaction(write);
const commitEach = db.transaction((batches: readonly WriterBatch[]) =>
  batches.map((batch) => {
    let error = failed.get(batch.generation);
    if (!error) {
      try {
        commitOne(batch);
      } catch (cause) {
        error = failure(cause);
        failed.set(batch.generation, error);
      }
    }
    return error;
  }),
);

function commitQueued(batches: readonly WriterBatch[]): Array<WriterFailure | undefined> {
  if (!batches.some((batch) => failed.has(batch.generation))) {
    try {
      commitAll.immediate(batches);
      return batches.map(() => undefined);
    } catch {
      // Rolled back whole; committed again batch by batch below.
    }
  }
  return commitEach.immediate(batches);
}

port.on('message', (first: WriterMessage) => {
  const batches: WriterBatch[] = [];
  let closing = first === null;
  if (first !== null) batches.push(first);
  for (let queued = closing ? undefined : receiveMessageOnPort(port); queued; queued = receiveMessageOnPort(port)) {
    const message = queued.message as WriterMessage;
    if (message === null) {
      closing = true;
      break;
    }
    batches.push(message);
  }
  if (batches.length > 0) {
    let errors: Array<WriterFailure | undefined>;
    try {
      errors = commitQueued(batches);
    } catch (cause) {
      errors = batches.map((batch) => {
        const error = failed.get(batch.generation) ?? failure(cause);
        failed.set(batch.generation, error);
        return error;
      });
    }
    batches.forEach((batch, index) => {
      const error = errors[index];
      const reply: WriterReply = error ? { generation: batch.generation, error } : { generation: batch.generation };
      port.postMessage(reply);
    });
  }
  if (closing) {
    db.close();
    port.close();
  }
});
