import type { NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import { ValidationFailed } from '../domain/errors.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { forwardEventStore } from '../metrics/forwardingStores.js';
import type { ReadModelProgress } from '../projectionEngine/readModelProgress.js';
import { ApiErrorWithHeaders } from './httpErrors.js';

/*
 * Read your own writes. Every admin write answers the log position of its last event (`meta.position` and
 * X-Log-Position); a GET that sends it back as X-Consistent-After is answered only once every read model has
 * projected it, waiting up to CONSISTENCY_WAIT_MS, else 503 PROJECTION_BEHIND. Routes do not declare which
 * read models they read, so a request waits for all of them: never too early, and the projections move
 * together, so rarely much later.
 */

export const LOG_POSITION_HEADER = 'X-Log-Position';
export const CONSISTENT_AFTER_HEADER = 'X-Consistent-After';
const CONSISTENT_AFTER_FIELD = `header.${CONSISTENT_AFTER_HEADER}`;

/** The largest position either event store hands out (EventStoreDB's commit positions are unsigned 64-bit). */
const MAX_POSITION = 2n ** 64n - 1n;

export const LOG_POSITION_PROBLEM = `must be a log position: the decimal number a write answered in ${LOG_POSITION_HEADER} (meta.position)`;

/** A position as the API writes it: decimal digits in a string, since it can exceed what a JSON number holds exactly. */
export const logPositionSchema = z
  .string()
  .regex(/^(0|[1-9]\d{0,19})$/, LOG_POSITION_PROBLEM)
  .transform((digits) => BigInt(digits))
  .refine((position) => position <= MAX_POSITION, LOG_POSITION_PROBLEM);

/**
 * The event store a write's handler appends through, recording the position of the last event it appended
 * (id claims and slug reservations included, which the read models project too).
 */
export function recordAppends(eventStore: EventStore): { eventStore: EventStore; position(): Promise<string> } {
  let last: bigint | null = null;
  const recording: EventStore = {
    ...forwardEventStore(eventStore),
    async appendToStream(streamName, events, options) {
      const appended = await eventStore.appendToStream(streamName, events, options);
      if (last === null || appended.position > last) last = appended.position;
      return appended;
    },
    async appendToStreams(appends) {
      const appended = await eventStore.appendToStreams(appends);
      for (const { position } of appended) if (last === null || position > last) last = position;
      return appended;
    },
  };
  return {
    eventStore: recording,
    /**
     * The position the write answers: its last event's; for a write that appended nothing (a repeated
     * publish, an edit to the values the record already has), the head of the log read after the command,
     * which is at least the position of every event the command's decision was based on.
     */
    async position() {
      return String(last ?? (await eventStore.headPosition()) ?? 0n);
    },
  };
}

/** 503: the read models did not reach the position in time; nothing was read. */
export class ProjectionBehind extends ApiErrorWithHeaders {
  constructor(position: bigint, waitedMs: number, retryAfterSeconds: number) {
    super(
      503,
      'PROJECTION_BEHIND',
      `The read models have not yet reached log position ${position}; retry after the time given.`,
      { position: String(position), waited_ms: waitedMs, retry_after_seconds: retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}

/** A projector that is merely busy catches up within a second or so; one that is down is not helped by quicker retries. */
const RETRY_AFTER_SECONDS = 1;

export interface ConsistentReadsDeps {
  eventStore: EventStore;
  progress: ReadModelProgress;
  /** CONSISTENCY_WAIT_MS. */
  waitMs: number;
}

/**
 * Mounted behind authentication (so only a caller the API accepts can make it wait): a GET or HEAD with
 * X-Consistent-After waits until the read models have projected that position. Position 0 is before the
 * first event, so it never waits; a position past the head of the log names no write and is refused at once
 * rather than waited for. Other methods do not read the header.
 */
export function consistentReads(deps: ConsistentReadsDeps) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const header = req.get(CONSISTENT_AFTER_HEADER);
    if (header === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    const parsed = logPositionSchema.safeParse(header);
    if (!parsed.success) throw new ValidationFailed({ [CONSISTENT_AFTER_FIELD]: LOG_POSITION_PROBLEM });
    const position = parsed.data;
    if (position > 0n) {
      const head = await deps.eventStore.headPosition();
      if (head === null || position > head) {
        throw new ValidationFailed({ [CONSISTENT_AFTER_FIELD]: 'is past the end of the log: no write answered it' });
      }
      if (!(await deps.progress.reached(position, deps.waitMs))) throw new ProjectionBehind(position, deps.waitMs, RETRY_AFTER_SECONDS);
    }
    next();
  };
}
