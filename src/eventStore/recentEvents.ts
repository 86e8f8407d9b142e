import type { RecordedEvent } from './eventStore.js';

/** Where a subscription reads: after `after`, which it moves on as it delivers. */
export interface LogCursor {
  after: bigint;
  /** performance.now() when it last moved (or was opened). */
  movedAt: number;
}

/**
 * Events the subscriptions of one store have read and not all delivered yet, shared by them: a projector runs a
 * subscription per projection over the same stretch of the log, and each read and parsed every event itself
 * (most of a projector's work catching up after a bulk import). The events kept are consecutive in the log:
 * (after, position of the last one].
 *
 * The subscriptions that project little would run far ahead of those that project much (they share one
 * thread), so a subscription that would need more than `capacity` events kept waits for the others to
 * catch up first; that costs nothing in total, since the same work is done on the same thread. A
 * subscription that has not moved for `stallMs` (its consumer waits on something else) is not waited for,
 * and reads on its own once it falls behind what is kept.
 */
export class RecentEvents {
  private events: RecordedEvent[] = [];
  /** Index of the first event kept; those before it are let go (dropped from the array in bulk). */
  private first = 0;
  /** Position before the first event kept; the log holds nothing between it and that event. */
  private after = 0n;
  private readonly cursors = new Set<LogCursor>();
  private waiting: Array<() => void> = [];

  constructor(
    private readonly readAfter: (after: bigint, maxCount: number) => RecordedEvent[],
    private readonly capacity: number,
    private readonly stallMs: number,
  ) {}

  open(after: bigint): LogCursor {
    const cursor = { after, movedAt: performance.now() };
    this.cursors.add(cursor);
    return cursor;
  }

  close(cursor: LogCursor): void {
    this.cursors.delete(cursor);
    this.wakeWaiting();
  }

  /** The subscription delivered up to `position`. */
  move(cursor: LogCursor, position: bigint): void {
    cursor.after = position;
    cursor.movedAt = performance.now();
    this.wakeWaiting();
  }

  /** Up to `maxCount` events after the cursor, in log order, as readAfter would answer. */
  async read(cursor: LogCursor, maxCount: number): Promise<RecordedEvent[]> {
    for (;;) {
      const { after } = cursor;
      const kept = this.events.length - this.first;
      const end = kept > 0 ? this.events.at(-1)!.position : this.after;
      if (kept === 0 || after > end) {
        // Nothing kept, or a subscription ahead of what is kept: what is kept starts anew from its read,
        // unless others still read what is kept (one at the head polls while the others catch up).
        const page = this.readAfter(after, maxCount);
        if (kept > 0 && this.readByOthers(cursor)) return page;
        this.events = page.slice();
        this.first = 0;
        this.after = after;
        return page;
      }
      if (after < this.after) return this.readAfter(after, maxCount);
      const start = this.indexAfter(after);
      const missing = maxCount - (this.events.length - start);
      if (missing > 0 && this.mustWait(cursor, kept + missing, maxCount)) {
        await new Promise<void>((resolve) => {
          this.waiting.push(resolve);
          setTimeout(resolve, this.stallMs).unref();
        });
        continue;
      }
      if (missing > 0) for (const event of this.readAfter(end, missing)) this.events.push(event);
      const page = this.events.slice(start, start + maxCount);
      this.letGo();
      return page;
    }
  }

  /**
   * Whether keeping `count` events would let go of some that another subscription, not stalled, still needs.
   * Only a subscription near the end of what is kept needs more, so with room for two pages it never waits
   * for one that waits itself.
   */
  private mustWait(cursor: LogCursor, count: number, maxCount: number): boolean {
    const excess = count - this.capacity;
    if (excess <= 0 || 2 * maxCount > this.capacity) return false;
    const lastLetGo = this.events[Math.min(this.first + excess, this.events.length) - 1]!.position;
    const now = performance.now();
    for (const other of this.cursors) {
      if (other !== cursor && other.after < lastLetGo && now - other.movedAt < this.stallMs) return true;
    }
    return false;
  }

  /** Whether another subscription, not stalled, reads within what is kept. */
  private readByOthers(cursor: LogCursor): boolean {
    const now = performance.now();
    for (const other of this.cursors) {
      if (other !== cursor && other.after >= this.after && now - other.movedAt < this.stallMs) return true;
    }
    return false;
  }

  /** Lets go of the events no subscription that is not stalled still needs, and beyond the capacity of any. */
  private letGo(): void {
    const now = performance.now();
    let needed: bigint | undefined;
    for (const cursor of this.cursors) {
      if (now - cursor.movedAt < this.stallMs && (needed === undefined || cursor.after < needed)) needed = cursor.after;
    }
    let first = needed === undefined ? this.first : Math.max(this.first, this.indexAfter(needed));
    first = Math.max(first, this.events.length - this.capacity);
    if (first <= this.first) return;
    this.first = first;
    this.after = this.events[first - 1]!.position;
    // Dropped in bulk, so that letting events go costs no copy per read.
    if (this.first < this.capacity) return;
    this.events = this.events.slice(this.first);
    this.first = 0;
  }

  /** The index of the first event kept whose position is past `after` (the events kept are in position order). */
  private indexAfter(after: bigint): number {
    let low = this.first;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.events[middle]!.position <= after) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private wakeWaiting(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }
}
