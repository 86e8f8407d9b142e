import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeDocs, WRITER_THREAD } from '../../../src/readStore/embedded/generationWriter.js';
import { SCHEMA } from '../../../src/readStore/embedded/sqliteSchema.js';
import type { WriterBatch, WriterReply, WriterSettings } from '../../../src/readStore/embedded/writerProtocol.js';
import { startTypeScriptWorker } from '../../../src/typeScriptWorker.js';

const tempDir = mkdtempSync(join(tmpdir(), 'writer-thread-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

function aStoreFile(): string {
  const file = join(tempDir, `${randomUUID()}.sqlite`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA);
  db.close();
  return file;
}

/** A batch of puts (a document) and deletes (null) of one physical collection, as GenerationWriter builds it. */
function aBatch(
  generation: string,
  physical: string,
  rows: Array<[id: number, doc: object | null]>,
  checkpoint: [name: string, position: string, fencingToken?: number],
): WriterBatch {
  const jsons = rows.map(([, doc]) => (doc === null ? undefined : JSON.stringify(doc)));
  const ids = rows.map(([id]) => JSON.stringify(id));
  const { docs, docEnds } = encodeDocs(
    jsons,
    jsons.reduce((chars, json) => chars + (json?.length ?? 0), 0),
  );
  return {
    generation,
    scope: generation,
    physicals: [physical],
    rowPhysicals: new Int32Array(rows.length),
    idLengths: Int32Array.from(ids, (id) => id.length),
    ids: ids.join(''),
    docEnds,
    docs,
    checkpoints: [[checkpoint[0], checkpoint[1], checkpoint[2] ?? null]],
  };
}

/** Sends the batches in one turn, then asks the thread to close; answers its replies once it has exited. */
async function writeThenClose(worker: Worker, batches: WriterBatch[]): Promise<WriterReply[]> {
  const replies: WriterReply[] = [];
  worker.on('message', (reply: WriterReply) => replies.push(reply));
  const exited = once(worker, 'exit');
  for (const batch of batches)
    worker.postMessage(batch, [batch.rowPhysicals.buffer, batch.idLengths.buffer, batch.docEnds.buffer, batch.docs.buffer]);
  worker.postMessage(null);
  await exited;
  return replies;
}

function startWriter(file: string): Worker {
  const settings: WriterSettings = { file, busyTimeoutMs: 5000, niceness: 10 };
  return startTypeScriptWorker(WRITER_THREAD, { workerData: settings });
}

function storedRows(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    return {
      documents: db.prepare('SELECT collection, id, version, doc FROM documents ORDER BY collection, id').all(),
      checkpoints: db.prepare('SELECT scope, name, position FROM checkpoints ORDER BY scope, name').all(),
    };
  } finally {
    db.close();
  }
}

describe('the generation writer thread', () => {
  it('when documents take more bytes than characters, beyond the room made for them, then each is encoded whole in UTF-8 and ends where the next begins', () => {
    const jsons = [
      JSON.stringify({ name: 'Marina' }),
      undefined,
      JSON.stringify({ name: 'دبي مارينا'.repeat(40) }),
      JSON.stringify({ emoji: '🏙️' }),
    ];
    const chars = jsons.reduce((sum, json) => sum + (json?.length ?? 0), 0);

    const { docs, docEnds } = encodeDocs(jsons, chars);

    const decoder = new TextDecoder();
    let start = 0;
    const decoded = Array.from(docEnds, (end) => {
      if (end < 0) return undefined;
      const json = decoder.decode(docs.subarray(start, end));
      start = end;
      return json;
    });
    expect(decoded).toEqual(jsons);
    expect(docs.byteOffset).toBe(0);
    expect(docs.buffer.byteLength).toBeGreaterThanOrEqual(docEnds.at(-1)!);
  });

  it('when batches are sent and then null, then each is committed in order, replied to in order, and the thread exits', async () => {
    const file = aStoreFile();

    const replies = await writeThenClose(startWriter(file), [
      aBatch(
        'g1',
        'projects@g1',
        [
          [1, { _id: 1, name: 'Düsseldorf – 😀' }],
          [2, { _id: 2 }],
        ],
        ['projects', '10'],
      ),
      aBatch(
        'g1',
        'projects@g1',
        [
          [2, null],
          [3, { _id: 3 }],
        ],
        ['projects', '11'],
      ),
    ]);

    expect(replies).toEqual([{ generation: 'g1' }, { generation: 'g1' }]);
    const { documents, checkpoints } = storedRows(file);
    expect(documents).toEqual([
      { collection: 'projects@g1', id: '1', version: 1, doc: '{"_id":1,"name":"Düsseldorf – 😀"}' },
      { collection: 'projects@g1', id: '3', version: 2, doc: '{"_id":3}' },
    ]);
    expect(checkpoints).toEqual([{ scope: 'g1', name: 'projects', position: '11' }]);
  });

  it('when a batch of a generation fails, then that generation commits nothing more and the other generations are unaffected', async () => {
    const file = aStoreFile();
    const saboteur = new Database(file);
    saboteur.exec(
      `CREATE TRIGGER refuse_broken BEFORE INSERT ON documents WHEN NEW.doc LIKE '%broken%' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
    saboteur.close();

    const replies = await writeThenClose(startWriter(file), [
      aBatch('failing', 'projects@failing', [[1, { _id: 1, v: 'broken' }]], ['projects', '1']),
      aBatch('healthy', 'developers@healthy', [[1, { _id: 1 }]], ['developers', '1']),
      aBatch('failing', 'projects@failing', [[2, { _id: 2, v: 'fine' }]], ['projects', '2']),
    ]);

    expect(replies).toEqual([
      { generation: 'failing', error: expect.objectContaining({ message: 'refused' }) },
      { generation: 'healthy' },
      { generation: 'failing', error: expect.objectContaining({ message: 'refused' }) },
    ]);
    const { documents, checkpoints } = storedRows(file);
    expect(documents).toEqual([{ collection: 'developers@healthy', id: '1', version: 1, doc: '{"_id":1}' }]);
    expect(checkpoints).toEqual([{ scope: 'healthy', name: 'developers', position: '1' }]);
  });
});
