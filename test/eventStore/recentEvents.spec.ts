import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/eventStore/eventStore.js';
import { RecentEvents } from '../../src/eventStore/recentEvents.js';

/** A log of `length` events at positions 1..length, and the reads made of it. */
function aLog(length: number) {
  const log: RecordedEvent[] = Array.from({ length }, (_, index) => ({
    id: `event-${index + 1}`,
    type: 'ThingHappened',
    data: { sequence: index + 1 },
    metadata: {},
    streamName: 'thing-1',
    revision: index,
    position: BigInt(index + 1),
    recordedAt: '2026-11-27T00:00:00.000Z',
  }));
  const reads: Array<[after: bigint, maxCount: number]> = [];
  return {
    log,
    reads,
    readAfter(after: bigint, maxCount: number): RecordedEvent[] {
      reads.push([after, maxCount]);
      return log.filter((event) => event.position > after).slice(0, maxCount);
    },
  };
}

const positionsOf = (events: RecordedEvent[]) => events.map((event) => Number(event.position));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RecentEvents', () => {
  it('when subscriptions read the same stretch of the log one after the other, then each page is read from the store once', async () => {
    const { readAfter, reads } = aLog(100);
    const recent = new RecentEvents(readAfter, 50, 1_000);
    const [first, second] = [recent.open(0n), recent.open(0n)];

    for (let page = 0; page < 4; page++) {
      for (const cursor of [first, second]) {
        const events = await recent.read(cursor, 10);
        expect(positionsOf(events)).toEqual(range(page * 10 + 1, page * 10 + 10));
        recent.move(cursor, events.at(-1)!.position);
      }
    }

    expect(reads).toEqual([0n, 10n, 20n, 30n].map((after) => [after, 10]));
  });

  it('when a subscription reads from a position inside what is kept, then it gets the events after it, the rest read from the store', async () => {
    const { readAfter, reads } = aLog(100);
    const recent = new RecentEvents(readAfter, 50, 1_000);
    await recent.read(recent.open(0n), 20);

    const events = await recent.read(recent.open(13n), 10);

    expect(positionsOf(events)).toEqual(range(14, 23));
    expect(reads).toEqual([
      [0n, 20],
      [20n, 3],
    ]);
  });

  it('when a subscription is behind what is kept, then it reads on its own and what is kept stays', async () => {
    const { readAfter, reads } = aLog(100);
    const recent = new RecentEvents(readAfter, 20, 1_000);
    const ahead = recent.open(0n);
    for (let page = 0; page < 5; page++) recent.move(ahead, (await recent.read(ahead, 10)).at(-1)!.position);

    expect(positionsOf(await recent.read(recent.open(5n), 10))).toEqual(range(6, 15));
    expect(positionsOf(await recent.read(recent.open(40n), 5))).toEqual(range(41, 45));
    expect(reads.slice(-2)).toEqual([
      [40n, 10],
      [5n, 10],
    ]);
  });

  it('when a subscription ahead of what is kept reads while another still reads within it, then what is kept stays', async () => {
    const { readAfter, reads } = aLog(100);
    const recent = new RecentEvents(readAfter, 50, 1_000);
    const [first, second] = [recent.open(0n), recent.open(0n)];
    recent.move(first, (await recent.read(first, 10)).at(-1)!.position);

    expect(positionsOf(await recent.read(recent.open(90n), 10))).toEqual(range(91, 100));
    expect(positionsOf(await recent.read(second, 10))).toEqual(range(1, 10));
    expect(reads).toEqual([
      [0n, 10],
      [90n, 10],
    ]);
  });

  it('when a subscription would run more than the capacity ahead of another, then it waits until that one moves on', async () => {
    const { readAfter } = aLog(100);
    const recent = new RecentEvents(readAfter, 30, 10_000);
    const [fast, slow] = [recent.open(0n), recent.open(0n)];
    for (let page = 0; page < 3; page++) recent.move(fast, (await recent.read(fast, 10)).at(-1)!.position);

    let fourthPage: RecordedEvent[] | undefined;
    const reading = recent.read(fast, 10).then((events) => (fourthPage = events));
    await sleep(50);
    expect(fourthPage).toBeUndefined();
    recent.move(slow, (await recent.read(slow, 10)).at(-1)!.position);
    await reading;

    expect(positionsOf(fourthPage!)).toEqual(range(31, 40));
    expect(positionsOf(await recent.read(slow, 10))).toEqual(range(11, 20));
  });

  it('when the subscription it would wait for has not moved for the stall time, then it reads on without it', async () => {
    const { readAfter } = aLog(100);
    const recent = new RecentEvents(readAfter, 30, 100);
    const [fast, stalled] = [recent.open(0n), recent.open(0n)];
    for (let page = 0; page < 3; page++) recent.move(fast, (await recent.read(fast, 10)).at(-1)!.position);

    const started = performance.now();
    const fourthPage = await recent.read(fast, 10);

    expect(positionsOf(fourthPage)).toEqual(range(31, 40));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(positionsOf(await recent.read(stalled, 10))).toEqual(range(1, 10));
  });

  it('when a subscription it waits for is closed, then it reads on at once', async () => {
    const { readAfter } = aLog(100);
    const recent = new RecentEvents(readAfter, 30, 10_000);
    const [fast, closing] = [recent.open(0n), recent.open(0n)];
    for (let page = 0; page < 3; page++) recent.move(fast, (await recent.read(fast, 10)).at(-1)!.position);

    const reading = recent.read(fast, 10);
    await sleep(20);
    recent.close(closing);

    expect(positionsOf(await reading)).toEqual(range(31, 40));
  });

  it('when subscriptions read pages of different sizes at different paces, then each gets the log in order, every event once', async () => {
    const { log, readAfter } = aLog(1_000);
    const recent = new RecentEvents(readAfter, 200, 10_000);
    const consume = async (pageSize: number, delayEvery: number) => {
      const cursor = recent.open(0n);
      const delivered: number[] = [];
      for (let page = 1; ; page++) {
        const events = await recent.read(cursor, pageSize);
        if (events.length === 0) break;
        delivered.push(...positionsOf(events));
        if (page % delayEvery === 0) await sleep(1);
        recent.move(cursor, events.at(-1)!.position);
      }
      recent.close(cursor);
      return delivered;
    };

    const delivered = await Promise.all([consume(7, 1), consume(50, 3), consume(33, 7)]);

    for (const positions of delivered) expect(positions).toEqual(positionsOf(log));
  });
});
