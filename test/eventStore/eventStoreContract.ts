import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  WrongExpectedRevisionError,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  type Subscription,
} from '../../src/eventStore/eventStore.js';
import { eventually } from '../support/eventually.js';

/** Unique per test, so the suite can run against a server other runs share. */
const aStreamName = (category = 'contractTest'): string => `${category}-${randomUUID().replaceAll('-', '')}`;

const anEvent = (sequence: number, overrides: Partial<NewEvent> = {}): NewEvent => ({
  type: 'ThingHappened',
  data: { sequence },
  ...overrides,
});

const events = (count: number, from = 0): NewEvent[] => Array.from({ length: count }, (_, index) => anEvent(from + index));

const sequencesOf = (recorded: RecordedEvent[]): unknown[] => recorded.map((event) => (event.data as { sequence?: number }).sequence);

async function conflictOf(append: Promise<unknown>): Promise<WrongExpectedRevisionError> {
  const error = await append.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(WrongExpectedRevisionError);
  return error as WrongExpectedRevisionError;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long a test watches for something that must not happen (a duplicate, a delivery after close or after
 * a failure): there is nothing to poll for, only a window in which it would show.
 */
const QUIET_WINDOW_MS = 400;

function expectStrictlyIncreasingPositions(recorded: RecordedEvent[]): void {
  for (let index = 1; index < recorded.length; index++) {
    expect(recorded[index]!.position > recorded[index - 1]!.position).toBe(true);
  }
}

/** Collects what a subscription delivers and checks its delivery rules on the way. */
function aRecordingConsumer(options: { onBatchDelayMs?: number } = {}) {
  const batches: RecordedEvent[][] = [];
  let started = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    batches,
    get started() {
      return started;
    },
    get delivered() {
      return batches.flat();
    },
    get maxInFlight() {
      return maxInFlight;
    },
    inStream(streamName: string) {
      return batches.flat().filter((event) => event.streamName === streamName);
    },
    async onBatch(batch: RecordedEvent[]) {
      started += 1;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // A slow consumer is the behaviour under test: the next batch must wait for this one.
      if (options.onBatchDelayMs) await sleep(options.onBatchDelayMs);
      batches.push(batch);
      inFlight -= 1;
    },
  };
}

/**
 * What a multi-stream append that meets a refused expectation leaves written: nothing of any stream (one
 * transaction), or the streams before the refused one (a store without transactions across streams).
 */
export type MultiStreamRefusal = 'writes_nothing' | 'keeps_streams_before_it';

export function eventStoreContract(name: string, create: () => Promise<EventStore>, multiStreamRefusal: MultiStreamRefusal): void {
  describe(`${name} event store contract`, () => {
    let store: EventStore;
    const subscriptions: Subscription[] = [];

    beforeEach(async () => {
      store = await create();
    });

    afterEach(async () => {
      await Promise.all(subscriptions.splice(0).map((subscription) => subscription.close()));
      await store.close();
    });

    /** Where the log stands before a test appends, so reads of the global log ignore earlier events. */
    async function checkpointBeforeTest(): Promise<bigint | undefined> {
      return (await store.headPosition()) ?? undefined;
    }

    describe('appending and reading a stream', () => {
      it('when events are appended to a new stream, then reading it returns them in order with their revisions and positions', async () => {
        const streamName = aStreamName();

        const appended = await store.appendToStream(streamName, events(3), { expectedRevision: 'no_stream' });

        const recorded = await store.readStream(streamName);
        expect(sequencesOf(recorded)).toEqual([0, 1, 2]);
        expect(recorded.map((event) => event.revision)).toEqual([0, 1, 2]);
        expect(recorded.every((event) => event.streamName === streamName && event.type === 'ThingHappened')).toBe(true);
        expectStrictlyIncreasingPositions(recorded);
        expect(appended).toEqual({ nextExpectedRevision: 2, position: recorded[2]!.position });
        for (const event of recorded) {
          expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
          expect(new Date(event.recordedAt).toISOString()).toBe(event.recordedAt);
        }
      });

      it('when a stream does not exist, then reading it returns no events', async () => {
        expect(await store.readStream(aStreamName())).toEqual([]);
      });

      it('when reading from a revision, then the events before it are left out', async () => {
        const streamName = aStreamName();
        await store.appendToStream(streamName, events(4), { expectedRevision: 'no_stream' });

        const recorded = await store.readStream(streamName, { fromRevision: 2 });

        expect(recorded.map((event) => event.revision)).toEqual([2, 3]);
      });

      it('when events carry ids, then they are recorded under those ids', async () => {
        const streamName = aStreamName();
        const ids = [randomUUID(), randomUUID()];

        await store.appendToStream(
          streamName,
          ids.map((id, index) => anEvent(index, { id })),
          { expectedRevision: 'no_stream' },
        );

        expect((await store.readStream(streamName)).map((event) => event.id)).toEqual(ids);
      });

      it('when a stream does not exist, then its revision is null', async () => {
        expect(await store.streamRevision(aStreamName())).toBeNull();
      });

      it('when streams are appended in turn, then the revision of each is that of its own last event', async () => {
        const first = aStreamName();
        const second = aStreamName();

        await store.appendToStream(first, events(3), { expectedRevision: 'no_stream' });
        await store.appendToStream(second, [anEvent(100)], { expectedRevision: 'no_stream' });
        await store.appendToStream(first, [anEvent(3)], { expectedRevision: 2 });

        expect(await store.streamRevision(first)).toBe(3);
        expect(await store.streamRevision(second)).toBe(0);
      });

      it('when an append is refused, then the stream revision is unchanged', async () => {
        const streamName = aStreamName();
        await store.appendToStream(streamName, events(2), { expectedRevision: 'no_stream' });

        await conflictOf(store.appendToStream(streamName, [anEvent(2)], { expectedRevision: 0 }));

        expect(await store.streamRevision(streamName)).toBe(1);
      });

      it('when several streams are appended in turn, then each stream holds only its own events', async () => {
        const first = aStreamName();
        const second = aStreamName();

        await store.appendToStream(first, [anEvent(0)], { expectedRevision: 'no_stream' });
        await store.appendToStream(second, [anEvent(100)], { expectedRevision: 'no_stream' });
        await store.appendToStream(first, [anEvent(1)], { expectedRevision: 0 });
        await store.appendToStream(second, [anEvent(101)], { expectedRevision: 0 });

        expect(sequencesOf(await store.readStream(first))).toEqual([0, 1]);
        expect(sequencesOf(await store.readStream(second))).toEqual([100, 101]);
        expect((await store.readStream(second)).map((event) => event.revision)).toEqual([0, 1]);
      });

      it('when data and metadata hold nested objects, arrays, nulls and unicode, then they read back unchanged', async () => {
        const streamName = aStreamName();
        const data = {
          name: 'Żółta Tower – 東京 オフィス 🏢',
          floors: [
            { level: -1, usage: 'parking' },
            { level: 0, usage: 'retail', areaSqm: 1234.5 },
          ],
          address: { street: 'Rue de l’Église', postcode: null, geo: { lat: 48.8566, lng: 2.3522 } },
          published: true,
        };
        const metadata = { actor: 'editor@example.com', at: '2024-05-01T10:00:00.000Z', trace: { ids: ['a', 'b'], note: 'naïve ✓' } };

        await store.appendToStream(streamName, [{ type: 'ProjectDescribed', data, metadata }], { expectedRevision: 'no_stream' });

        const [recorded] = await store.readStream(streamName);
        expect(recorded?.type).toBe('ProjectDescribed');
        expect(recorded?.data).toEqual(data);
        expect(recorded?.metadata).toEqual(metadata);
      });

      it('when an event has no metadata, then it reads back with empty metadata', async () => {
        const streamName = aStreamName();

        await store.appendToStream(streamName, [anEvent(0)], { expectedRevision: 'no_stream' });

        expect((await store.readStream(streamName))[0]?.metadata).toEqual({});
      });
    });

    describe('expected revision', () => {
      async function aStreamWithEvents(count: number): Promise<string> {
        const streamName = aStreamName();
        await store.appendToStream(streamName, events(count), { expectedRevision: 'no_stream' });
        return streamName;
      }

      it('when the expected revision is the current one, then the append succeeds and returns the next one', async () => {
        const streamName = await aStreamWithEvents(2);

        const appended = await store.appendToStream(streamName, events(2, 2), { expectedRevision: 1 });

        expect(appended.nextExpectedRevision).toBe(3);
        const next = await store.appendToStream(streamName, [anEvent(4)], { expectedRevision: appended.nextExpectedRevision });
        expect(next.nextExpectedRevision).toBe(4);
        expect(sequencesOf(await store.readStream(streamName))).toEqual([0, 1, 2, 3, 4]);
      });

      it('when the expected revision is stale, then the append fails with the actual revision', async () => {
        const streamName = await aStreamWithEvents(3);

        const conflict = await conflictOf(store.appendToStream(streamName, [anEvent(9)], { expectedRevision: 0 }));

        expect(conflict).toMatchObject({ streamName, expected: 0, actual: 2 });
      });

      it('when a revision is expected of a stream that does not exist, then the append fails with no_stream', async () => {
        const streamName = aStreamName();

        const conflict = await conflictOf(store.appendToStream(streamName, [anEvent(0)], { expectedRevision: 0 }));

        expect(conflict).toMatchObject({ streamName, expected: 0, actual: 'no_stream' });
        expect(await store.readStream(streamName)).toEqual([]);
      });

      it('when no_stream is expected and the stream does not exist, then the append succeeds', async () => {
        const appended = await store.appendToStream(aStreamName(), events(2), { expectedRevision: 'no_stream' });

        expect(appended.nextExpectedRevision).toBe(1);
      });

      it('when no_stream is expected and the stream exists, then the append fails', async () => {
        const streamName = await aStreamWithEvents(1);

        const conflict = await conflictOf(store.appendToStream(streamName, [anEvent(1)], { expectedRevision: 'no_stream' }));

        expect(conflict).toMatchObject({ streamName, expected: 'no_stream', actual: 0 });
      });

      it('when stream_exists is expected and the stream exists, then the append succeeds', async () => {
        const streamName = await aStreamWithEvents(1);

        const appended = await store.appendToStream(streamName, [anEvent(1)], { expectedRevision: 'stream_exists' });

        expect(appended.nextExpectedRevision).toBe(1);
      });

      it('when stream_exists is expected and the stream does not exist, then the append fails', async () => {
        const streamName = aStreamName();

        const conflict = await conflictOf(store.appendToStream(streamName, [anEvent(0)], { expectedRevision: 'stream_exists' }));

        expect(conflict).toMatchObject({ streamName, expected: 'stream_exists', actual: 'no_stream' });
        expect(await store.readStream(streamName)).toEqual([]);
      });

      it('when any is expected, then appends succeed whether or not the stream exists', async () => {
        const streamName = aStreamName();

        const created = await store.appendToStream(streamName, [anEvent(0)], { expectedRevision: 'any' });
        const extended = await store.appendToStream(streamName, [anEvent(1)], { expectedRevision: 'any' });

        expect([created.nextExpectedRevision, extended.nextExpectedRevision]).toEqual([0, 1]);
      });
    });

    describe('atomic appends', () => {
      it('when an append of several events expects a stale revision, then none of its events is written', async () => {
        const streamName = aStreamName();
        await store.appendToStream(streamName, events(2), { expectedRevision: 'no_stream' });
        const headBefore = await store.headPosition();

        await conflictOf(store.appendToStream(streamName, events(2, 2), { expectedRevision: 0 }));

        expect(sequencesOf(await store.readStream(streamName))).toEqual([0, 1]);
        expect(await store.headPosition()).toBe(headBefore);
      });

      it('when an append is retried with the same event ids and expectation, then its events are stored once', async () => {
        const streamName = aStreamName();
        const batch = [anEvent(0, { id: randomUUID() }), anEvent(1, { id: randomUUID() })];

        const first = await store.appendToStream(streamName, batch, { expectedRevision: 'no_stream' });
        const retried = await store.appendToStream(streamName, batch, { expectedRevision: 'no_stream' });

        expect(retried.nextExpectedRevision).toBe(first.nextExpectedRevision);
        expect(sequencesOf(await store.readStream(streamName))).toEqual([0, 1]);
      });
    });

    describe('appends to several streams at once', () => {
      it('when several streams are appended in one call, then each holds its events and the results follow the order given', async () => {
        const [first, second] = [aStreamName(), aStreamName()];
        await store.appendToStream(second, events(1), { expectedRevision: 'no_stream' });

        const results = await store.appendToStreams([
          { streamName: first, events: events(2), expectedRevision: 'no_stream' },
          { streamName: second, events: events(2, 1), expectedRevision: 0 },
          { streamName: first, events: events(1, 2), expectedRevision: 1 },
        ]);

        expect(results.map((result) => result.nextExpectedRevision)).toEqual([1, 2, 2]);
        expect(results[0]!.position < results[1]!.position && results[1]!.position < results[2]!.position).toBe(true);
        expect(sequencesOf(await store.readStream(first))).toEqual([0, 1, 2]);
        expect(sequencesOf(await store.readStream(second))).toEqual([0, 1, 2]);
        expect((await store.readStream(first)).at(-1)!.position).toBe(results[2]!.position);
      });

      it(`when one stream's expected revision is stale, then the call fails naming it and ${
        multiStreamRefusal === 'writes_nothing' ? 'no stream is written' : 'only the streams before it are written'
      }`, async () => {
        const [before, stale, after] = [aStreamName(), aStreamName(), aStreamName()];
        await store.appendToStream(stale, events(2), { expectedRevision: 'no_stream' });

        const conflict = await conflictOf(
          store.appendToStreams([
            { streamName: before, events: events(2), expectedRevision: 'no_stream' },
            { streamName: stale, events: events(1, 2), expectedRevision: 0 },
            { streamName: after, events: events(1), expectedRevision: 'no_stream' },
          ]),
        );

        expect(conflict).toMatchObject({ streamName: stale, expected: 0, actual: 1 });
        expect(sequencesOf(await store.readStream(before))).toEqual(multiStreamRefusal === 'writes_nothing' ? [] : [0, 1]);
        expect(sequencesOf(await store.readStream(stale))).toEqual([0, 1]);
        expect(await store.readStream(after)).toEqual([]);
      });

      it('when a multi-stream append is retried with the same event ids and expectations, then each stream stores its events once', async () => {
        const [first, second] = [aStreamName(), aStreamName()];
        const appends = [
          { streamName: first, events: [anEvent(0, { id: randomUUID() })], expectedRevision: 'no_stream' as const },
          {
            streamName: second,
            events: [anEvent(0, { id: randomUUID() }), anEvent(1, { id: randomUUID() })],
            expectedRevision: 'no_stream' as const,
          },
        ];

        const appended = await store.appendToStreams(appends);
        const retried = await store.appendToStreams(appends);

        expect(retried).toEqual(appended);
        expect(sequencesOf(await store.readStream(first))).toEqual([0]);
        expect(sequencesOf(await store.readStream(second))).toEqual([0, 1]);
      });

      it('when one of the streams is given no events, then the call is refused and nothing is written', async () => {
        const streamName = aStreamName();

        await expect(
          store.appendToStreams([
            { streamName, events: events(1), expectedRevision: 'no_stream' },
            { streamName: aStreamName(), events: [], expectedRevision: 'any' },
          ]),
        ).rejects.toThrow(RangeError);

        expect(await store.readStream(streamName)).toEqual([]);
      });
    });

    describe('reading the global log', () => {
      it('when reading after a position, then the event at it is left out and later events of all streams follow in append order', async () => {
        const first = aStreamName();
        const second = aStreamName();
        const start = await checkpointBeforeTest();
        const firstAppend = await store.appendToStream(first, [anEvent(0)], { expectedRevision: 'no_stream' });
        await store.appendToStream(second, [anEvent(1)], { expectedRevision: 'no_stream' });
        await store.appendToStream(first, [anEvent(2)], { expectedRevision: 0 });

        const fromStart = (await store.readAll({ after: start })).filter((event) => [first, second].includes(event.streamName));
        const afterFirst = (await store.readAll({ after: firstAppend.position })).filter((event) =>
          [first, second].includes(event.streamName),
        );

        expect(sequencesOf(fromStart)).toEqual([0, 1, 2]);
        expect(fromStart.map((event) => event.streamName)).toEqual([first, second, first]);
        expectStrictlyIncreasingPositions(fromStart);
        expect(sequencesOf(afterFirst)).toEqual([1, 2]);
      });

      it('when reading page by page with maxCount, then pages are no larger and join into the log in order', async () => {
        const streams = [aStreamName(), aStreamName()];
        const start = await checkpointBeforeTest();
        let last = 0n;
        for (let sequence = 0; sequence < 7; sequence++) {
          const streamName = streams[sequence % 2]!;
          const appended = await store.appendToStream(streamName, [anEvent(sequence)], { expectedRevision: 'any' });
          last = appended.position;
        }

        const read: RecordedEvent[] = [];
        let after = start;
        for (;;) {
          const page = await store.readAll({ after, maxCount: 2 });
          expect(page.length).toBeLessThanOrEqual(2);
          const lastOfPage = page.at(-1);
          if (!lastOfPage) break;
          read.push(...page);
          after = lastOfPage.position;
          if (after >= last) break;
        }

        const ours = read.filter((event) => streams.includes(event.streamName));
        expect(sequencesOf(ours)).toEqual([0, 1, 2, 3, 4, 5, 6]);
        expectStrictlyIncreasingPositions(read);
        expect(await store.readAll({ after: last })).toEqual([]);
      });
    });

    describe('head position', () => {
      it('when the log is empty, then the head position is null', async (context) => {
        if ((await store.readAll({ maxCount: 1 })).length > 0) {
          context.skip('the store under test already holds events (a shared server)');
        }

        expect(await store.headPosition()).toBeNull();
      });

      it('when events were appended, then the head position is that of the last one', async () => {
        await store.appendToStream(aStreamName(), [anEvent(0)], { expectedRevision: 'no_stream' });
        const appended = await store.appendToStream(aStreamName(), events(2), { expectedRevision: 'no_stream' });

        expect(await store.headPosition()).toBe(appended.position);
      });
    });

    describe('subscription to the global log', () => {
      it('when subscribing from a checkpoint, then it catches up after it and goes on with live appends, each event once and in order', async () => {
        const streamName = aStreamName();
        const checkpoint = await store.appendToStream(streamName, [anEvent(0)], { expectedRevision: 'no_stream' });
        await store.appendToStream(streamName, events(4, 1), { expectedRevision: 0 });
        const consumer = aRecordingConsumer();

        subscriptions.push(store.subscribeToAll({ after: checkpoint.position, maxBatchSize: 3, onBatch: consumer.onBatch }));
        await eventually('the 4 events after the checkpoint', () => consumer.inStream(streamName).length === 4);
        await store.appendToStream(streamName, events(3, 5), { expectedRevision: 4 });
        await store.appendToStream(streamName, [anEvent(8)], { expectedRevision: 7 });
        await eventually('the 4 live appends', () => consumer.inStream(streamName).length === 8);
        await sleep(QUIET_WINDOW_MS);

        expect(sequencesOf(consumer.inStream(streamName))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        expectStrictlyIncreasingPositions(consumer.delivered);
        expect(consumer.batches.every((batch) => batch.length >= 1 && batch.length <= 3)).toBe(true);
      });

      it('when onBatch is slow, then batches are still delivered one at a time', async () => {
        const streamName = aStreamName();
        const start = await checkpointBeforeTest();
        const consumer = aRecordingConsumer({ onBatchDelayMs: 20 });

        subscriptions.push(store.subscribeToAll({ after: start, maxBatchSize: 2, onBatch: consumer.onBatch }));
        for (let sequence = 0; sequence < 6; sequence++) {
          await store.appendToStream(streamName, [anEvent(sequence)], { expectedRevision: 'any' });
        }
        await eventually('the 6 appended events', () => consumer.inStream(streamName).length === 6);

        expect(consumer.maxInFlight).toBe(1);
        expect(sequencesOf(consumer.inStream(streamName))).toEqual([0, 1, 2, 3, 4, 5]);
      });

      it('when closed, then it waits for the batch in flight and delivers nothing more', async () => {
        const streamName = aStreamName();
        const start = await checkpointBeforeTest();
        const consumer = aRecordingConsumer({ onBatchDelayMs: 100 });
        const subscription = store.subscribeToAll({ after: start, onBatch: consumer.onBatch });
        subscriptions.push(subscription);
        await store.appendToStream(streamName, [anEvent(0)], { expectedRevision: 'no_stream' });
        await eventually('the first batch to start', () => consumer.started > 0);

        await subscription.close();
        expect(consumer.inStream(streamName)).toHaveLength(1);
        await store.appendToStream(streamName, [anEvent(1)], { expectedRevision: 0 });
        await sleep(QUIET_WINDOW_MS);

        expect(sequencesOf(consumer.inStream(streamName))).toEqual([0]);
      });

      it('when onBatch rejects, then the error goes to onError and delivery stops', async () => {
        const streamName = aStreamName();
        const start = await checkpointBeforeTest();
        const failure = new Error('projection failed');
        const errors: unknown[] = [];
        let calls = 0;
        subscriptions.push(
          store.subscribeToAll({
            after: start,
            onBatch: async () => {
              calls += 1;
              throw failure;
            },
            onError: (error) => errors.push(error),
          }),
        );

        await store.appendToStream(streamName, [anEvent(0)], { expectedRevision: 'no_stream' });
        await eventually('the error to reach onError', () => errors.length > 0);
        await store.appendToStream(streamName, [anEvent(1)], { expectedRevision: 0 });
        await sleep(QUIET_WINDOW_MS);

        expect(errors).toEqual([failure]);
        expect(calls).toBe(1);
      });
    });

    describe('liveness', () => {
      it('when the store is open, then ping answers true', async () => {
        expect(await store.ping()).toBe(true);
      });
    });
  });
}
