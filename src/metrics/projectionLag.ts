import type { EventStore, RecordedEvent } from '../eventStore/eventStore.js';
import { checkpointNameOf, type Projection } from '../projectionEngine/projection.js';
import type { ReadStore } from '../readStore/readStore.js';

/** How far one projection trails the global log. */
export interface ProjectionLag {
  name: string;
  /** The position its stored checkpoint names; null before it has written one. */
  checkpoint: bigint | null;
  /** Events in the log after the checkpoint (counted up to `countUpTo` where positions do not count events). */
  eventsBehind: number;
  /** Seconds since the oldest event it has not applied was recorded; 0 when it has applied the whole log. */
  secondsBehind: number;
}

export interface LagSnapshot {
  /** Position of the last event in the log; null when the log is empty. */
  head: bigint | null;
  projections: ProjectionLag[];
}

export interface ProjectionLagProbe {
  /** The lag as measured at most `maxAgeMs` ago; callers at the same moment share one measurement. */
  current(): Promise<LagSnapshot>;
}

export interface ProjectionLagOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  projections: ReadonlyArray<Pick<Projection, 'name' | 'version'>>;
  /**
   * True where log positions number the events one by one (the embedded SQLite store): the events behind are
   * the difference of two positions. Elsewhere (EventStoreDB's positions are byte offsets) they are counted by
   * reading them, up to `countUpTo`.
   */
  positionsCountEvents: boolean;
  countUpTo: number;
  /** How long a measurement is handed out again: readiness probes, scrapes and the status share it. */
  maxAgeMs?: number;
  now?: () => number;
}

const DEFAULT_MAX_AGE_MS = 1_000;

/**
 * The projections' lag from what every process can read: the log's head in the event store and the
 * checkpoints in the read store, which a projector writes with every batch. So an API replica without the
 * projector role measures the same lag as the projector itself, and a projector that died shows as a
 * checkpoint that no longer moves while the head does.
 */
export function createProjectionLagProbe(options: ProjectionLagOptions): ProjectionLagProbe {
  const { eventStore, readStore, projections, positionsCountEvents, countUpTo } = options;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const now = options.now ?? Date.now;
  let latest: { takenAt: number; snapshot: Promise<LagSnapshot> } | null = null;

  /** The events after `checkpoint`: how many, and the first of them (the oldest not applied). */
  const behind = async (head: bigint, checkpoint: bigint | null): Promise<{ events: number; oldest: RecordedEvent | undefined }> => {
    const after = checkpoint === null ? {} : { after: checkpoint };
    if (positionsCountEvents) {
      const [oldest] = await eventStore.readAll({ ...after, maxCount: 1 });
      return { events: Number(head - (checkpoint ?? 0n)), oldest };
    }
    const events = await eventStore.readAll({ ...after, maxCount: countUpTo });
    return { events: events.length, oldest: events[0] };
  };

  const measure = async (): Promise<LagSnapshot> => {
    const [head, checkpoints] = await Promise.all([
      eventStore.headPosition(),
      Promise.all(projections.map((projection) => readStore.getCheckpoint(checkpointNameOf(projection)))),
    ]);
    const measuredAt = now();
    // Projections in step share a checkpoint: the log after it is read once.
    const reads = new Map<bigint | null, ReturnType<typeof behind>>();
    const lags = await Promise.all(
      projections.map(async (projection, index): Promise<ProjectionLag> => {
        const checkpoint = checkpoints[index]!;
        if (head === null || (checkpoint !== null && checkpoint >= head)) {
          return { name: projection.name, checkpoint, eventsBehind: 0, secondsBehind: 0 };
        }
        let read = reads.get(checkpoint);
        if (!read) reads.set(checkpoint, (read = behind(head, checkpoint)));
        const { events, oldest } = await read;
        const secondsBehind = oldest ? Math.max(0, (measuredAt - Date.parse(oldest.recordedAt)) / 1000) : 0;
        return { name: projection.name, checkpoint, eventsBehind: events, secondsBehind };
      }),
    );
    return { head, projections: lags };
  };

  return {
    current() {
      const at = now();
      if (latest && at - latest.takenAt < maxAgeMs) return latest.snapshot;
      const taken = { takenAt: at, snapshot: measure() };
      latest = taken;
      // A failed measurement is not handed out again: the next caller measures afresh.
      taken.snapshot.catch(() => {
        if (latest === taken) latest = null;
      });
      return taken.snapshot;
    },
  };
}
