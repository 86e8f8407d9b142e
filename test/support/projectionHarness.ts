import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { checkpointNameOf, type Projection } from '../../src/projectionEngine/projection.js';
import { applyEvents, projectHalvingOnFailure, UnitOfWork } from '../../src/projectionEngine/unitOfWork.js';
import type { EventStore, RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import type { Doc, ReadStore, WriteOp } from '../../src/readStore/readStore.js';
import { appendEvents, type StreamEvent } from './catalogueEvents.js';

/** Every document of every collection the projections own, ordered by id: what "the read model" is. */
export async function readModelOf(readStore: ReadStore, projections: readonly Projection[]): Promise<Record<string, Doc[]>> {
  const model: Record<string, Doc[]> = {};
  for (const collection of projections.flatMap((projection) => projection.collections)) {
    model[collection] = (await readStore.find(collection, { sort: [['_id', 1]] })).items;
  }
  return model;
}

/** The events as the store records them (positions, revisions), from a throwaway in-memory log. */
export async function recorded(events: readonly StreamEvent[]): Promise<RecordedEvent[]> {
  const eventStore = createSqliteEventStore({ file: ':memory:' });
  try {
    await appendEvents(eventStore, events);
    return await readWholeLog(eventStore);
  } finally {
    await eventStore.close();
  }
}

/**
 * An event's fields as plain data: events of a read-ahead page are class instances whose fields are getters,
 * which toEqual would not compare with those of a readAll.
 */
export const recordedFields = ({ id, type, data, metadata, streamName, revision, position, recordedAt }: RecordedEvent) => ({
  id,
  type,
  data,
  metadata,
  streamName,
  revision,
  position,
  recordedAt,
});

export async function readWholeLog(eventStore: EventStore): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (;;) {
    const page = await eventStore.readAll({ ...(all.length > 0 ? { after: all.at(-1)!.position } : {}), maxCount: 10_000 });
    if (page.length === 0) return all;
    all.push(...page);
  }
}

/** Projects the events in batches as the runtime does (one unit of work and one write per batch, halved on failure). */
export async function projectInBatches(
  readStore: ReadStore,
  projection: Projection,
  events: readonly RecordedEvent[],
  batchSize: number,
): Promise<void> {
  for (const [collection, indexes] of Object.entries(projection.indexes)) await readStore.ensureIndexes(collection, indexes);
  const handled = new Set(projection.handles);
  for (let start = 0; start < events.length; start += batchSize) {
    await projectHalvingOnFailure(events.slice(start, start + batchSize), async (batch) => {
      const unitOfWork = new UnitOfWork(readStore);
      await applyEvents(projection, handled, batch, unitOfWork);
      await readStore.write(unitOfWork.ops(), [{ name: checkpointNameOf(projection), position: batch.at(-1)!.position }]);
    });
  }
}

/** The real store, with every write it receives recorded (the writes still happen). */
export function recordingWrites(readStore: ReadStore): { readStore: ReadStore; writes: Array<{ ops: WriteOp[]; checkpoints: string[] }> } {
  const writes: Array<{ ops: WriteOp[]; checkpoints: string[] }> = [];
  return {
    writes,
    readStore: {
      ...readStore,
      async write(ops, checkpoints) {
        writes.push({ ops, checkpoints: (checkpoints ?? []).map((checkpoint) => `${checkpoint.name}@${checkpoint.position}`) });
        return readStore.write(ops, checkpoints);
      },
    },
  };
}

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A pino logger whose lines are kept for assertions instead of printed. */
export function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as LogLine);
      callback();
    },
  });
  return { logger: pino({ level: 'debug' }, destination), lines };
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
