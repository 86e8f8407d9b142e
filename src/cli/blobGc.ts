import { createBlobStore } from '../blobStore/createBlobStore.js';
import { DEFAULT_GRACE_MS, collectBlobGarbage } from '../blobStore/garbageCollection.js';
import type { Config } from '../config.js';
import { createEventStore } from '../eventStore/createEventStore.js';
import { cachedBrochureKeys } from '../pdf/pdfRenders.js';
import { createReadStore } from '../readStore/createReadStore.js';
import { runCli } from './runCli.js';

const USAGE = 'usage: npm run blobs:gc [-- --grace-hours HOURS] [--dry-run]   (HOURS defaults to 24)';
const HOUR_MS = 60 * 60 * 1000;

interface GcArguments {
  graceMs: number;
  dryRun: boolean;
}

function parseGcArguments(argv: readonly string[]): GcArguments | { error: string } {
  const parsed: GcArguments = { graceMs: DEFAULT_GRACE_MS, dryRun: false };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--dry-run') {
      parsed.dryRun = true;
    } else if (argument === '--grace-hours' || argument.startsWith('--grace-hours=')) {
      const text = argument.includes('=') ? argument.slice(argument.indexOf('=') + 1) : (argv[++index] ?? '');
      const hours = Number(text);
      if (text.trim() === '' || !Number.isFinite(hours) || hours < 0)
        return { error: `--grace-hours must be a number of hours >= 0, not ${JSON.stringify(text)}` };
      parsed.graceMs = hours * HOUR_MS;
    } else {
      return { error: `unknown argument ${JSON.stringify(argument)}` };
    }
  }
  return parsed;
}

/** Deletes the blobs no event and no cached brochure names (README: Blob store); safe beside a running service. */
async function blobGc(config: Config, { graceMs, dryRun }: GcArguments): Promise<void> {
  const eventStore = createEventStore({ eventStoreUrl: config.eventStoreUrl, dataDir: config.dataDir });
  const blobStore = createBlobStore({ mongodbUrl: config.mongodbUrl, mongodbDb: config.mongodbDb, dataDir: config.dataDir });
  const readStore = createReadStore({ mongodbUrl: config.mongodbUrl, mongodbDb: config.mongodbDb, dataDir: config.dataDir });
  try {
    const report = await collectBlobGarbage({ eventStore, blobStore, graceMs, dryRun, retainedKeys: () => cachedBrochureKeys(readStore) });
    const bytes = report.deleted.reduce((sum, info) => sum + info.size, 0);
    process.stdout.write(
      `${dryRun ? 'would delete' : 'deleted'} ${report.deleted.length} blob(s), ${bytes.toLocaleString('en-US')} bytes; ` +
        `kept ${report.kept} of ${report.blobs}; ${report.events.toLocaleString('en-US')} events read\n`,
    );
  } finally {
    await readStore.close();
    await blobStore.close();
    await eventStore.close();
  }
}

process.exitCode = await runCli({
  name: 'blobs:gc',
  usage: USAGE,
  parse: parseGcArguments,
  run: blobGc,
  failure: 'blob garbage collection failed; every blob it had not yet deleted is still there',
});
