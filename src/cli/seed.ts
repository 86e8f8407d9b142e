import { createBlobStore } from '../blobStore/createBlobStore.js';
import type { Config } from '../config.js';
import { createEventStore } from '../eventStore/createEventStore.js';
import type { Logger } from '../logger.js';
import { runCli } from './runCli.js';
import { createReadStore } from '../readStore/createReadStore.js';
import { nextDemoProjectOrdinal, seedDemoCatalogue } from '../seed/demoCatalogue.js';

const USAGE = 'usage: npm run seed -- --projects N   (N: a whole number >= 1)';

/** `--projects N` or `--projects=N`; anything else is a usage error. */
function parseArguments(argv: readonly string[]): { projects: number } | { error: string } {
  let value: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--projects') value = argv[++index];
    else if (argument.startsWith('--projects=')) value = argument.slice('--projects='.length);
    else return { error: `unknown argument ${JSON.stringify(argument)}` };
  }
  if (value === undefined) return { error: '--projects is required' };
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < 1) {
    return { error: `--projects must be a whole number >= 1, not ${JSON.stringify(value)}` };
  }
  return { projects: Number(value) };
}

/**
 * Appends N more demo projects to the configured event store, continuing the demo ordinals so slugs and
 * import keys stay unique (reference data is imported only where its key is not bound yet). It only
 * appends events: the running service's projector, or the next start, projects them.
 */
async function seed(config: Config, projects: number, logger: Logger): Promise<void> {
  const eventStore = createEventStore({ eventStoreUrl: config.eventStoreUrl, dataDir: config.dataDir });
  try {
    const readStore = createReadStore({ mongodbUrl: config.mongodbUrl, mongodbDb: config.mongodbDb, dataDir: config.dataDir });
    const blobStore = createBlobStore({ mongodbUrl: config.mongodbUrl, mongodbDb: config.mongodbDb, dataDir: config.dataDir });
    try {
      const startAt = await nextDemoProjectOrdinal(eventStore);
      const started = performance.now();
      const seeded = await seedDemoCatalogue({ eventStore, readStore, blobStore, clock: () => new Date() }, { projects, startAt, logger });
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(
        `seeded ${seeded.projects} projects (demo ordinals ${startAt + 1}..${startAt + seeded.projects}) ` +
          `with ${seeded.lines} import lines and ${seeded.commands} commands in ${seconds.toFixed(1)} s; ` +
          'the running service projects them (or the next start does)\n',
      );
    } finally {
      await blobStore.close();
      await readStore.close();
    }
  } finally {
    await eventStore.close();
  }
}

process.exitCode = await runCli({
  name: 'seed',
  usage: USAGE,
  parse: parseArguments,
  run: (config, parsed, logger) => seed(config, parsed.projects, logger),
  failure: 'seeding failed',
});
