/*
 * The queueing side of the generation writer: batches a generation's writes for the writer thread
 * (writerThread.ts), which commits them on a connection of its own, and waits for its replies.
 */
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { startTypeScriptWorker } from '../../typeScriptWorker.js';
import type { DocId } from '../readStore.js';
import { announceCommit } from './commitsInProcess.js';
import { BUSY_TIMEOUT_MS } from './sqliteSchema.js';
import type { WriterBatch, WriterMessage, WriterReply, WriterSettings } from './writerProtocol.js';

/**
 * The writer thread's nice value (Linux). A rebuild keeps three threads busy on what may be two cores: the
 * one projecting, which the rebuild waits for, and the log reader and this writer, which are ahead of it
 * and can wait. As equals, the scheduler had the projecting thread wait for a core a quarter of its time;
 * below it, they take what it leaves, and the writer still catches up whenever the projecting thread waits
 * for it (a full queue, a read of the generation, its promotion).
 */
const HELPER_THREAD_NICENESS = 10;

/** The module the writer thread runs. */
export const WRITER_THREAD = new URL('./writerThread.ts', import.meta.url);

/** Serialised documents in flight past which a write waits for the writer, so a slow disk cannot pile up memory. */
const WRITER_MAX_IN_FLIGHT_CHARS = 32 * 1024 * 1024;

const utf8 = new TextEncoder();

/**
 * The documents' JSON in UTF-8, back to back, and where each ends (-1 for a delete): the body of a
 * WriterBatch. Room is made for what JSON of mostly ASCII takes (uninitialised: every byte up to the last
 * end is written), and more only when a document needs it; the room left over goes along unread.
 */
export function encodeDocs(
  jsons: ReadonlyArray<string | undefined>,
  chars: number,
): { docs: Uint8Array<ArrayBuffer>; docEnds: Int32Array<ArrayBuffer> } {
  let docs = uninitialisedBytes(chars + (chars >> 3) + 64);
  const docEnds = new Int32Array(jsons.length);
  let end = 0;
  for (let row = 0; row < jsons.length; row++) {
    const json = jsons[row];
    if (json === undefined) {
      docEnds[row] = -1;
      continue;
    }
    let { read, written } = utf8.encodeInto(json, docs.subarray(end));
    end += written;
    while (read < json.length) {
      // A character takes at most 3 bytes in UTF-8 (a surrogate pair 4, for its 2 characters).
      const grown = uninitialisedBytes(Math.max(docs.length * 2, end + (json.length - read) * 3));
      grown.set(docs.subarray(0, end));
      docs = grown;
      const rest = utf8.encodeInto(json.slice(read), docs.subarray(end));
      read += rest.read;
      end += rest.written;
    }
    docEnds[row] = end;
  }
  return { docs, docEnds };
}

/** A byte array of its own buffer (so that it can be transferred), not zeroed first. */
function uninitialisedBytes(length: number): Uint8Array<ArrayBuffer> {
  const bytes = Buffer.allocUnsafeSlow(length);
  return new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length);
}

/**
 * Commits generations' writes on a connection of its own, in a worker thread. Replies come back in the
 * order batches were sent, so the sizes in flight are a queue. The thread holds the process open only
 * while batches are in flight.
 */
/** The ids a batch writes (puts and deletes), by physical collection. */
export type WrittenIds = ReadonlyMap<string, ReadonlySet<DocId>>;

export class GenerationWriter {
  private readonly worker: Worker;
  private readonly inFlight: Array<{ generation: string; chars: number; written: WrittenIds }> = [];
  private inFlightChars = 0;
  private readonly failures = new Map<string, Error>();
  private crash: Error | undefined;
  private waiters: Array<() => void> = [];

  constructor(private readonly file: string) {
    const settings: WriterSettings = { file, busyTimeoutMs: BUSY_TIMEOUT_MS, niceness: HELPER_THREAD_NICENESS };
    this.worker = startTypeScriptWorker(WRITER_THREAD, { workerData: settings });
    this.worker.unref();
    this.worker.on('message', (reply: WriterReply) => this.replied(reply));
    this.worker.on('error', (error) => this.crashed(error));
    this.worker.on('exit', (code) => this.crashed(new Error(`The generation writer thread exited (code ${code})`)));
  }

  /** Throws what keeps the generation from being written: a failed batch of it, or the thread's end. */
  assertWritable(generation: string): void {
    const failure = this.crash ?? this.failures.get(generation);
    if (failure) throw failure;
  }

  get broken(): boolean {
    return this.crash !== undefined;
  }

  hasInFlight(generation: string): boolean {
    return this.inFlight.some((batch) => batch.generation === generation);
  }

  send(batch: WriterBatch, chars: number, written: WrittenIds): void {
    this.assertWritable(batch.generation);
    if (this.inFlight.length === 0) this.worker.ref();
    this.worker.postMessage(batch, [batch.rowPhysicals.buffer, batch.idLengths.buffer, batch.docEnds.buffer, batch.docs.buffer]);
    this.inFlight.push({ generation: batch.generation, chars, written });
    this.inFlightChars += chars;
  }

  /** Resolves once the serialised documents in flight are below the bound. */
  async room(): Promise<void> {
    while (this.inFlightChars > WRITER_MAX_IN_FLIGHT_CHARS && !this.crash) await this.nextReply();
  }

  /** Resolves once every batch of the generation is committed; rejects with its failure. */
  async settled(generation: string): Promise<void> {
    while (this.hasInFlight(generation) && !this.crash) await this.nextReply();
    this.assertWritable(generation);
  }

  /**
   * Resolves once no batch in flight writes any of `ids` of `physical`, so that the table holds what the
   * generation wrote of them: at once unless one does (the last batches written, which a rebuild hardly ever
   * reads back). Rejects as `settled` does when a batch of the generation failed.
   */
  async committedWritesOf(generation: string, physical: string, ids: readonly DocId[]): Promise<void> {
    while (this.isWriting(physical, ids) && !this.crash) await this.nextReply();
    this.assertWritable(generation);
  }

  /** Resolves once nothing is in flight, whatever became of it. */
  async idle(): Promise<void> {
    while (this.inFlight.length > 0 && !this.crash) await this.nextReply();
  }

  forget(generation: string): void {
    this.failures.delete(generation);
  }

  async close(): Promise<void> {
    await this.idle();
    if (this.crash) return;
    const exited = once(this.worker, 'exit');
    // Unreferenced while idle, the thread would otherwise let the process exit before close resolves.
    this.worker.ref();
    this.worker.postMessage(null satisfies WriterMessage);
    await exited;
  }

  /** Whether a batch in flight writes one of `ids` of `physical`. */
  private isWriting(physical: string, ids: readonly DocId[]): boolean {
    return this.inFlight.some(({ written }) => {
      const writtenHere = written.get(physical);
      return writtenHere !== undefined && ids.some((id) => writtenHere.has(id));
    });
  }

  private nextReply(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private replied(reply: WriterReply): void {
    announceCommit(this.file);
    const batch = this.inFlight.shift();
    if (batch) this.inFlightChars -= batch.chars;
    if (reply.error) this.failures.set(reply.generation, Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    if (this.inFlight.length === 0) this.worker.unref();
    this.wake();
  }

  private crashed(error: Error): void {
    this.crash ??= error;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
