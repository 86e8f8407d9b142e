import type { EventStore, NewEvent, StreamAppend } from '../eventStore/eventStore.js';
import type { Logger } from '../logger.js';

/** Events read from the staged log at a time while its copy is built. */
const STAGED_LOG_PAGE_SIZE = 5_000;

/**
 * Runs `seed` against `staging` (an empty in-memory event store, which it closes), then copies the log the
 * seed wrote into `target` in one appendToStreams, which the embedded store writes in one transaction.
 * Tens of thousands of small appends cost little in memory, where each would be a transaction on the WAL
 * file; and the seed becomes all or nothing: a seed that fails, or a process stopped before the copy
 * commits, leaves `target` as it was, so a first start interrupted by a crash seeds again on the next one.
 * The copy expects `target` to hold none of the staged streams (an empty log, as on a first start);
 * otherwise it is refused and writes nothing. The seed's files go straight to the blob store it uses: they
 * are content-addressed, so a seed that did not complete leaves only files the next one stores again.
 */
export async function seedThroughStaging<Seeded>(
  { staging, target }: { staging: EventStore; target: EventStore },
  seed: (staging: EventStore) => Promise<Seeded>,
  options: { logger?: Logger } = {},
): Promise<Seeded> {
  let seeded: Seeded;
  let appends: StreamAppend[];
  try {
    seeded = await seed(staging);
    appends = await appendsRecreatingLog(staging);
  } finally {
    // Before the copy, so that the log is not held twice while the copy is written.
    await staging.close();
  }
  const startedAt = performance.now();
  if (appends.length > 0) await target.appendToStreams(appends);
  options.logger?.info(
    {
      events: appends.reduce((count, append) => count + append.events.length, 0),
      appends: appends.length,
      durationMs: Math.round(performance.now() - startedAt),
    },
    'staged seed copied into the event store',
  );
  return seeded;
}

/**
 * The appends that write `log` again, event for event (id, type, data, metadata), into a store holding none
 * of its streams: its events in log order, read page by page, each run of consecutive events of one stream
 * as one append expecting the revision before its first event. Into an empty SQLite store they land on the
 * same positions.
 */
async function appendsRecreatingLog(log: EventStore): Promise<StreamAppend[]> {
  const appends: StreamAppend[] = [];
  let current: StreamAppend | undefined;
  for (
    let page = await log.readAll({ maxCount: STAGED_LOG_PAGE_SIZE });
    page.length > 0;
    page = await log.readAll({ after: page.at(-1)!.position, maxCount: STAGED_LOG_PAGE_SIZE })
  ) {
    for (const event of page) {
      const copy: NewEvent = { id: event.id, type: event.type, data: event.data, metadata: event.metadata };
      if (current?.streamName === event.streamName) {
        current.events.push(copy);
        continue;
      }
      current = {
        streamName: event.streamName,
        events: [copy],
        expectedRevision: event.revision === 0 ? 'no_stream' : event.revision - 1,
      };
      appends.push(current);
    }
  }
  return appends;
}
