import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { LogReaderSettings, ReaderMessage, ReadPage } from '../../src/eventStore/logReaderProtocol.js';
import {
  createSqliteEventStore,
  LOG_READER_THREAD,
  SELECT_HEAD_POSITION,
  SELECT_PAGE,
  selectPageOfTypes,
} from '../../src/eventStore/sqliteEventStore.js';
import { startTypeScriptWorker } from '../../src/typeScriptWorker.js';

const tempDir = mkdtempSync(join(tmpdir(), 'log-reader-thread-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

const started: Worker[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((worker) => worker.terminate()));
});

async function aLogOf(events: Array<{ stream: string; type: string; data: object }>): Promise<string> {
  const file = join(tempDir, `${randomUUID()}.sqlite`);
  const store = createSqliteEventStore({ file });
  for (const { stream, type, data } of events) {
    await store.appendToStream(stream, [{ id: `${type}-${JSON.stringify(data)}`, type, data }], { expectedRevision: 'any' });
  }
  await store.close();
  return file;
}

function startReader(file: string, pageSize: number, types?: string[]): Worker {
  const settings: LogReaderSettings = {
    file,
    busyTimeoutMs: 5000,
    sql: types ? selectPageOfTypes(types.length) : SELECT_PAGE,
    headSql: SELECT_HEAD_POSITION,
    types: types ?? null,
    after: 0,
    pageSize,
    niceness: 10,
  };
  const worker = startTypeScriptWorker(LOG_READER_THREAD, { workerData: settings });
  started.push(worker);
  return worker;
}

/** Sends credits and collects the pages they buy. */
async function pagesFor(worker: Worker, credits: number): Promise<ReaderMessage[]> {
  const pages: ReaderMessage[] = [];
  const collect = (message: ReaderMessage) => pages.push(message);
  worker.on('message', collect);
  worker.postMessage(credits);
  while (pages.length < credits) await once(worker, 'message');
  worker.off('message', collect);
  return pages;
}

/** A page's rows as the consumer cuts them out of its text: [id, data, metadata, stream, recorded at]. */
function fieldsOf(page: ReadPage): string[][] {
  const rows: string[][] = [];
  let start = 0;
  for (let row = 0; row < page.count; row++) {
    const fields: string[] = [];
    for (let field = 0; field < 5; field++) {
      const end = page.ends[row * 5 + field]!;
      fields.push(page.text.slice(start, end));
      start = end;
    }
    rows.push(fields);
  }
  return rows;
}

describe('the log reader thread', () => {
  it('when credits are sent, then it answers a page per credit in log order, each type sent once, and an empty page at the head', async () => {
    const file = await aLogOf([
      { stream: 'a-1', type: 'Created', data: { n: 1 } },
      { stream: 'b-1', type: 'Renamed', data: { n: 'é' } },
      { stream: 'a-1', type: 'Created', data: { n: 3 } },
    ]);
    const worker = startReader(file, 2);

    const [first, second, head] = (await pagesFor(worker, 3)) as ReadPage[];

    expect(first!.count).toBe(2);
    expect(first!.newTypes).toEqual(['Created', 'Renamed']);
    expect([...first!.numbers]).toEqual([0, 0, 1, 1, 0, 2]);
    expect(fieldsOf(first!).map(([id, data, metadata, stream]) => [id, data, metadata, stream])).toEqual([
      ['Created-{"n":1}', '{"n":1}', '{}', 'a-1'],
      ['Renamed-{"n":"é"}', '{"n":"é"}', '{}', 'b-1'],
    ]);
    expect(first!.position).toBe(2);
    expect(second!.count).toBe(1);
    expect(second!.newTypes).toEqual([]);
    expect([...second!.numbers]).toEqual([0, 1, 3]);
    expect(second!.position).toBe(3);
    expect([head!.count, head!.position]).toEqual([0, 3]);
  });

  it('when it is given types, then it sends only their rows, each page read up to its last row or the head', async () => {
    const file = await aLogOf([
      { stream: 'a-1', type: 'Created', data: { n: 1 } },
      { stream: 'ids', type: 'IdAllocated', data: { n: 2 } },
      { stream: 'b-1', type: 'Renamed', data: { n: 3 } },
      { stream: 'a-1', type: 'Created', data: { n: 4 } },
      { stream: 'ids', type: 'IdAllocated', data: { n: 5 } },
      { stream: 'ids', type: 'IdAllocated', data: { n: 6 } },
    ]);
    const worker = startReader(file, 2, ['Created', 'Renamed']);

    const [first, second, head] = (await pagesFor(worker, 3)) as ReadPage[];

    expect([first!.count, first!.position, first!.newTypes]).toEqual([2, 3, ['Created', 'Renamed']]);
    expect(fieldsOf(first!).map(([, data]) => data)).toEqual(['{"n":1}', '{"n":3}']);
    expect([second!.count, second!.position]).toEqual([1, 6]);
    expect([...second!.numbers]).toEqual([0, 1, 4]);
    expect([head!.count, head!.position]).toEqual([0, 6]);
  });
});
