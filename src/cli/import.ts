import { createReadStream, statSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import { createBlobStore } from '../blobStore/createBlobStore.js';
import type { Config } from '../config.js';
import { createEventStore } from '../eventStore/createEventStore.js';
import { DEFAULT_BATCH_LINES, importCatalogue, type ImportProgress, type ImportReport } from '../import/catalogueImport.js';
import { ndjsonLines } from '../import/ndjsonLines.js';
import type { Logger } from '../logger.js';
import type { RebuildResult } from '../projectionEngine/rebuild.js';
import { startTypeScriptWorker } from '../typeScriptWorker.js';
import { blobStoredFiles } from '../uploads/blobStoredFiles.js';
import type { ImportRebuildCommand, ImportRebuildMessage, ImportRebuildSettings } from './importRebuildThread.js';
import { runCli } from './runCli.js';

const USAGE =
  `usage: npm run import -- FILE.ndjson [--batch-lines N] [--replay]   (N: lines written together, default ${DEFAULT_BATCH_LINES}; ` +
  '--replay: then rebuild every read model, as npm run replay does)';
/** Who the imported events are recorded as. */
const IMPORT_ACTOR = 'import';
/** The exit code of an import that wrote every accepted line but refused some (see README, Bulk import). */
const EXIT_LINES_REFUSED = 3;

interface ImportArguments {
  file: string;
  size: number;
  batchLines: number;
  /** Rebuild the read models once the import has appended events (see replayAfterImport). */
  replay: boolean;
}

function parseArguments(argv: readonly string[]): ImportArguments | { error: string } {
  const files: string[] = [];
  let batchLines: string | undefined;
  let replay = false;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--replay') replay = true;
    else if (argument === '--batch-lines') batchLines = argv[++index] ?? '';
    else if (argument.startsWith('--batch-lines=')) batchLines = argument.slice('--batch-lines='.length);
    else if (argument.startsWith('-')) return { error: `unknown option ${JSON.stringify(argument)}` };
    else files.push(argument);
  }
  if (files.length !== 1) return { error: files.length === 0 ? 'the file to import is required' : 'give one file to import' };
  if (batchLines !== undefined && (!/^\d+$/.test(batchLines) || Number(batchLines) < 1 || Number(batchLines) > 100_000)) {
    return { error: `--batch-lines must be a whole number from 1 to 100000, not ${JSON.stringify(batchLines)}` };
  }
  const file = files[0]!;
  const stats = statSync(file, { throwIfNoEntry: false });
  if (!stats?.isFile()) return { error: `${file} is not a file` };
  return { file, size: stats.size, batchLines: batchLines === undefined ? DEFAULT_BATCH_LINES : Number(batchLines), replay };
}

/**
 * On a terminal, a progress bar over the file's bytes; otherwise (CI, pipes, log collectors) one log line every
 * few seconds, so the output stays readable as a file.
 */
function progressReporter(size: number, logger: Logger): { update(progress: ImportProgress): void; stop(): void } {
  const counts = (progress: ImportProgress) => ({
    lines: progress.lines.toLocaleString('en-US'),
    refused: progress.refused.toLocaleString('en-US'),
    events: progress.events.toLocaleString('en-US'),
  });
  if (process.stderr.isTTY) {
    const bar = new SingleBar({
      format: 'importing |{bar}| {percentage}% | line {lines} | {refused} refused | {events} events | eta {eta_formatted}',
      stream: process.stderr,
      hideCursor: true,
    });
    bar.start(Math.max(size, 1), 0, counts({ lines: 0, bytes: 0, accepted: 0, refused: 0, events: 0, seconds: 0 }));
    return { update: (progress) => bar.update(progress.bytes, counts(progress)), stop: () => bar.stop() };
  }
  const intervalMs = 5_000;
  let lastReport = performance.now();
  return {
    update(progress) {
      if (performance.now() - lastReport < intervalMs) return;
      lastReport = performance.now();
      logger.info({ ...progress, of_bytes: size }, 'importing');
    },
    stop: () => undefined,
  };
}

const summary = (report: ImportReport) =>
  `read ${report.lines.toLocaleString('en-US')} lines in ${report.seconds.toFixed(1)} s: ` +
  `${report.accepted.toLocaleString('en-US')} accepted (${report.created} created, ${report.revised} revised, ` +
  `${report.unchanged} unchanged), ${report.refused} refused; ${report.events.toLocaleString('en-US')} events appended ` +
  `(${Math.round(report.events / Math.max(report.seconds, 0.001)).toLocaleString('en-US')} events/s), ` +
  `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`;

let refusedLines = 0;

/** The thread that rebuilds the read models while the import appends (see followingRebuild). */
const IMPORT_REBUILD_THREAD = new URL('./importRebuildThread.ts', import.meta.url);
/**
 * The rebuild thread's young generation (semi-spaces of 64 MB, as `npm run import` and `replay` give their
 * main threads): a thread takes none of the process's Node options.
 */
const REBUILD_YOUNG_GENERATION_MB = 3 * 64;
/** The rebuild thread's nice value (Linux): see importRebuildThread.ts. */
const REBUILD_NICENESS = 10;

interface FollowingRebuild {
  /** The import appended events: the rebuild reads to the head and promotes. */
  finish(): Promise<RebuildResult>;
  /** The import appended nothing, or failed: the rebuild's generations are discarded. */
  abandon(): Promise<void>;
}

/**
 * Projects what the import appends by rebuilding every read model from the log into fresh collections,
 * swapped in when complete (as npm run replay does): several times faster than a live projector catching up
 * batch by batch. The rebuild runs on a thread of its own while the import appends, following the log, so
 * on a machine with a core to spare only its last stretch is waited for. A running service keeps answering
 * from the old read models meanwhile, and its projector carries on from the promoted checkpoints.
 */
function followingRebuild(config: Config): FollowingRebuild {
  const settings: ImportRebuildSettings = {
    eventStoreUrl: config.eventStoreUrl,
    mongodbUrl: config.mongodbUrl,
    mongodbDb: config.mongodbDb,
    dataDir: config.dataDir,
    niceness: REBUILD_NICENESS,
  };
  const thread = startTypeScriptWorker(IMPORT_REBUILD_THREAD, {
    workerData: settings,
    resourceLimits: { maxYoungGenerationSizeMb: REBUILD_YOUNG_GENERATION_MB },
  });
  const ended = new Promise<ImportRebuildMessage>((resolve) => {
    thread.once('message', resolve);
    thread.once('error', (error) => resolve({ error: String(error.stack ?? error) }));
    thread.once('exit', (code) => resolve({ error: `the rebuild thread exited with code ${code}` }));
  });
  return {
    async finish() {
      thread.postMessage('finish' satisfies ImportRebuildCommand);
      const message = await ended;
      await thread.terminate();
      if ('error' in message)
        throw new Error(`every line is imported, but rebuilding the read models failed (npm run replay rebuilds them): ${message.error}`);
      return message.result;
    },
    async abandon() {
      thread.postMessage('abandon' satisfies ImportRebuildCommand);
      await ended;
      await thread.terminate();
    },
  };
}

/**
 * Imports the file's records into the configured event store, writing each refused line to stdout as one JSON
 * object (`{ line, type, key, error }`) and a summary last. It only appends events: the running service's
 * projector, or the next start, projects them.
 */
async function runImport(config: Config, parsed: ImportArguments, logger: Logger): Promise<void> {
  const eventStore = createEventStore({ eventStoreUrl: config.eventStoreUrl, dataDir: config.dataDir });
  const rebuild = parsed.replay ? followingRebuild(config) : null;
  let appended = false;
  try {
    const blobStore = createBlobStore({ mongodbUrl: config.mongodbUrl, mongodbDb: config.mongodbDb, dataDir: config.dataDir });
    const progress = progressReporter(parsed.size, logger);
    try {
      const report = await importCatalogue(
        { eventStore, storedFiles: blobStoredFiles(blobStore), clock: () => new Date() },
        ndjsonLines(createReadStream(parsed.file)),
        {
          actor: IMPORT_ACTOR,
          batchLines: parsed.batchLines,
          onProgress: (update) => progress.update(update),
          onRefusal: (refusal) => process.stdout.write(`${JSON.stringify(refusal)}\n`),
        },
      );
      progress.stop();
      refusedLines = report.refused;
      process.stdout.write(summary(report));
      if (report.events === 0) return;
      appended = true;
      if (rebuild) {
        const importEnded = performance.now();
        const result = await rebuild.finish();
        process.stdout.write(
          `replayed ${result.events.toLocaleString('en-US')} events into every read model in ${result.seconds.toFixed(1)} s, ` +
            `while importing and ${((performance.now() - importEnded) / 1000).toFixed(1)} s after; swapped in\n`,
        );
      } else
        process.stdout.write('the running service projects the events (or its next start does); --replay rebuilds the read models now\n');
    } finally {
      progress.stop();
      await blobStore.close();
    }
  } finally {
    if (!appended) await rebuild?.abandon();
    await eventStore.close();
  }
}

const code = await runCli({
  name: 'import',
  usage: USAGE,
  parse: parseArguments,
  run: runImport,
  failure: 'import failed; the batches before the failure are written, and running the import again resumes it',
});
process.exitCode = code === 0 && refusedLines > 0 ? EXIT_LINES_REFUSED : code;
