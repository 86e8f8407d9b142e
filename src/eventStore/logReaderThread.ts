/*
 * The log read-ahead thread (see readAheadInWorker in sqliteEventStore.ts). On its own connection it steps
 * through the log and sends each page as one text (every row's id, data, metadata, stream name and
 * timestamp, back to back), their end offsets, and each row's type code, revision and position as numbers;
 * types are sent once, with the page that first has them. SQLite's stepping and the rows' strings cost this
 * thread, and one string and two typed arrays cost the clone to the consumer far less than a string per
 * column and row: receiving the rows as arrays cost the consumer more than reading them itself. It reads a
 * page for each credit it is sent, up to the first empty page, and runs until the consumer terminates it.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { EventRow } from './sqliteEventStore.js';
import { positionReadTo, type LogReaderSettings, type ReadPage, type ReaderMessage } from './logReaderProtocol.js';

if (!parentPort) throw new Error('logReaderThread.ts runs as a worker thread');
const port = parentPort;
const settings = workerData as LogReaderSettings;

// Below the consumer's thread (see READER_NICENESS). On Linux a thread's nice value is its own, and
// setPriority(0, ...) sets the calling thread's; elsewhere it would be the whole process's.
if (process.platform === 'linux') {
  try {
    setPriority(0, settings.niceness);
  } catch {
    // Not allowed here: the thread keeps its priority.
  }
}
const db = new Database(settings.file, { readonly: true, fileMustExist: true });
db.pragma(`busy_timeout = ${settings.busyTimeoutMs}`);
const select = db.prepare<unknown[], EventRow>(settings.sql).raw(true);
const selectHead = db.prepare<[], number | null>(settings.headSql).pluck();
const { pageSize, types } = settings;
let after = settings.after;
let ended = false;
const typeCodes = new Map<string, number>();

function readPage(): ReadPage {
  const head = selectHead.get() ?? 0;
  const rows = head <= after ? [] : select.all(after, head, ...(types ?? []), pageSize);
  const position = positionReadTo(after, head, rows.length, rows.at(-1)?.[6], pageSize);
  if (position === after) ended = true;
  after = position;
  const newTypes: string[] = [];
  const parts = new Array<string>(rows.length * 5);
  const ends = new Int32Array(rows.length * 5);
  const numbers = new Float64Array(rows.length * 3);
  let length = 0;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!;
    let code = typeCodes.get(row[1]);
    if (code === undefined) {
      code = typeCodes.size;
      typeCodes.set(row[1], code);
      newTypes.push(row[1]);
    }
    numbers[index * 3] = code;
    numbers[index * 3 + 1] = row[5];
    numbers[index * 3 + 2] = row[6];
    const at = index * 5;
    parts[at] = row[0];
    length += row[0].length;
    ends[at] = length;
    parts[at + 1] = row[2];
    length += row[2].length;
    ends[at + 1] = length;
    parts[at + 2] = row[3];
    length += row[3].length;
    ends[at + 2] = length;
    parts[at + 3] = row[4];
    length += row[4].length;
    ends[at + 3] = length;
    parts[at + 4] = row[7];
    length += row[7].length;
    ends[at + 4] = length;
  }
  return { count: rows.length, newTypes, text: parts.join(''), ends, numbers, position };
}

port.on('message', (credits: number) => {
  try {
    for (let page = 0; page < credits && !ended; page++) {
      const message = readPage();
      port.postMessage(message, [message.ends.buffer, message.numbers.buffer]);
    }
  } catch (cause) {
    ended = true;
    const message: ReaderMessage = { error: String((cause as { message?: unknown } | null)?.message) };
    port.postMessage(message);
  }
});
