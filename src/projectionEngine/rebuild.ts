import { setTimeout as delay } from 'node:timers/promises';
import type { EventStore, LogPage, LogReadAhead, RecordedEvent } from '../eventStore/eventStore.js';
import type { Checkpoint, GenerationStore, ReadStore } from '../readStore/readStore.js';
import { checkpointNameOf, type Projection } from './projection.js';
import { applyEvents, FreshGenerationDocuments, HeldWrites, projectHalvingOnFailure, UnitOfWork } from './unitOfWork.js';

export interface RebuildProgress {
  /** Events of the log covered so far, of any type (see RebuildResult.events). */
  processed: number;
  /** Estimated from log positions; exact for the embedded store, whose positions count events. */
  total: number;
  eventsPerSecond: number;
}

export interface RebuildOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  projections: readonly Projection[];
  /** Events per page read and per write; each projection writes once per page. */
  batchSize?: number;
  /** Documents each projection holds back from writing at most (see HeldWrites). */
  maxHeldDocuments?: number;
  onProgress?: (progress: RebuildProgress) => void;
  /**
   * The fencing token of each projection's lease, by checkpoint name: its generation's checkpoints carry it,
   * and a promote keeps it for the live checkpoint (see Checkpoint.fencingToken).
   */
  fencingTokens?: ReadonlyMap<string, number>;
  /** Aborts the rebuild between pages (a lease lost): the generations are discarded, the live models untouched. */
  signal?: AbortSignal;
  /**
   * Rebuilds while something appends to the log (a bulk import): on reaching the head the rebuild waits for
   * more instead of ending, and reads on once enough has been appended, until `finished` resolves; then it
   * reads to the head once more and promotes. Without it the rebuild ends at the head it first reaches.
   * `readOnAfter`: how many positions the log must grow past what was read before it reads on (default
   * FOLLOW_MIN_EVENTS). `finished` must not reject: to give up, abort `signal`.
   */
  follow?: { finished: Promise<void>; readOnAfter?: number };
}

export interface RebuildResult {
  /**
   * Events of the log the rebuild covered, up to the head: those the projections handle and those it
   * stepped over (a store that reads ahead reads only the types the projections handle).
   */
  events: number;
  /** Of those, the events that some projection handles, which were read and applied. */
  projected: number;
  seconds: number;
  /** `events` per second. */
  eventsPerSecond: number;
}

/**
 * A page's events live until every projection has applied them, so every garbage collection meanwhile
 * copies them: pages of 2,000 cost a rebuild less of that than pages of 5,000 did, and pages of 1,500 less
 * again (a sixth less copied by the young generation's collections than with 2,000), for under 1% more
 * written, since a project's own events are close together in the log.
 */
const DEFAULT_REBUILD_BATCH_SIZE = 1_500;

/**
 * Documents a projection holds back from writing at most (see HeldWrites). They are mostly documents the
 * projection keeps in memory anyway (FreshGenerationDocuments keeps 50,000); those still held at the end
 * are written after the last page, while the rebuild waits, so the bound is also the longest such tail.
 */
const DEFAULT_MAX_HELD_DOCUMENTS = 5_000;

interface GenerationTarget {
  projection: Projection;
  /** Its checkpoint as each write stores it, with the position to come. */
  checkpoint: (position: bigint) => Checkpoint;
  handled: ReadonlySet<string>;
  generation: GenerationStore;
  documents: HeldWrites;
  promoted: boolean;
}

/**
 * Rebuilds projections from the start of the log into fresh generations (blue/green): the global log is
 * read once, in large pages, and every page feeds every selected projection, which writes it with its
 * checkpoint in one write (holding back the documents that later pages may change again, see HeldWrites,
 * until the bound or the end of the log releases them). Only the events the projections handle are read,
 * where the store can (LogReadAhead). Reading goes on until a page covers nothing new, so the generations
 * have caught up with the head when they are promoted, all together: every projection's checkpoint is
 * then how far the last page read, the head, even when the log ends with events that no projection
 * handles, so that no lag of head minus checkpoint stays. On any error they are discarded and the live
 * models were never touched. A projector running elsewhere notices the promoted checkpoints and resumes
 * from them.
 */
export async function rebuildProjections(options: RebuildOptions): Promise<RebuildResult> {
  const { eventStore, readStore, projections, onProgress, signal } = options;
  const batchSize = options.batchSize ?? DEFAULT_REBUILD_BATCH_SIZE;
  const maxHeld = options.maxHeldDocuments ?? DEFAULT_MAX_HELD_DOCUMENTS;
  const started = performance.now();
  const elapsedSeconds = () => (performance.now() - started) / 1000;

  // Asked for first, so that a reader thread starts up while the generations are prepared.
  const types = new Set(projections.flatMap((projection) => projection.handles));
  const pages = options.follow
    ? followedPages(eventStore, batchSize, types, options.follow, signal)
    : pagesOf(eventStore, batchSize, types, 0n);
  const firstPage = pages.next();
  // Awaited once the generations are ready; if preparing them fails first, its rejection must not go unhandled.
  firstPage.catch(() => undefined);
  const targets: GenerationTarget[] = [];
  try {
    for (const projection of projections) {
      const generation = await readStore.beginGeneration(projection.collections);
      const fresh = new FreshGenerationDocuments();
      const uniqueKeyPaths = new Map(
        Object.entries(projection.indexes).flatMap(([collection, indexes]) => {
          const paths = indexes.filter((index) => index.unique).flatMap((index) => index.keys.map(([path]) => path));
          return paths.length > 0 ? [[collection, paths] as const] : [];
        }),
      );
      const name = checkpointNameOf(projection);
      const fencingToken = options.fencingTokens?.get(name);
      targets.push({
        projection,
        checkpoint: (position) => ({ name, position, ...(fencingToken === undefined ? {} : { fencingToken }) }),
        handled: new Set(projection.handles),
        generation,
        documents: new HeldWrites(fresh, (collection) => fresh.isRead(collection), maxHeld, uniqueKeyPaths),
        promoted: false,
      });
      for (const [collection, indexes] of Object.entries(projection.indexes)) {
        await generation.ensureIndexes(collection, indexes);
      }
    }

    const router = new EventRouter(targets);
    const head = await eventStore.headPosition();
    let processed = 0;
    let lastPosition: bigint | null = null;
    for (let next = await firstPage; !next.done; next = await pages.next()) {
      signal?.throwIfAborted();
      const { events: page, position, covered } = next.value;
      if (covered === 0) break;
      const last = page.at(-1);
      const shares = router.split(page);
      for (const [index, target] of last ? targets.entries() : []) {
        // The whole page's share was routed above; the halves of a failed page pick their own. The page's
        // checkpoint is how far it read, past its last event when the events after it were not read.
        await projectHalvingOnFailure(page, (events) =>
          projectEvents(
            target,
            events === page ? shares[index]! : events.filter((event) => target.handled.has(event.type)),
            events.at(-1) === last ? position : events.at(-1)!.position,
          ),
        );
      }
      processed += covered;
      lastPosition = position;
      if (onProgress) {
        onProgress({
          processed,
          total: estimateTotal(processed, position, head),
          eventsPerSecond: processed / Math.max(elapsedSeconds(), 1e-9),
        });
      }
    }

    // What the projections held back, with the checkpoint of the last page: written for every projection,
    // since pages that changed nothing of it wrote no checkpoint.
    for (const target of targets) {
      const held = target.documents.release();
      if (lastPosition !== null) await target.generation.write(held, [target.checkpoint(lastPosition)]);
    }
    signal?.throwIfAborted();
    for (const target of targets) {
      await target.generation.promote();
      target.promoted = true;
    }
    const seconds = elapsedSeconds();
    return { events: processed, projected: router.routed, seconds, eventsPerSecond: processed / Math.max(seconds, 1e-9) };
  } catch (error) {
    const unpromoted = targets.filter((target) => !target.promoted);
    await Promise.allSettled(unpromoted.map(({ generation }) => generation.discard()));
    throw error;
  } finally {
    await pages.return();
  }
}

/**
 * How far the log must have grown past what a following rebuild has read before it reads on (or the
 * appending finished): each pass from the embedded store's read-ahead starts a reader thread, so reading
 * on every few events appended would cost more in starts than the pages cost. Its positions count events;
 * EventStoreDB's count bytes of its log, so there a rebuild reads on sooner, where a pass starts no thread.
 */
const FOLLOW_MIN_EVENTS = 100_000;
/** How often a following rebuild at the head looks whether the log has grown enough. */
const FOLLOW_POLL_MS = 250;

/**
 * The log in pages as it grows, the last one covering nothing: passes to the head (see pagesOf), each once
 * `readOnAfter` more were appended, until `finished`; a pass begun after that reads to the head, and its
 * empty page ends the pages.
 */
async function* followedPages(
  eventStore: EventStore,
  batchSize: number,
  types: ReadonlySet<string>,
  { finished, readOnAfter = FOLLOW_MIN_EVENTS }: NonNullable<RebuildOptions['follow']>,
  signal: AbortSignal | undefined,
): AsyncGenerator<LogPage, void, undefined> {
  const readOn = BigInt(readOnAfter);
  let appendingFinished = false;
  void finished.then(() => (appendingFinished = true));
  let after = 0n;
  for (;;) {
    const lastPass = appendingFinished;
    for await (const page of pagesOf(eventStore, batchSize, types, after)) {
      if (page.covered === 0) {
        if (lastPass) yield page;
        break;
      }
      after = page.position;
      yield page;
    }
    if (lastPass) return;
    while (!appendingFinished && ((await eventStore.headPosition()) ?? 0n) - after < readOn) {
      signal?.throwIfAborted();
      await Promise.race([finished, delay(FOLLOW_POLL_MS)]);
    }
  }
}

/**
 * The log after `after` in pages, the last one covering nothing. A store that can read ahead on another
 * thread does (see LogReadAhead), reading only the `types` the projections handle; otherwise every event is
 * read, and the next page while this one is projected, which overlaps I/O with work on a remote event store.
 */
async function* pagesOf(
  eventStore: EventStore,
  batchSize: number,
  types: ReadonlySet<string>,
  after: bigint,
): AsyncGenerator<LogPage, void, undefined> {
  const readsAhead = eventStore as EventStore & Partial<LogReadAhead>;
  if (readsAhead.readAllAhead) {
    yield* readsAhead.readAllAhead({ after, pageSize: batchSize, types });
    return;
  }
  let events = await eventStore.readAll({ after, maxCount: batchSize });
  let position = after;
  for (;;) {
    const last = events.at(-1);
    const nextPage = last && eventStore.readAll({ after: last.position, maxCount: batchSize });
    // Awaited once this page is projected; if projecting it fails first, its rejection must not go unhandled.
    nextPage?.catch(() => undefined);
    position = last?.position ?? position;
    yield { events, position, covered: events.length };
    if (!nextPage) return;
    events = await nextPage;
  }
}

/**
 * Splits a page into each target's events, in log order: one lookup per event instead of one per event and
 * projection, since most events concern one or two of the projections.
 */
class EventRouter {
  private readonly routes = new Map<string, number[]>();
  /** Events split so far that some target handles. */
  routed = 0;

  constructor(private readonly targets: readonly GenerationTarget[]) {}

  split(page: readonly RecordedEvent[]): RecordedEvent[][] {
    const shares = this.targets.map((): RecordedEvent[] => []);
    for (const event of page) {
      let route = this.routes.get(event.type);
      if (!route) {
        route = this.targets.flatMap((target, index) => (target.handled.has(event.type) ? [index] : []));
        this.routes.set(event.type, route);
      }
      if (route.length > 0) this.routed += 1;
      for (const index of route) shares[index]!.push(event);
    }
    return shares;
  }
}

/**
 * Applies the events the target handles; the checkpoint is `position`, the end of the events read. The
 * writes it may hold back (HeldWrites) are held only once the others were accepted, so that a page that
 * fails leaves nothing held for its halves to build on; those released to stay within the bound follow.
 */
async function projectEvents(target: GenerationTarget, handled: readonly RecordedEvent[], position: bigint): Promise<void> {
  const unitOfWork = new UnitOfWork(target.generation, target.documents);
  await applyEvents(target.projection, target.handled, handled, unitOfWork);
  const checkpoints = [target.checkpoint(position)];
  const ops = unitOfWork.ops();
  // A page that changed nothing this projection writes costs no write: a generation's checkpoints are read by
  // nothing before the promote, and the last page's is written in any case (see rebuildProjections).
  const written = ops.filter((op) => !target.documents.mayHold(op));
  if (written.length > 0) await target.generation.write(written, checkpoints);
  const released = target.documents.hold(ops);
  if (released.length > 0) await target.generation.write(released, checkpoints);
  unitOfWork.committed();
}

/** From the positions read to so far (`last`, from the start of the log) and the head's. */
function estimateTotal(processed: number, last: bigint, head: bigint | null): number {
  if (head === null || head <= last) return processed;
  return Math.round(processed + (Number(head - last) * processed) / Math.max(Number(last), 1));
}
