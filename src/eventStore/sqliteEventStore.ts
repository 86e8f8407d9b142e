import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { createPrivateDatabaseFile } from '../dataDir.js';
import { startTypeScriptWorker } from '../typeScriptWorker.js';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type LogPage,
  type LogReadAhead,
  type NewEvent,
  type RecordedEvent,
  refuseEmptyAppends,
  type StreamAppend,
  type SubscribeToAllOptions,
  type Subscription,
} from './eventStore.js';
import { positionReadTo, type LogReaderSettings, type ReadPage, type ReaderMessage } from './logReaderProtocol.js';
import { RecentEvents } from './recentEvents.js';

export const DEFAULT_READ_ALL_PAGE_SIZE = 1000;
export const DEFAULT_SUBSCRIPTION_BATCH_SIZE = 500;
/**
 * Events the subscriptions share (see RecentEvents): enough for a projector's subscriptions to be that many
 * pages apart, as they drift while each projects its batches in turn.
 */
const RECENT_EVENTS_KEPT = 20 * DEFAULT_SUBSCRIPTION_BATCH_SIZE;
/** A subscription whose consumer has not moved on for this long is not waited for (see RecentEvents). */
const STALLED_SUBSCRIPTION_MS = 2_000;
/** How often a live subscription looks for events appended by another process on the same file. */
const POLL_INTERVAL_MS = 150;
const BUSY_TIMEOUT_MS = 5000;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream_name TEXT NOT NULL,
    stream_revision INTEGER NOT NULL,
    event_id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    UNIQUE (stream_name, stream_revision)
  )
`;

/** Column order shared by every event SELECT, read as raw arrays (no per-row object built by the driver). */
const EVENT_COLUMNS = 'event_id, type, data, metadata, stream_name, stream_revision, position, recorded_at';
export type EventRow = [
  id: string,
  type: string,
  data: string,
  metadata: string,
  streamName: string,
  revision: number,
  position: number,
  recordedAt: string,
];

const EMPTY_METADATA = '{}';

export const SELECT_ALL_AFTER = `SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`;
export const SELECT_HEAD_POSITION = 'SELECT MAX(position) FROM events';
/** A read-ahead page (see LogReaderSettings.sql): every type. */
export const SELECT_PAGE = `SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?`;
/**
 * A read-ahead page of `count` types, bound one by one after the head. SQLite still walks the rowids in
 * order (no sort, no index on type: the types asked for are most of the log) and looks each row's type up
 * in the list; the other rows' payloads are never made into strings. A list of placeholders cost SQLite a
 * fifth less than the same types as one JSON array (`IN (SELECT value FROM json_each(?))`).
 */
export function selectPageOfTypes(count: number): string {
  const list = Array.from({ length: count }, () => '?').join(', ');
  return `SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? AND position <= ? AND type IN (${list}) ORDER BY position LIMIT ?`;
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row[0],
    type: row[1],
    data: JSON.parse(row[2]) as object,
    metadata: row[3] === EMPTY_METADATA ? {} : (JSON.parse(row[3]) as Record<string, unknown>),
    streamName: row[4],
    revision: row[5],
    position: BigInt(row[6]),
    recordedAt: row[7],
  };
}

export type SqliteEventStore = EventStore & LogReadAhead;

/**
 * The reader thread's nice value (Linux): it reads ahead of a consumer that has more to do per page (a
 * rebuild projecting it), so it takes what the consumer leaves of the cores rather than sharing them with
 * it as an equal, and catches up whenever the consumer waits for a page.
 */
const READER_NICENESS = 10;

/** The module the read-ahead thread runs. */
export const LOG_READER_THREAD = new URL('./logReaderThread.ts', import.meta.url);

/** Pages a reader may have read and not yet handed out: enough to keep it busy while one is projected. */
const READ_AHEAD_PAGES = 3;

/**
 * An event of a read-ahead page: its strings are cut from the page's text, and its payload and metadata
 * parsed, when first read. A consumer that routes by type (a rebuild) never reads those of the events it
 * has no projection for, which are over a third of the log (id allocations, slug reservations), nor any
 * event's id, stream name or timestamp.
 */
class PageEvent implements RecordedEvent {
  private parsedData: object | undefined;
  private parsedMetadata: Record<string, unknown> | undefined;

  constructor(
    private readonly text: string,
    /** The page's end offsets; this event's five fields end at ends[at] to ends[at + 4]. */
    private readonly ends: Int32Array,
    private readonly at: number,
    /** Where its id starts in the text. */
    private readonly start: number,
    readonly type: string,
    readonly revision: number,
    readonly position: bigint,
  ) {}

  get id(): string {
    return this.text.slice(this.start, this.ends[this.at]);
  }

  get data(): object {
    return (this.parsedData ??= JSON.parse(this.text.slice(this.ends[this.at], this.ends[this.at + 1])) as object);
  }

  get metadata(): Record<string, unknown> {
    if (!this.parsedMetadata) {
      const metadata = this.text.slice(this.ends[this.at + 1], this.ends[this.at + 2]);
      this.parsedMetadata = metadata === EMPTY_METADATA ? {} : (JSON.parse(metadata) as Record<string, unknown>);
    }
    return this.parsedMetadata;
  }

  get streamName(): string {
    return this.text.slice(this.ends[this.at + 2], this.ends[this.at + 3]);
  }

  get recordedAt(): string {
    return this.text.slice(this.ends[this.at + 3], this.ends[this.at + 4]);
  }
}

/** `types`: the type of each code so far, to which the page's new types are added. */
function eventsOf(page: ReadPage, types: string[]): RecordedEvent[] {
  for (const type of page.newTypes) types.push(type);
  const { text, ends, numbers } = page;
  const events = new Array<RecordedEvent>(page.count);
  let start = 0;
  for (let index = 0; index < page.count; index++) {
    const at = index * 5;
    events[index] = new PageEvent(
      text,
      ends,
      at,
      start,
      types[numbers[index * 3]!]!,
      numbers[index * 3 + 1]!,
      BigInt(numbers[index * 3 + 2]!),
    );
    start = ends[at + 4]!;
  }
  return events;
}

/** The SELECT of a read-ahead page: of the given types, or of every type. */
function selectPageSql(types: readonly string[] | null): string {
  return types === null ? SELECT_PAGE : selectPageOfTypes(types.length);
}

/** Pages of the log from a read-ahead thread on `file` (see logReaderThread.ts). */
async function* readAheadInWorker(file: string, after: bigint, pageSize: number, types: string[] | null): AsyncGenerator<LogPage> {
  const settings: LogReaderSettings = {
    file,
    sql: selectPageSql(types),
    headSql: SELECT_HEAD_POSITION,
    types,
    busyTimeoutMs: BUSY_TIMEOUT_MS,
    after: Number(after),
    pageSize,
    niceness: READER_NICENESS,
  };
  const worker = startTypeScriptWorker(LOG_READER_THREAD, { workerData: settings });
  const received: ReaderMessage[] = [];
  const typeOfCode: string[] = [];
  let readTo = after;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const woken = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (message: ReaderMessage) => {
    received.push(message);
    woken();
  });
  worker.on('error', (error) => {
    failure ??= error;
    woken();
  });
  worker.on('exit', () => {
    failure ??= new Error('The log reader thread exited');
    woken();
  });
  worker.postMessage(READ_AHEAD_PAGES);
  try {
    for (;;) {
      const message = received.shift();
      if (!message) {
        if (failure) throw failure;
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if ('error' in message) throw new Error(message.error);
      const position = BigInt(message.position);
      const covered = Number(position - readTo);
      readTo = position;
      if (covered > 0) worker.postMessage(1);
      yield { events: eventsOf(message, typeOfCode), position, covered };
      if (covered === 0) return;
    }
  } finally {
    await worker.terminate();
  }
}

function matchesExpectedRevision(expected: ExpectedRevision, actual: number | 'no_stream'): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === 'no_stream';
  if (expected === 'stream_exists') return actual !== 'no_stream';
  return actual === expected;
}

/** The stream revision the first event of an append lands on, when the expectation pins it. */
function firstRevisionFor(expected: ExpectedRevision): number | undefined {
  if (expected === 'no_stream') return 0;
  if (typeof expected === 'number') return expected + 1;
  return undefined;
}

/**
 * Embedded event store: one SQLite file in WAL mode. Appends take the write lock up front (BEGIN IMMEDIATE)
 * so that several processes on one file serialise instead of failing on a read-to-write lock upgrade.
 */
export function createSqliteEventStore(options: { file: string }): SqliteEventStore {
  createPrivateDatabaseFile(options.file);
  const db = new Database(options.file);
  // Set first: switching a new file to WAL takes a lock that other processes opening it may hold.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);

  const selectCurrentRevision = db
    .prepare<[string], number>('SELECT stream_revision FROM events WHERE stream_name = ? ORDER BY stream_revision DESC LIMIT 1')
    .pluck();
  const selectByEventId = db.prepare<[string], { streamName: string; revision: number; position: number }>(
    'SELECT stream_name AS streamName, stream_revision AS revision, position FROM events WHERE event_id = ?',
  );
  const insertEvent = db.prepare<[string, number, string, string, string, string, string]>(
    'INSERT INTO events (stream_name, stream_revision, event_id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const selectStream = db
    .prepare<[string, number], EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_name = ? AND stream_revision >= ? ORDER BY stream_revision`,
    )
    .raw(true);
  const selectAllAfter = db.prepare<[bigint, number], EventRow>(SELECT_ALL_AFTER).raw(true);
  const selectHeadPosition = db.prepare<[], number | null>(SELECT_HEAD_POSITION).pluck();
  const selectOne = db.prepare<[], number>('SELECT 1').pluck();

  /**
   * A retried append whose event ids are already stored, in order, where the expectation puts them
   * returns the original result instead of failing or writing twice.
   */
  function findEarlierAppend(streamName: string, events: NewEvent[], expected: ExpectedRevision): AppendResult | null {
    const firstId = events[0]?.id;
    const first = firstId === undefined ? undefined : selectByEventId.get(firstId);
    if (first?.streamName !== streamName) return null;
    const pinnedRevision = firstRevisionFor(expected);
    if (pinnedRevision !== undefined && first.revision !== pinnedRevision) return null;
    let last = first;
    for (let index = 1; index < events.length; index++) {
      const id = events[index]?.id;
      const stored = id === undefined ? undefined : selectByEventId.get(id);
      if (stored?.streamName !== streamName || stored.revision !== first.revision + index) return null;
      last = stored;
    }
    return { nextExpectedRevision: last.revision, position: BigInt(last.position) };
  }

  /** One stream's append; runs inside a transaction (append, appendMany). */
  function appendInTransaction(streamName: string, events: NewEvent[], expected: ExpectedRevision): AppendResult {
    const earlier = findEarlierAppend(streamName, events, expected);
    if (earlier) return earlier;
    const current = selectCurrentRevision.get(streamName);
    const actual = current ?? 'no_stream';
    if (!matchesExpectedRevision(expected, actual)) throw new WrongExpectedRevisionError(streamName, expected, actual);

    const recordedAt = new Date().toISOString();
    let revision = current ?? -1;
    let position = 0n;
    for (const event of events) {
      revision += 1;
      const metadata = event.metadata === undefined ? EMPTY_METADATA : JSON.stringify(event.metadata);
      const inserted = insertEvent.run(
        streamName,
        revision,
        event.id ?? randomUUID(),
        event.type,
        JSON.stringify(event.data),
        metadata,
        recordedAt,
      );
      position = BigInt(inserted.lastInsertRowid);
    }
    return { nextExpectedRevision: revision, position };
  }

  const append = db.transaction(appendInTransaction);
  const appendMany = db.transaction((appends: readonly StreamAppend[]): AppendResult[] =>
    appends.map(({ streamName, events, expectedRevision }) => appendInTransaction(streamName, events, expectedRevision)),
  );

  function readAllAfter(after: bigint, maxCount: number): RecordedEvent[] {
    return selectAllAfter.all(after, maxCount).map(toRecordedEvent);
  }

  /** An in-memory database has no file another connection could open. */
  async function* readAheadOnThisThread(after: bigint, pageSize: number, types: string[] | null): AsyncGenerator<LogPage> {
    const select = db.prepare<unknown[], EventRow>(selectPageSql(types)).raw(true);
    for (let readTo = Number(after); ;) {
      const head = selectHeadPosition.get() ?? 0;
      const rows = head <= readTo ? [] : select.all(readTo, head, ...(types ?? []), pageSize);
      const position = positionReadTo(readTo, head, rows.length, rows.at(-1)?.[6], pageSize);
      const covered = position - readTo;
      readTo = position;
      yield { events: rows.map(toRecordedEvent), position: BigInt(position), covered };
      if (covered === 0) return;
    }
  }

  const recentEvents = new RecentEvents(readAllAfter, RECENT_EVENTS_KEPT, STALLED_SUBSCRIPTION_MS);
  const appendListeners = new Set<() => void>();
  const subscriptions = new Set<Subscription>();

  function subscribeToAll({
    after = 0n,
    maxBatchSize = DEFAULT_SUBSCRIPTION_BATCH_SIZE,
    onBatch,
    onError,
  }: SubscribeToAllOptions): Subscription {
    let closed = false;
    let wakeUp: (() => void) | null = null;

    const notify = () => wakeUp?.();
    appendListeners.add(notify);

    // Woken at once by appends through this instance; the timer catches appends made by other processes.
    const nextAppendOrPoll = () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => wakeUp?.(), POLL_INTERVAL_MS);
        timer.unref();
        wakeUp = () => {
          clearTimeout(timer);
          wakeUp = null;
          resolve();
        };
      });

    const cursor = recentEvents.open(after);
    const delivery = (async () => {
      try {
        while (!closed) {
          const batch = await recentEvents.read(cursor, maxBatchSize);
          const last = batch.at(-1);
          if (closed) break;
          if (!last) {
            await nextAppendOrPoll();
            continue;
          }
          await onBatch(batch);
          recentEvents.move(cursor, last.position);
        }
      } catch (error) {
        onError?.(error);
      } finally {
        closed = true;
        appendListeners.delete(notify);
        recentEvents.close(cursor);
      }
    })();

    const subscription: Subscription = {
      async close() {
        closed = true;
        wakeUp?.();
        recentEvents.close(cursor);
        await delivery;
        subscriptions.delete(subscription);
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  return {
    async appendToStream(streamName, events, { expectedRevision }) {
      refuseEmptyAppends([{ streamName, events }]);
      const result = append.immediate(streamName, events, expectedRevision);
      for (const listener of appendListeners) listener();
      return result;
    },

    async appendToStreams(appends) {
      refuseEmptyAppends(appends);
      if (appends.length === 0) return [];
      const results = appendMany.immediate(appends);
      for (const listener of appendListeners) listener();
      return results;
    },

    async readStream(streamName, options) {
      return selectStream.all(streamName, options?.fromRevision ?? 0).map(toRecordedEvent);
    },

    async streamRevision(streamName) {
      return selectCurrentRevision.get(streamName) ?? null;
    },

    async readAll(options) {
      return readAllAfter(options?.after ?? 0n, options?.maxCount ?? DEFAULT_READ_ALL_PAGE_SIZE);
    },

    readAllAhead({ after = 0n, pageSize, types }) {
      if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a whole number >= 1, got ${pageSize}`);
      const typesAsked = types === undefined ? null : [...new Set(types)];
      if (db.memory) return readAheadOnThisThread(after, pageSize, typesAsked);
      return readAheadInWorker(options.file, after, pageSize, typesAsked);
    },

    async headPosition() {
      const head = selectHeadPosition.get();
      return head === null || head === undefined ? null : BigInt(head);
    },

    subscribeToAll,

    async ping() {
      try {
        return selectOne.get() === 1;
      } catch {
        return false;
      }
    },

    async close() {
      await Promise.all([...subscriptions].map((subscription) => subscription.close()));
      if (db.open) db.close();
    },
  };
}
