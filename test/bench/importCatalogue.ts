/**
 * Bulk import benchmark (`npm run bench:import [-- --projects N[,N...]]`, default 2000,20000): not a test. For
 * each N, in a fresh temporary DATA_DIR it
 *   1. stores a few pictures and PDFs in the blob store and writes a deterministic NDJSON catalogue of N
 *      projects naming them (the reference data of the demo, then per project: the project line with its lists,
 *      3 floor plans, 2 payment plans and 5 gallery pictures);
 *   2. runs `npm run import` on it in its own process while a projector (all read models, as `npm start` runs
 *      them) projects in this one, and measures the import alone and the import until projected;
 *   3. runs the same file again (it must append nothing) and measures that too;
 *   4. in a second DATA_DIR, runs `npm run import -- --replay` with no projector running: the import, then a
 *      rebuild of every read model.
 * `--keep` leaves the folders; `--write-only FILE` writes the catalogue to FILE and the blobs to DATA_DIR and stops.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allProjections } from '../../projections/index.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { createEventStore } from '../../src/eventStore/createEventStore.js';
import { createLogger } from '../../src/logger.js';
import { startProjector } from '../../src/projectionEngine/runtime.js';
import { createReadStore } from '../../src/readStore/createReadStore.js';
import { storeFiles, writeImportCatalogue } from '../import/generatedCatalogue.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROJECT_TIMEOUT_MS = 30 * 60_000;

function runImportCli(dataDir: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; seconds: number }> {
  const started = performance.now();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.EVENTSTORE_URL;
  delete env.MONGODB_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/import.ts', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  return once(child, 'exit').then(([code]) => {
    if (code !== 0) throw new Error(`the import exited ${String(code)}:\n${stdout}`);
    return { code: code as number | null, stdout, seconds: (performance.now() - started) / 1000 };
  });
}

function parseArguments(argv: readonly string[]): { counts: number[]; keep: boolean; writeOnly?: string } {
  const usage = () => {
    process.stderr.write('usage: npm run bench:import [-- --projects N[,N...]] [--keep] [--write-only FILE --projects N]\n');
    process.exit(2);
  };
  let counts = [2_000, 20_000];
  let keep = false;
  let writeOnly: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--keep') keep = true;
    else if (argument === '--write-only') writeOnly = argv[++index] ?? usage();
    else if (argument === '--projects' || argument.startsWith('--projects=')) {
      const value = argument.includes('=') ? argument.slice(argument.indexOf('=') + 1) : argv[++index];
      if (value === undefined || !/^\d+(,\d+)*$/.test(value)) usage();
      counts = value!.split(',').map(Number);
    } else usage();
  }
  return { counts, keep, ...(writeOnly === undefined ? {} : { writeOnly }) };
}

const format = (value: number) => Math.round(value).toLocaleString('en-US');

/** The machine's 1-minute load average: on a shared machine, wall times mean little without it. */
const load = () => loadavg()[0]!.toFixed(1);

const summaryOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('read ') || line.startsWith('replayed '));

/**
 * In one DATA_DIR: the import while a projector of every read model runs beside it (as under `npm start`),
 * until projected; then the same file again. In another: the import with --replay and no projector running.
 */
async function measure(projects: number, keep: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `import-bench-${projects}-`));
  const [live, replayed] = [join(dir, 'live'), join(dir, 'replayed')];
  const file = join(dir, 'catalogue.ndjson');
  try {
    const written = await writeImportCatalogue(live, file, projects);
    // The same pictures and PDFs (deterministic: the same keys) in the second DATA_DIR's blob store.
    const blobStore = createEmbeddedBlobStore({ dataDir: replayed });
    await storeFiles(blobStore);
    await blobStore.close();
    const eventStore = createEventStore({ dataDir: live });
    const readStore = createReadStore({ dataDir: live });
    const projector = await startProjector({ eventStore, readStore, projections: allProjections, logger: createLogger({ level: 'warn' }) });
    try {
      const loadBefore = load();
      const started = performance.now();
      const projectorCpu = process.cpuUsage();
      const first = await runImportCli(live, [file]);
      const head = (await eventStore.headPosition()) ?? 0n;
      await projector.waitForPosition(head, PROJECT_TIMEOUT_MS);
      const projected = (performance.now() - started) / 1000;
      const { user, system } = process.cpuUsage(projectorCpu);
      const loadProjected = load();
      const second = await runImportCli(live, [file]);
      const appendedAgain = ((await eventStore.headPosition()) ?? 0n) - head;
      const withReplay = await runImportCli(replayed, [file, '--replay']);
      process.stdout.write(
        `${format(projects)} projects (${format(written.lines)} lines, ${format(Number(head))} events in the log):\n` +
          `  with a projector beside it: imported and projected in ${projected.toFixed(1)} s (the import process ${first.seconds.toFixed(1)} s; ` +
          `the projector's CPU ${((user + system) / 1e6).toFixed(1)} s; load average ${loadBefore} before, ${loadProjected} after)\n` +
          `    ${summaryOf(first.stdout).join('\n    ')}\n` +
          `  the same file again: ${second.seconds.toFixed(1)} s, ${format(Number(appendedAgain))} events appended\n` +
          `    ${summaryOf(second.stdout).join('\n    ')}\n` +
          `  --replay, no projector running: imported and projected in ${withReplay.seconds.toFixed(1)} s (load average ${load()} after)\n` +
          `    ${summaryOf(withReplay.stdout).join('\n    ')}\n`,
      );
    } finally {
      await projector.stop();
      await readStore.close();
      await eventStore.close();
    }
  } finally {
    if (keep) process.stdout.write(`  kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

const options = parseArguments(process.argv.slice(2));
if (options.writeOnly) {
  const dataDir = process.env.DATA_DIR ?? './data';
  const written = await writeImportCatalogue(dataDir, options.writeOnly, options.counts[0]!);
  process.stdout.write(`wrote ${format(written.lines)} lines to ${options.writeOnly}; their files are in ${dataDir}\n`);
} else {
  for (const projects of options.counts) await measure(projects, options.keep);
}
