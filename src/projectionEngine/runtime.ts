import type { Logger } from 'pino';
import type { EventStore, RecordedEvent, Subscription } from '../eventStore/eventStore.js';
import { StaleFencingTokenError, type ReadStore } from '../readStore/readStore.js';
import { LeaseKeeper, type LeaseSettings } from './leaseKeeper.js';
import { checkpointNameOf, type Projection } from './projection.js';
import type { LeaseGrant } from './projectorLease.js';
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
  /**
   * One lease per projection (named as its checkpoint): a projection is projected, and rebuilt when
   * outdated, only while this process holds its lease, and its checkpoint writes carry the lease's fencing
   * token. Without it, every projection is projected at once, unguarded (tests, tools, a single process).
   */
  lease?: LeaseSettings;
  /**
   * Told after each batch a projection committed (its checkpoint written), with the checkpoint's name and
   * position: how processes that do not run this projector learn of its progress (src/projectionEngine/checkpointNotices.ts).
   */
  onCommitted?: (checkpointName: string, position: bigint) => void;
}

const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_WAIT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRY_INITIAL_MS = 250;
const DEFAULT_RETRY_MAX_MS = 30_000;
/** How often the stored checkpoints of projections another process projects are read while someone waits for a position. */
const STANDBY_POLL_MS = 100;

/** A runner's lease: its token goes with each checkpoint; a refusal of it ends the holding. */
interface RunnerFencing {
  token: number;
  refused(reason: string): void;
}

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
    private readonly onCommitted: (position: bigint) => void,
    private readonly fencing: RunnerFencing | null = null,
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
        if (error instanceof CheckpointMoved || error instanceof StaleFencingTokenError) return false;
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
    await readStore.write(unitOfWork.ops(), [
      { name: this.checkpointName, position: last.position, ...(this.fencing ? { fencingToken: this.fencing.token } : {}) },
    ]);
    this.committed = last.position;
    this.consecutiveFailures = 0;
    this.onCommitted(last.position);
  }

  private subscriptionEnded(error: unknown): void {
    if (this.stopped) return;
    if (error instanceof StaleFencingTokenError && this.fencing) {
      this.stopped = true;
      this.fencing.refused(`the read store refused the checkpoint: ${error.message}`);
      return;
    }
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

/** One projection in a projector: its runner while this process projects it, its lease keeper when leased. */
interface ProjectionSlot {
  projection: Projection;
  checkpointName: string;
  logger: Logger;
  runner: ProjectionRunner | null;
  keeper: LeaseKeeper | null;
  /** The stored checkpoint as last polled, while another process projects it (see waitForPosition). */
  stored: bigint | null;
}

/**
 * Runs projections against the live read store: checkpointed (each resumes after its stored checkpoint),
 * batched (one write per batch, checkpoint included), and aware of blue/green replays promoted by other
 * processes (see CheckpointMoved). Read models an earlier projection version built are rebuilt first.
 *
 * With `lease`, each projection is run only while this process holds its lease: those free at the start
 * are taken (their outdated read models rebuilt together, reading the log once), the others stood by for,
 * and a projection whose lease is lost stops at once and is stood by for again; one taken over later is
 * rebuilt first if outdated.
 */
export async function startProjector(options: ProjectorOptions): Promise<Projector> {
  const { projections, logger, readStore } = options;
  const waiters = new Set<PositionWaiter>();
  const slots: ProjectionSlot[] = projections.map((projection) => ({
    projection,
    checkpointName: checkpointNameOf(projection),
    logger: logger.child({ projection: projection.name }),
    runner: null,
    keeper: null,
    stored: null,
  }));

  const slotReached = (slot: ProjectionSlot, position: bigint) =>
    slot.runner ? slot.runner.hasReached(position) : slot.stored !== null && slot.stored >= position;
  const reached = (position: bigint) => slots.every((slot) => slotReached(slot, position));
  const settleWaiters = () => {
    for (const waiter of waiters) {
      if (reached(waiter.position)) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };

  // The projections another process projects reach a position when their stored checkpoints do.
  let standbyPoll: NodeJS.Timeout | null = null;
  const pollStandbys = () => {
    if (standbyPoll || waiters.size === 0 || slots.every((slot) => slot.runner)) return;
    standbyPoll = setTimeout(() => {
      void (async () => {
        try {
          for (const slot of slots) if (!slot.runner) slot.stored = await readStore.getCheckpoint(slot.checkpointName);
        } catch (error) {
          logger.warn({ err: error }, 'could not read the checkpoints of projections another process projects');
        }
        standbyPoll = null;
        settleWaiters();
        pollStandbys();
      })();
    }, STANDBY_POLL_MS);
  };

  const runnerSettings = {
    eventStore: options.eventStore,
    readStore,
    batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
    retryInitialMs: options.retry?.initialMs ?? DEFAULT_RETRY_INITIAL_MS,
    retryMaxMs: options.retry?.maxMs ?? DEFAULT_RETRY_MAX_MS,
  };
  const committed = (slot: ProjectionSlot, position: bigint) => {
    settleWaiters();
    options.onCommitted?.(slot.checkpointName, position);
  };
  const newRunner = (slot: ProjectionSlot, fencing: RunnerFencing | null) =>
    new ProjectionRunner(slot.projection, runnerSettings, slot.logger, (position) => committed(slot, position), fencing);

  // Before anything is projected live (and, in a process that also serves the API, before it listens), read
  // models of an earlier projection version are rebuilt blue/green from the log; a failure stops the start.
  const rebuildOutdated = async (candidates: readonly ProjectionSlot[], grants?: ReadonlyMap<string, LeaseGrant>, signal?: AbortSignal) => {
    const outdated = await outdatedProjections(
      readStore,
      candidates.map((slot) => slot.projection),
    );
    if (outdated.length === 0) return;
    logger.info(
      { projections: outdated.map((projection) => `${projection.name} v${projection.version}`) },
      'read models built by an earlier version of their projection: rebuilding them from the log',
    );
    const rebuilt = await rebuildProjections({
      eventStore: options.eventStore,
      readStore,
      projections: outdated,
      ...(grants ? { fencingTokens: new Map([...grants].map(([name, grant]) => [name, grant.token])) } : {}),
      ...(signal ? { signal } : {}),
    });
    logger.info({ events: rebuilt.events, seconds: Math.round(rebuilt.seconds * 10) / 10 }, 'read models rebuilt');
  };

  const lease = options.lease;
  if (!lease) {
    await rebuildOutdated(slots);
    for (const slot of slots) {
      slot.runner = newRunner(slot, null);
      await slot.runner.start();
    }
  } else {
    for (const slot of slots) {
      slot.keeper = new LeaseKeeper({
        ...lease,
        name: slot.checkpointName,
        logger: slot.logger,
        start: async (grant, signal, lose) => {
          await rebuildOutdated([slot], new Map([[slot.checkpointName, grant]]), signal);
          signal.throwIfAborted();
          const runner = newRunner(slot, { token: grant.token, refused: lose });
          slot.runner = runner;
          const stop = async () => {
            if (slot.runner === runner) slot.runner = null;
            await runner.stop();
          };
          try {
            await runner.start();
          } catch (error) {
            await stop();
            throw error;
          }
          return { stop };
        },
      });
    }
    try {
      await startLeased(slots, rebuildOutdated, logger);
    } catch (error) {
      await Promise.all(slots.map((slot) => slot.keeper!.stop()));
      throw error;
    }
  }
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
          const behind = slots.filter((slot) => !slotReached(slot, position)).map((slot) => slot.projection.name);
          reject(new Error(`Projections ${behind.join(', ')} did not reach position ${position} within ${timeoutMs} ms.`));
        }, timeoutMs);
        waiters.add(waiter);
        pollStandbys();
      });
    },

    async stop() {
      clearInterval(keepAlive);
      if (standbyPoll) clearTimeout(standbyPoll);
      await Promise.all(slots.map(async (slot) => (slot.keeper ? slot.keeper.stop() : slot.runner?.stop())));
      logger.info('projector stopped');
    },
  };
}

/**
 * The first round of a leased projector: takes the leases free now, rebuilds those of their read models that
 * are outdated in one pass over the log, starts them, and stands by for the others. A lease lost during that
 * rebuild aborts it; the projections still held are then rebuilt one by one as they start.
 */
async function startLeased(
  slots: readonly ProjectionSlot[],
  rebuildOutdated: (slots: readonly ProjectionSlot[], grants: ReadonlyMap<string, LeaseGrant>, signal: AbortSignal) => Promise<void>,
  logger: Logger,
): Promise<void> {
  const taken = new Map<string, LeaseGrant>();
  const held: ProjectionSlot[] = [];
  for (const slot of slots) {
    const grant = await slot.keeper!.take();
    if (!grant) continue;
    taken.set(slot.checkpointName, grant);
    held.push(slot);
  }
  const signal = AbortSignal.any(held.flatMap((slot) => slot.keeper!.signal ?? []));
  try {
    await rebuildOutdated(held, taken, signal);
  } catch (error) {
    if (!signal.aborted) throw error;
    logger.warn('a lease was lost during the rebuild; the projections still held are rebuilt one by one');
  }
  for (const slot of held) await slot.keeper!.startWork();
  for (const slot of slots) if (!held.includes(slot)) slot.keeper!.standBy();
  logger.info(
    { active: held.filter((slot) => slot.keeper!.active).length, standby: slots.length - held.length },
    held.length === slots.length ? 'projector holds every projection lease' : 'projector started; standing by for leases held elsewhere',
  );
}
