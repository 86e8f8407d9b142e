import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamRecordedEvent,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
  type RecordedEvent as ClientRecordedEvent,
} from '@eventstore/db-client';
import {
  refuseEmptyAppends,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
} from './eventStore.js';

export const DEFAULT_READ_ALL_PAGE_SIZE = 1000;
export const DEFAULT_SUBSCRIPTION_BATCH_SIZE = 500;
/** Page size for scanning $all backwards past system events to find the last event of ours. */
const HEAD_SCAN_PAGE_SIZE = 100;
const PING_DEADLINE_MS = 2000;

function toClientExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return BigInt(expected);
  }
}

/**
 * Our positions are bigints. Since EventStoreDB 20 every event is its own implicit transaction, so an
 * event's commit and prepare positions are equal and the commit position alone identifies it.
 */
const toClientPosition = (position: bigint): Position => ({ commit: position, prepare: position });

/** Events the server writes for itself ($stats, $settings, stream metadata, links) are not part of our log. */
const isSystemEvent = (event: ClientRecordedEvent): boolean => event.type.startsWith('$') || event.streamId.startsWith('$');

function toMetadata(metadata: unknown): EventMetadata {
  return typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) && !(metadata instanceof Uint8Array)
    ? (metadata as EventMetadata)
    : {};
}

function toRecordedEvent(event: ClientRecordedEvent, position: bigint): RecordedEvent {
  return {
    id: event.id,
    type: event.type,
    data: event.data as object,
    metadata: toMetadata(event.metadata),
    streamName: event.streamId,
    revision: Number(event.revision),
    position,
    recordedAt: event.created.toISOString(),
  };
}

function fromStreamRead(resolved: ResolvedEvent): RecordedEvent | null {
  const { event } = resolved;
  if (!event) return null;
  const position = event.position?.commit ?? resolved.commitPosition;
  if (position === undefined) {
    throw new Error(`EventStoreDB reported no position for event ${event.id} of ${event.streamId}; a server 20.10 or later is required.`);
  }
  return toRecordedEvent(event, position);
}

/** Our event from a $all read, or null for a system event or an event at or before `after`. */
function fromAllRead(event: AllStreamRecordedEvent | undefined, after: bigint | undefined): RecordedEvent | null {
  if (!event || isSystemEvent(event)) return null;
  if (after !== undefined && event.position.commit <= after) return null;
  return toRecordedEvent(event, event.position.commit);
}

async function collect<T>(readable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of readable) items.push(item);
  return items;
}

export function createEventStoreDbStore(options: { connectionString: string }): EventStore {
  const client = EventStoreDBClient.connectionString(options.connectionString);
  const subscriptions = new Set<Subscription>();

  async function readStream(streamName: string, options?: { fromRevision?: number }): Promise<RecordedEvent[]> {
    const fromRevision = options?.fromRevision === undefined ? START : BigInt(options.fromRevision);
    try {
      const resolved = await collect<ResolvedEvent>(client.readStream(streamName, { fromRevision }));
      return resolved.map(fromStreamRead).filter((event): event is RecordedEvent => event !== null);
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }

  async function streamRevision(streamName: string): Promise<number | null> {
    try {
      const [last] = await collect<ResolvedEvent>(client.readStream(streamName, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }));
      return last?.event ? Number(last.event.revision) : null;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
  }

  /**
   * $all has no server-side filter for reads, so system events are dropped here and reading goes on page by
   * page until maxCount events of ours are collected or the log ends.
   */
  async function readAll(options?: { after?: bigint; maxCount?: number }): Promise<RecordedEvent[]> {
    const maxCount = options?.maxCount ?? DEFAULT_READ_ALL_PAGE_SIZE;
    const events: RecordedEvent[] = [];
    let after = options?.after;
    while (events.length < maxCount) {
      // Reading from a position includes the event at it, hence one more than still needed.
      const pageSize = maxCount - events.length + 1;
      const fromPosition: ReadPosition = after === undefined ? START : toClientPosition(after);
      const page = await collect<AllStreamResolvedEvent>(client.readAll({ fromPosition, maxCount: pageSize }));
      for (const { event } of page) {
        const recorded = fromAllRead(event, after);
        if (recorded && events.length < maxCount) events.push(recorded);
      }
      const lastRead = page.at(-1)?.event;
      if (page.length < pageSize || !lastRead) break;
      after = lastRead.position.commit;
    }
    return events;
  }

  async function headPosition(): Promise<bigint | null> {
    let fromPosition: ReadPosition = END;
    for (;;) {
      const page: AllStreamResolvedEvent[] = await collect(
        client.readAll({ direction: BACKWARDS, fromPosition, maxCount: HEAD_SCAN_PAGE_SIZE }),
      );
      const ours = page.find(({ event }) => event && !isSystemEvent(event))?.event;
      if (ours) return ours.position.commit;
      const oldestRead = page.at(-1)?.event;
      if (page.length < HEAD_SCAN_PAGE_SIZE || !oldestRead) return null;
      fromPosition = oldestRead.position;
    }
  }

  /**
   * Events are buffered as the server pushes them and handed over in batches; the gRPC stream is paused
   * while onBatch runs or the buffer is full, so a slow consumer holds the server back instead of memory.
   */
  function subscribeToAll({
    after,
    maxBatchSize = DEFAULT_SUBSCRIPTION_BATCH_SIZE,
    onBatch,
    onError,
  }: SubscribeToAllOptions): Subscription {
    const stream = client.subscribeToAll({
      fromPosition: after === undefined ? START : toClientPosition(after),
      filter: excludeSystemEvents(),
    });
    const buffer: RecordedEvent[] = [];
    let checkpoint = after;
    let closed = false;
    let delivering: Promise<void> | null = null;

    const stop = async () => {
      if (closed) return;
      closed = true;
      stream.removeAllListeners('data');
      await stream.unsubscribe();
      stream.destroy();
    };

    const fail = (error: unknown) => {
      if (closed) return;
      // The subscription has failed already; a failure to cancel it adds nothing to report.
      stop().catch(() => undefined);
      onError?.(error);
    };

    const deliver = async () => {
      // Lets the events that arrived in the same turn join the first batch.
      await new Promise((resolve) => setImmediate(resolve));
      while (buffer.length > 0 && !closed) {
        stream.pause();
        await onBatch(buffer.splice(0, maxBatchSize));
      }
    };

    const scheduleDelivery = () => {
      if (delivering) return;
      delivering = deliver().then(
        () => {
          delivering = null;
          if (!closed) stream.resume();
        },
        (error: unknown) => {
          delivering = null;
          fail(error);
        },
      );
    };

    stream.on('data', ({ event }: AllStreamResolvedEvent) => {
      const recorded = fromAllRead(event, checkpoint);
      if (!recorded) return;
      checkpoint = recorded.position;
      buffer.push(recorded);
      if (buffer.length >= maxBatchSize) stream.pause();
      scheduleDelivery();
    });
    stream.on('error', fail);
    stream.on('end', () => fail(new Error('EventStoreDB ended the subscription to $all.')));

    const subscription: Subscription = {
      async close() {
        await stop();
        await delivering;
        subscriptions.delete(subscription);
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  async function appendToStream(streamName: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    refuseEmptyAppends([{ streamName, events }]);
    try {
      const result = await client.appendToStream(
        streamName,
        events.map((event) =>
          jsonEvent({
            type: event.type,
            data: event.data as Record<string, unknown>,
            metadata: event.metadata ?? {},
            id: event.id,
          }),
        ),
        { expectedRevision: toClientExpectedRevision(expectedRevision) },
      );
      if (!result.position) {
        throw new Error(`EventStoreDB reported no position for the append to ${streamName}.`);
      }
      return { nextExpectedRevision: Number(result.nextExpectedRevision), position: result.position.commit };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion === NO_STREAM ? 'no_stream' : Number(error.actualVersion);
        throw new WrongExpectedRevisionError(streamName, expectedRevision, actual);
      }
      throw error;
    }
  }

  return {
    appendToStream: (streamName, events, { expectedRevision }) => appendToStream(streamName, events, expectedRevision),

    /**
     * EventStoreDB has no transaction across streams (it writes one stream's events atomically): the streams are
     * appended one after the other, and a refused expectation leaves those before it written (see the port).
     */
    async appendToStreams(appends) {
      refuseEmptyAppends(appends);
      const results: AppendResult[] = [];
      for (const { streamName, events, expectedRevision } of appends)
        results.push(await appendToStream(streamName, events, expectedRevision));
      return results;
    },

    readStream,
    streamRevision,
    readAll,
    headPosition,
    subscribeToAll,

    async ping() {
      try {
        await collect(client.readAll({ fromPosition: START, maxCount: 1, deadline: PING_DEADLINE_MS }));
        return true;
      } catch {
        return false;
      }
    },

    async close() {
      await Promise.all([...subscriptions].map((subscription) => subscription.close()));
      await client.dispose();
    },
  };
}
