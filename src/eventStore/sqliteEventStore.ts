import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
} from './eventStore.js';

export const DEFAULT_READ_ALL_PAGE_SIZE = 1000;
export const DEFAULT_SUBSCRIPTION_BATCH_SIZE = 500;
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
type EventRow = [id: string, type: string, data: string, metadata: string, streamName: string, revision: number, position: number, recordedAt: string];

const EMPTY_METADATA = '{}';

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
export function createSqliteEventStore(options: { file: string }): EventStore {
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
  const selectAllAfter = db
    .prepare<[bigint, number], EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`)
    .raw(true);
  const selectHeadPosition = db.prepare<[], number | null>('SELECT MAX(position) FROM events').pluck();
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

  const append = db.transaction((streamName: string, events: NewEvent[], expected: ExpectedRevision): AppendResult => {
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
  });

  function readAllAfter(after: bigint, maxCount: number): RecordedEvent[] {
    return selectAllAfter.all(after, maxCount).map(toRecordedEvent);
  }

  const appendListeners = new Set<() => void>();
  const subscriptions = new Set<Subscription>();

  function subscribeToAll({
    after = 0n,
    maxBatchSize = DEFAULT_SUBSCRIPTION_BATCH_SIZE,
    onBatch,
    onError,
  }: SubscribeToAllOptions): Subscription {
    let checkpoint = after;
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

    const delivery = (async () => {
      try {
        while (!closed) {
          const batch = readAllAfter(checkpoint, maxBatchSize);
          const last = batch.at(-1);
          if (!last) {
            await nextAppendOrPoll();
            continue;
          }
          await onBatch(batch);
          checkpoint = last.position;
        }
      } catch (error) {
        onError?.(error);
      } finally {
        closed = true;
        appendListeners.delete(notify);
      }
    })();

    const subscription: Subscription = {
      async close() {
        closed = true;
        wakeUp?.();
        await delivery;
        subscriptions.delete(subscription);
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  return {
    async appendToStream(streamName, events, { expectedRevision }) {
      if (events.length === 0) throw new RangeError(`An append to ${streamName} needs at least one event.`);
      const result = append.immediate(streamName, events, expectedRevision);
      for (const listener of appendListeners) listener();
      return result;
    },

    async readStream(streamName, options) {
      return selectStream.all(streamName, options?.fromRevision ?? 0).map(toRecordedEvent);
    },

    async readAll(options) {
      return readAllAfter(options?.after ?? 0n, options?.maxCount ?? DEFAULT_READ_ALL_PAGE_SIZE);
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
