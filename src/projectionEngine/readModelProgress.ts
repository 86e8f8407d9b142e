import type { Logger } from 'pino';
import type { ReadStore } from '../readStore/readStore.js';
import type { CheckpointNotices } from './checkpointNotices.js';
import type { Projector } from './runtime.js';

/** How far the read models have projected the log, as a process serving reads can learn it. */
export interface ReadModelProgress {
  /**
   * True once every read model has applied and checkpointed the log up to `position`; false when
   * `timeoutMs` passes first.
   */
  reached(position: bigint, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A process that runs the projector asks it: it settles its waiters as each batch commits, and reads the
 * stored checkpoints only of the projections another process holds the lease of (Projector.waitForPosition).
 */
export function projectorProgress(projector: Projector): ReadModelProgress {
  return {
    // waitForPosition rejects only when the time is up.
    reached: (position, timeoutMs) =>
      projector.waitForPosition(position, timeoutMs).then(
        () => true,
        () => false,
      ),
    close: async () => undefined,
  };
}

/** Without notices, how often the stored checkpoints are read while a request waits. */
export const CHECKPOINT_POLL_MS = 25;
/** With notices, the stored checkpoints are read this often too while a request waits, for a notice lost on the way. */
export const CHECKPOINT_POLL_WITH_NOTICES_MS = 250;

interface Waiter {
  position: bigint;
  settle(reached: boolean): void;
}

export interface StoredCheckpointProgressOptions {
  readStore: ReadStore;
  /** The checkpoints of every projection (checkpointNameOf). */
  checkpointNames: readonly string[];
  /** Word of each committed batch (Redis); null: the poll alone finds the checkpoints. */
  notices: CheckpointNotices | null;
  logger: Logger;
  pollMs?: number;
}

/**
 * A process that runs no projector reads the checkpoints the projector processes store: at once when a
 * request starts waiting, again on each notice of a committed batch, and on a modest poll (25 ms without
 * notices, 250 ms with) while anyone waits; never when no one does. The reads are shared: however many
 * requests wait, one read of the checkpoints is in flight at a time.
 */
export function storedCheckpointProgress(options: StoredCheckpointProgressOptions): ReadModelProgress {
  const { readStore, checkpointNames, notices, logger } = options;
  const pollMs = options.pollMs ?? (notices ? CHECKPOINT_POLL_WITH_NOTICES_MS : CHECKPOINT_POLL_MS);
  // Checkpoints only move forward (a replay swaps in a generation at least as far along), so what was
  // read or heard last is kept by its maximum: a read that started before a notice cannot undo it.
  const known = new Map<string, bigint>();
  const waiters = new Set<Waiter>();
  let reading = false;
  let readAgain = false;
  let poll: NodeJS.Timeout | null = null;
  let closed = false;

  const learn = (name: string, position: bigint | null) => {
    if (position === null) return;
    const before = known.get(name);
    if (before === undefined || position > before) known.set(name, position);
  };
  const covers = (position: bigint) => checkpointNames.every((name) => (known.get(name) ?? 0n) >= position);
  const settleReached = () => {
    for (const waiter of waiters) if (covers(waiter.position)) waiter.settle(true);
  };

  const readCheckpoints = async (): Promise<void> => {
    if (reading) {
      readAgain = true;
      return;
    }
    reading = true;
    try {
      do {
        readAgain = false;
        const positions = await Promise.all(checkpointNames.map((name) => readStore.getCheckpoint(name)));
        checkpointNames.forEach((name, index) => learn(name, positions[index]!));
        settleReached();
      } while (readAgain && waiters.size > 0);
    } catch (error) {
      logger.warn(
        { err: error },
        'could not read the projection checkpoints; a request waiting for a log position reads them again on the next poll',
      );
    } finally {
      reading = false;
    }
  };

  const schedulePoll = () => {
    if (poll || closed || waiters.size === 0) return;
    poll = setTimeout(() => {
      poll = null;
      void readCheckpoints().then(schedulePoll);
    }, pollMs);
  };

  notices?.listen((checkpoints) => {
    for (const [name, position] of checkpoints) learn(name, position);
    settleReached();
  });

  return {
    reached(position, timeoutMs) {
      if (covers(position)) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const waiter: Waiter = {
          position,
          settle: (reached) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(reached);
          },
        };
        const timer = setTimeout(() => waiter.settle(covers(position)), timeoutMs);
        waiters.add(waiter);
        void readCheckpoints();
        schedulePoll();
      });
    },
    async close() {
      closed = true;
      if (poll) clearTimeout(poll);
      poll = null;
      for (const waiter of waiters) waiter.settle(false);
    },
  };
}
