import type { Logger } from 'pino';
import type { EventStore, RecordedEvent, Subscription } from '../eventStore/eventStore.js';
import type { ReadStore } from '../readStore/readStore.js';
import { checkpointNameOf, type Projection } from './projection.js';
import { rebuildProjections } from './rebuild.js';
import { applyEvents, projectHalvingOnFailure, UnitOfWork } from './unitOfWork.js';

export interface Projector {
  /** Resolves once every projection has applied and checkpointed the log up to `position`. */
  waitForPosition(position: bigint, timeoutMs?: number): Promise<void>;
  /** Finishes the batch in flight (and its checkpoint), then stops. */
  stop(): Promise<void>;
}

export interface ProjectorOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  projections: readonly Projection[];
  logger: Logger;
  batchSize?: number;
  /** Backoff after a failure: doubles from `initialMs` up to `maxMs`, reset by the next committed batch. */
  retry?: { initialMs?: number; maxMs?: number };
}

const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_WAIT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRY_INITIAL_MS = 250;
const DEFAULT_RETRY_MAX_MS = 30_000;

/**
 * The stored checkpoint is not the one this projector last wrote: a replay in another process promoted a
 * new generation (or another projector took over). Whatever this projector holds in memory is stale.
 */
class CheckpointMoved extends Error {
  constructor(readonly stored: bigint | null) {
    super(`The stored checkpoint moved to ${String(stored)}.`);
    this.name = 'CheckpointMoved';
  }
}

/**
 * Keeps one projection up to date: its own subscription from its own checkpoint, so a failing projection
 * holds back only itself.
 */
class ProjectionRunner {
  /** Position of the last batch this runner wrote (with its checkpoint); null = nothing yet. */
  private committed: bigint | null = null;
  private subscription: Subscription | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private consecutiveFailures = 0;
  private stopped = false;
  private readonly handled: ReadonlySet<string>;
  private readonly checkpointName: string;

  constructor(
    private readonly projection: Projection,
    private readonly options: Required<Pick<ProjectorOptions, 'eventStore' | 'readStore' | 'batchSize'>> & {
      retryInitialMs: number;
      retryMaxMs: number;
    },
    private readonly logger: Logger,
    private readonly onCommitted: () => void,
  ) {
    this.handled = new Set(projection.handles);
    this.checkpointName = checkpointNameOf(projection);
  }

  get name(): string {
    return this.projection.name;
  }

  hasReached(position: bigint): boolean {
    return this.committed !== null && this.committed >= position;
  }

  async start(): Promise<void> {
    const { readStore } = this.options;
    for (const [collection, indexes] of Object.entries(this.projection.indexes)) {
      await readStore.ensureIndexes(collection, indexes);
    }
    this.committed = await readStore.getCheckpoint(this.checkpointName);
    this.subscribe();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await this.subscription?.close();
  }

  private subscribe(): void {
    if (this.stopped) return;
    this.subscription = this.options.eventStore.subscribeToAll({
      ...(this.committed === null ? {} : { after: this.committed }),
      maxBatchSize: this.options.batchSize,
      onBatch: (events) => this.handleBatch(events),
      onError: (error) => this.subscriptionEnded(error),
    });
  }

  private async handleBatch(events: RecordedEvent[]): Promise<void> {
    let warned = false;
    await projectHalvingOnFailure(
      events,
      (part) => this.project(part),
      (error) => {
        if (error instanceof CheckpointMoved) return false;
        if (!warned) this.logger.warn({ err: error, from: String(events[0]?.position) }, 'batch failed; retrying it in halves');
        warned = true;
        return true;
      },
    );
  }

  private async project(events: readonly RecordedEvent[]): Promise<void> {
    const last = events.at(-1);
    if (!last) return;
    const { readStore } = this.options;
    const unitOfWork = new UnitOfWork(readStore);
    await applyEvents(this.projection, this.handled, events, unitOfWork);
    // Checked right before the write, after the batch was applied, so that a generation promoted while
    // the batch was being applied is noticed too: the batch is dropped and redone from the new checkpoint.
    const stored = await readStore.getCheckpoint(this.checkpointName);
    if (stored !== this.committed) throw new CheckpointMoved(stored);
    await readStore.write(unitOfWork.ops(), [{ name: this.checkpointName, position: last.position }]);
    this.committed = last.position;
    this.consecutiveFailures = 0;
    this.onCommitted();
  }

  private subscriptionEnded(error: unknown): void {
    if (this.stopped) return;
    if (error instanceof CheckpointMoved) {
      this.logger.info(
        { from: String(this.committed), to: String(error.stored) },
        'stored checkpoint moved (a new generation was promoted); resubscribing from it',
      );
      this.committed = error.stored;
      this.subscribe();
      return;
    }
    this.consecutiveFailures += 1;
    const delayMs = Math.min(this.options.retryMaxMs, this.options.retryInitialMs * 2 ** Math.min(this.consecutiveFailures - 1, 20));
    this.logger.error(
      { err: error, checkpoint: String(this.committed), attempt: this.consecutiveFailures, retryInMs: delayMs },
      'projection failed; its checkpoint stays where it was',
    );
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.resubscribeFromStoredCheckpoint();
    }, delayMs);
  }

  private async resubscribeFromStoredCheckpoint(): Promise<void> {
    if (this.stopped) return;
    try {
      this.committed = await this.options.readStore.getCheckpoint(this.checkpointName);
    } catch (error) {
      this.subscriptionEnded(error);
      return;
    }
    this.subscribe();
  }
}

interface PositionWaiter {
  position: bigint;
  resolve: () => void;
}

/**
 * The projections whose live read models an earlier version built: no checkpoint of the current version,
 * but one of an earlier version. Projecting them live would update old-shaped documents in place (the
 * idempotency guards skip the events those documents already carry), so they are rebuilt instead.
 */
export async function outdatedProjections(readStore: ReadStore, projections: readonly Projection[]): Promise<Projection[]> {
  const outdated: Projection[] = [];
  for (const projection of projections) {
    if ((await readStore.getCheckpoint(checkpointNameOf(projection))) !== null) continue;
    for (let version = projection.version - 1; version >= 1; version -= 1) {
      if ((await readStore.getCheckpoint(checkpointNameOf({ name: projection.name, version }))) !== null) {
        outdated.push(projection);
        break;
      }
    }
  }
  return outdated;
}

/**
 * Runs projections against the live read store: checkpointed (each resumes after its stored checkpoint),
 * batched (one write per batch, checkpoint included), and aware of blue/green replays promoted by other
 * processes (see CheckpointMoved). Read models an earlier projection version built are rebuilt first.
 */
export async function startProjector(options: ProjectorOptions): Promise<Projector> {
  const { projections, logger } = options;
  const waiters = new Set<PositionWaiter>();

  const reached = (position: bigint) => runners.every((runner) => runner.hasReached(position));
  const settleWaiters = () => {
    for (const waiter of waiters) {
      if (reached(waiter.position)) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };

  // Before anything is projected live (and, in a process that also serves the API, before it listens), read
  // models of an earlier projection version are rebuilt blue/green from the log; a failure stops the start.
  const outdated = await outdatedProjections(options.readStore, projections);
  if (outdated.length > 0) {
    logger.info(
      { projections: outdated.map((projection) => `${projection.name} v${projection.version}`) },
      'read models built by an earlier version of their projection: rebuilding them from the log',
    );
    const rebuilt = await rebuildProjections({ eventStore: options.eventStore, readStore: options.readStore, projections: outdated });
    logger.info({ events: rebuilt.events, seconds: Math.round(rebuilt.seconds * 10) / 10 }, 'read models rebuilt');
  }

  const runners = projections.map(
    (projection) =>
      new ProjectionRunner(
        projection,
        {
          eventStore: options.eventStore,
          readStore: options.readStore,
          batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
          retryInitialMs: options.retry?.initialMs ?? DEFAULT_RETRY_INITIAL_MS,
          retryMaxMs: options.retry?.maxMs ?? DEFAULT_RETRY_MAX_MS,
        },
        logger.child({ projection: projection.name }),
        settleWaiters,
      ),
  );
  for (const runner of runners) await runner.start();
  // The subscriptions wait for new events on timers that do not hold the process open, so a process that
  // only projects (`--role projector`) would exit as soon as it had caught up; the projector holds it
  // open itself until stopped.
  const keepAlive = setInterval(() => undefined, 2 ** 31 - 1);

  return {
    waitForPosition(position, timeoutMs = DEFAULT_WAIT_TIMEOUT_MS) {
      if (reached(position)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter: PositionWaiter = {
          position,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const behind = runners.filter((runner) => !runner.hasReached(position)).map((runner) => runner.name);
          reject(new Error(`Projections ${behind.join(', ')} did not reach position ${position} within ${timeoutMs} ms.`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },

    async stop() {
      clearInterval(keepAlive);
      await Promise.all(runners.map((runner) => runner.stop()));
      logger.info('projector stopped');
    },
  };
}
