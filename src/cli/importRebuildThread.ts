/*
 * The rebuild of `npm run import -- FILE --replay`, on a thread of its own (see followingRebuild in
 * import.ts): it rebuilds every read model into fresh generations while the import appends, following the
 * log, and promotes them once told the import finished ('finish'), or discards them ('abandon').
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { allProjections } from '../../projections/index.js';
import { createEventStore } from '../eventStore/createEventStore.js';
import { rebuildProjections, type RebuildResult } from '../projectionEngine/rebuild.js';
import { createReadStore } from '../readStore/createReadStore.js';

if (!parentPort) throw new Error('importRebuildThread.ts runs as a worker thread');
const port = parentPort;

export interface ImportRebuildSettings {
  eventStoreUrl: string | undefined;
  mongodbUrl: string | undefined;
  mongodbDb: string;
  dataDir: string;
  niceness: number;
}

export type ImportRebuildCommand = 'finish' | 'abandon';
export type ImportRebuildMessage = { result: RebuildResult } | { error: string };

const settings = workerData as ImportRebuildSettings;

// Below the import's thread, whose appends are what everything waits for: the rebuild takes what the import
// leaves of the cores, and the threads it starts (the log reader, the read store's) inherit this. On Linux a
// thread's nice value is its own, and setPriority(0, ...) sets the calling thread's.
if (process.platform === 'linux') {
  try {
    setPriority(0, settings.niceness);
  } catch {
    // Not allowed here: the thread keeps its priority.
  }
}
let importFinished!: () => void;
const finished = new Promise<void>((resolve) => (importFinished = resolve));
const abandoned = new AbortController();
port.on('message', (command: ImportRebuildCommand) => {
  if (command === 'finish') importFinished();
  else abandoned.abort(new Error('the import appended nothing, or failed'));
});

/** Top-level await is not an option: the thread's loader compiles it as CommonJS. */
async function rebuildWhileImporting(): Promise<ImportRebuildMessage> {
  const eventStore = createEventStore({ eventStoreUrl: settings.eventStoreUrl, dataDir: settings.dataDir });
  const readStore = createReadStore({ mongodbUrl: settings.mongodbUrl, mongodbDb: settings.mongodbDb, dataDir: settings.dataDir });
  let message: ImportRebuildMessage;
  try {
    const result = await rebuildProjections({
      eventStore,
      readStore,
      projections: allProjections,
      follow: { finished },
      signal: abandoned.signal,
    });
    message = { result };
  } catch (error) {
    message = { error: abandoned.signal.aborted ? 'abandoned' : String((error as { stack?: unknown } | null)?.stack ?? error) };
  } finally {
    await readStore.close();
    await eventStore.close();
  }
  return message;
}

void rebuildWhileImporting().then((message) => port.postMessage(message));
