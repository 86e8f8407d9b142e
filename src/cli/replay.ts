import { SingleBar } from 'cli-progress';
import { allProjections, projectionByName, projectionNames } from '../../projections/index.js';
import type { Projection } from '../projectionEngine/projection.js';
import { rebuildProjections, type RebuildProgress } from '../projectionEngine/rebuild.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { runCli } from './runCli.js';
import { openStores } from '../service.js';

const USAGE = `usage: npm run replay [-- --projection NAME]   (NAME: ${projectionNames.join(', ')})`;

/** `--projection NAME` (repeatable, or comma-separated); none = every projection. */
function parseReplayArguments(argv: readonly string[]): { projections: Projection[] } | { error: string } {
  const names: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--projection') names.push(argv[++index] ?? '');
    else if (argument.startsWith('--projection=')) names.push(argument.slice('--projection='.length));
    else return { error: `unknown argument ${JSON.stringify(argument)}` };
  }
  const requested = [...new Set(names.flatMap((name) => name.split(',')).map((name) => name.trim()))];
  if (requested.length === 0) return { projections: [...allProjections] };
  const unknown = requested.filter((name) => projectionByName(name) === undefined);
  if (unknown.length > 0) return { error: `unknown projection ${unknown.map((name) => JSON.stringify(name)).join(', ')}` };
  return { projections: requested.map((name) => projectionByName(name)!) };
}

/**
 * On a terminal, a progress bar with events/s; otherwise (CI, pipes, log collectors) one log line every few
 * seconds so the output stays readable as a file.
 */
function progressReporter(logger: Logger): { update(progress: RebuildProgress): void; stop(): void } {
  if (process.stderr.isTTY) {
    const bar = new SingleBar({
      format: 'replaying |{bar}| {percentage}% | {value}/{total} events | {rate} events/s | eta {eta_formatted}',
      stream: process.stderr,
      hideCursor: true,
    });
    let started = false;
    return {
      update({ processed, total, eventsPerSecond }) {
        const rate = Math.round(eventsPerSecond).toLocaleString('en-US');
        if (!started) bar.start(Math.max(total, processed), processed, { rate });
        started = true;
        bar.setTotal(Math.max(total, processed));
        bar.update(processed, { rate });
      },
      stop: () => {
        if (started) bar.stop();
      },
    };
  }
  const intervalMs = 5_000;
  let lastReport = performance.now();
  return {
    update({ processed, total, eventsPerSecond }) {
      if (performance.now() - lastReport < intervalMs) return;
      lastReport = performance.now();
      logger.info({ processed, total, eventsPerSecond: Math.round(eventsPerSecond) }, 'replaying');
    },
    stop: () => undefined,
  };
}

/**
 * Rebuilds the chosen read models from the event store into fresh collections and swaps them in when
 * complete. The running service keeps answering from the old collections until then; its projector sees
 * the promoted checkpoints and carries on from them.
 */
async function replay(config: Config, projections: readonly Projection[], logger: Logger): Promise<void> {
  const stores = await openStores(config);
  const progress = progressReporter(logger);
  try {
    const result = await rebuildProjections({ ...stores, projections, onProgress: (update) => progress.update(update) });
    progress.stop();
    process.stdout.write(
      `replayed ${result.events.toLocaleString('en-US')} events (${result.projected.toLocaleString('en-US')} of them projected, ` +
        `the others of types these read models do not handle) into ${projections.length} read model(s) ` +
        `(${projections.map((projection) => projection.name).join(', ')}) in ${result.seconds.toFixed(1)} s ` +
        `= ${Math.round(result.eventsPerSecond).toLocaleString('en-US')} events/s; swapped in\n`,
    );
  } finally {
    progress.stop();
    await stores.readStore.close();
    await stores.eventStore.close();
  }
}

process.exitCode = await runCli({
  name: 'replay',
  usage: USAGE,
  parse: parseReplayArguments,
  run: (config, parsed, logger) => replay(config, parsed.projections, logger),
  failure: 'replay failed; the live read models were left as they were',
});
