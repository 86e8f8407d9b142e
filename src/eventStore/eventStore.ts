/**
 * Event store port. Adapters: embedded SQLite (default) and EventStoreDB (EVENTSTORE_URL).
 * Nothing outside src/eventStore imports a client library.
 */

/** An event as a decider emits it: `type` is the union discriminant; payloads are plain JSON. */
export interface DomainEvent<Type extends string = string, Data extends object = object> {
  type: Type;
  data: Data;
}

export type EventMetadata = Record<string, unknown>;

export interface NewEvent<E extends DomainEvent = DomainEvent> {
  type: E['type'];
  data: E['data'];
  metadata?: EventMetadata;
  /** Optional idempotent event id (uuid); generated when absent. */
  id?: string;
}

export interface RecordedEvent<E extends DomainEvent = DomainEvent> {
  id: string;
  type: E['type'];
  data: E['data'];
  metadata: EventMetadata;
  streamName: string;
  /** 0-based position of the event inside its stream. */
  revision: number;
  /** Position in the global log; strictly increasing in append order. */
  position: bigint;
  /** ISO timestamp at which the store recorded the event. */
  recordedAt: string;
}

/**
 * - a number: the stream's current revision must be exactly this (last event's revision)
 * - 'no_stream': the stream must not exist
 * - 'stream_exists': the stream must exist
 * - 'any': no check
 */
export type ExpectedRevision = number | 'no_stream' | 'stream_exists' | 'any';

export interface AppendResult {
  /** Revision of the last event written; pass it as the next expected revision. */
  nextExpectedRevision: number;
  /** Global position of the last event written. */
  position: bigint;
}

/** One stream's part of a multi-stream append: its events, appended after the expected revision. */
export interface StreamAppend {
  streamName: string;
  events: NewEvent[];
  expectedRevision: ExpectedRevision;
}

export interface ReadAllOptions {
  /** Exclusive lower bound; omitted = from the beginning of the log. */
  after?: bigint;
  maxCount?: number;
}

export interface SubscribeToAllOptions {
  /** Exclusive checkpoint: delivery starts with the first event after it; omitted = from the start. */
  after?: bigint;
  maxBatchSize?: number;
  /**
   * Called with consecutive batches, in log order, never concurrently. The next batch is not delivered
   * before the returned promise settles. A rejection stops the subscription and is passed to onError.
   */
  onBatch: (events: RecordedEvent[]) => Promise<void>;
  onError?: (error: unknown) => void;
}

export interface Subscription {
  /** Stops delivery; resolves once no onBatch call is in flight. */
  close(): Promise<void>;
}

export interface EventStore {
  /** Appends all events atomically, or none (throws WrongExpectedRevisionError on a revision mismatch). */
  appendToStream(streamName: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  /**
   * Appends to several streams in the order given, as appendToStream would one after the other (a stream named
   * twice is checked the second time against what the first append left): each stream's events all or none,
   * each against its own expected revision; the results come in the same order. The embedded store writes
   * them in one transaction, so a refused expectation writes nothing of any stream. EventStoreDB has no
   * transaction across streams: it appends stream by stream, and a refusal leaves the streams before it
   * written, so a caller orders its appends such that every prefix of them is a state it can resume from.
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  /** Events of one stream in order; an empty array when the stream does not exist. */
  readStream(streamName: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]>;
  /** Revision of the stream's last event, or null when the stream does not exist; reads that event only, however long the stream. */
  streamRevision(streamName: string): Promise<number | null>;
  /** Events of the global log in order, after the given position. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the last event in the global log, or null when the log is empty. */
  headPosition(): Promise<bigint | null>;
  /** Catch-up from `after`, then live. The events may be shared with the store's other subscriptions: never change them. */
  subscribeToAll(options: SubscribeToAllOptions): Subscription;
  /** Cheap liveness probe for /v1/health. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** One page of a read-ahead (LogReadAhead). */
export interface LogPage {
  /** The page's events, of the types asked for, in log order. */
  events: RecordedEvent[];
  /**
   * How far the page read the log: its last event's position, or the position of the last event it
   * stepped over when the events after that one were of other types (up to the head it read); the
   * `after` of the read when it found nothing new. A consumer's checkpoint for the page.
   */
  position: bigint;
  /** Events of the log the page covers, of any type: the events it read and those it stepped over. */
  covered: number;
}

/**
 * A capability an event store may have besides the port (the embedded SQLite store has it): a reader of
 * the whole log ahead of its consumer, which a rebuild uses instead of paging with readAll. With `types`,
 * it reads only the events of those types, as EventStoreDB's server-side filter of $all does, and steps
 * over the others where they are stored (the rebuild's projections handle under two thirds of the log).
 * Pages come in log order, each with at most `pageSize` events; one has fewer only when it read up to the
 * head. The last page covers nothing (the head was reached when it was read). Stopping early (`return`,
 * or leaving a for-await loop) ends the reading. The events may be class instances whose fields are
 * getters (spread or clone them field by field), holding their page's text, which a consumer keeping one
 * of them or of its strings keeps alive.
 */
export interface LogReadAhead {
  readAllAhead(options: { after?: bigint; pageSize: number; types?: Iterable<string> }): AsyncGenerator<LogPage, void, undefined>;
}

/** Refuses, before anything is written, an append of no events to any of the streams (RangeError). */
export function refuseEmptyAppends(appends: ReadonlyArray<Pick<StreamAppend, 'streamName' | 'events'>>): void {
  for (const { streamName, events } of appends) {
    if (events.length === 0) throw new RangeError(`An append to ${streamName} needs at least one event.`);
  }
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    /** Current revision, or 'no_stream' when the stream does not exist. */
    readonly actual: number | 'no_stream',
  ) {
    super(`Stream ${streamName}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}
