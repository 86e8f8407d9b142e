/**
 * Replay benchmark (`npm run bench:replay [-- --projects N] [--rounds N]`): not a test. In a temporary
 * DATA_DIR it seeds the demo catalogue, then measures in one run
 *   (a) the raw event-store read rate: readAll over the whole log in pages, and
 *   (b) the full rebuild rate of every read model (rebuildProjections into a fresh embedded read store file),
 * and compares them with the target: rebuild at least 25% of the raw read rate. Both rates are events of the
 * log per second: the rebuild reads only the events its read models handle and steps over the others (id
 * allocations, slug reservations), and each round prints how many it projected.
 * Without --projects it seeds until the log holds at least 200,000 events.
 *
 * This machine's speed drifts from minute to minute, so one raw read and one rebuild a few seconds apart
 * can see different machines. The bench therefore measures rounds (default 5): in each, the raw read right
 * before and right after the rebuild, and the rebuild is compared with the mean of those two raw rates. The
 * verdict is on the median round; every round is printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { allProjections } from '../../projections/index.js';
import { rebuildProjections } from '../../src/projectionEngine/rebuild.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { createEventStore } from '../../src/eventStore/createEventStore.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { DEMO_CATALOGUE_EPOCH, seedDemoCatalogue } from '../../src/seed/demoCatalogue.js';

const TARGET_EVENTS = 200_000;
const TARGET_RATIO = 0.25;
const READ_PAGE_SIZE = 5_000;
/** Projects seeded first to learn how many events one project makes. */
const CALIBRATION_PROJECTS = 500;
/** The synthetic history must never be cut short by the present. */
const FAR_FUTURE = () => new Date('2100-01-01T00:00:00Z');

const DEFAULT_ROUNDS = 5;

/** The value of `--name N` or `--name=N`, a whole number >= 1; undefined when the option is absent. */
function parseCount(argv: readonly string[], name: string): number | undefined {
  const index = argv.findIndex((argument) => argument === `--${name}` || argument.startsWith(`--${name}=`));
  if (index === -1) return undefined;
  const argument = argv[index]!;
  const value = argument.includes('=') ? argument.slice(argument.indexOf('=') + 1) : argv[index + 1];
  if (value === undefined || !/^\d+$/.test(value) || Number(value) < 1) {
    process.stderr.write('usage: npm run bench:replay [-- --projects N] [--rounds N]   (whole numbers >= 1)\n');
    process.exit(2);
  }
  return Number(value);
}

const rate = (events: number, seconds: number) => Math.round(events / seconds);
const format = (value: number) => value.toLocaleString('en-US');

/** The embedded store numbers its log 1, 2, 3...: the head position is the number of events. */
async function countEvents(eventStore: EventStore): Promise<number> {
  return Number((await eventStore.headPosition()) ?? 0n);
}

/** Reads the whole log page by page, as a rebuild does, without projecting anything. */
async function readWholeLog(eventStore: EventStore): Promise<{ events: number; seconds: number }> {
  const started = performance.now();
  let events = 0;
  let page = await eventStore.readAll({ maxCount: READ_PAGE_SIZE });
  while (page.length > 0) {
    events += page.length;
    page = await eventStore.readAll({ after: page.at(-1)!.position, maxCount: READ_PAGE_SIZE });
  }
  return { events, seconds: (performance.now() - started) / 1000 };
}

interface Round {
  rawBefore: number;
  rawAfter: number;
  rebuild: { events: number; projected: number; seconds: number; rate: number };
}

const ratioOf = (round: Round) => round.rebuild.rate / ((round.rawBefore + round.rawAfter) / 2);
const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

/** Raw read, full rebuild into a fresh read store file (removed afterwards), raw read again. */
async function measureRound(eventStore: EventStore, readModelsFile: string): Promise<Round> {
  const before = await readWholeLog(eventStore);
  const readStore = createEmbeddedReadStore({ file: readModelsFile });
  let lastReport = performance.now();
  let rebuild: { events: number; projected: number; seconds: number };
  try {
    rebuild = await rebuildProjections({
      eventStore,
      readStore,
      projections: allProjections,
      onProgress: ({ processed, total, eventsPerSecond }) => {
        if (performance.now() - lastReport < 5_000) return;
        lastReport = performance.now();
        process.stdout.write(
          `    rebuilding ${format(processed)} / ${format(total)} events, ${format(Math.round(eventsPerSecond))} events/s\n`,
        );
      },
    });
  } finally {
    await readStore.close();
    rmSync(readModelsFile, { force: true });
    rmSync(`${readModelsFile}-wal`, { force: true });
    rmSync(`${readModelsFile}-shm`, { force: true });
  }
  const after = await readWholeLog(eventStore);
  return {
    rawBefore: rate(before.events, before.seconds),
    rawAfter: rate(after.events, after.seconds),
    rebuild: { ...rebuild, rate: rate(rebuild.events, rebuild.seconds) },
  };
}

async function main(): Promise<void> {
  const requestedProjects = parseCount(process.argv.slice(2), 'projects');
  const rounds = parseCount(process.argv.slice(2), 'rounds') ?? DEFAULT_ROUNDS;
  const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-replay-bench-'));
  const eventStore = createEventStore({ dataDir });
  const seedReadStore = createEmbeddedReadStore({ file: join(dataDir, 'seed-readmodels.sqlite') });
  const blobStore = createEmbeddedBlobStore({ dataDir });
  try {
    process.stdout.write(`data dir: ${dataDir}\n`);
    const deps = { eventStore, readStore: seedReadStore, blobStore, clock: FAR_FUTURE };
    const seedStarted = performance.now();
    await seedDemoCatalogue(deps, { projects: 0 });
    const referenceEvents = await countEvents(eventStore);
    let projects = 0;
    const seedMore = async (count: number) => {
      await seedDemoCatalogue(deps, { projects: count, startAt: projects });
      projects += count;
    };
    if (requestedProjects !== undefined) {
      await seedMore(requestedProjects);
    } else {
      await seedMore(CALIBRATION_PROJECTS);
      for (let events = await countEvents(eventStore); events < TARGET_EVENTS; events = await countEvents(eventStore)) {
        const perProject = (events - referenceEvents) / projects;
        await seedMore(Math.ceil(((TARGET_EVENTS - events) / perProject) * 1.01) + 1);
      }
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    // Its in-memory mirrors are garbage from here on; kept open, they would make every later collection
    // slower, in the rebuild (which allocates) far more than in the raw read.
    await seedReadStore.close();
    const events = await countEvents(eventStore);
    process.stdout.write(
      `seeded ${format(projects)} projects in ${seedSeconds.toFixed(1)} s through the import and the admin commands ` +
        `(${format(rate(events, seedSeconds))} events/s; history from ${DEMO_CATALOGUE_EPOCH.toISOString().slice(0, 10)}): ` +
        `${format(events)} events = ${format(referenceEvents)} of reference data + ` +
        `${((events - referenceEvents) / projects).toFixed(1)} per project (id allocations, import key bindings and slug reservations included)\n`,
    );

    // The first pass warms the page cache so every measurement reads from memory alike.
    await readWholeLog(eventStore);
    const measured: Round[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      measured.push(await measureRound(eventStore, join(dataDir, `rebuilt-readmodels-${round}.sqlite`)));
      const { rawBefore, rawAfter, rebuild } = measured.at(-1)!;
      process.stdout.write(
        `round ${round} of ${rounds}: raw ${format(rawBefore)} / ${format(rawAfter)} events/s, rebuild ${format(rebuild.rate)} events/s ` +
          `(${format(rebuild.events)} events in ${rebuild.seconds.toFixed(2)} s, ${format(rebuild.projected)} of them projected, ` +
          `${format(rebuild.events - rebuild.projected)} stepped over) = ${percent(ratioOf(measured.at(-1)!))} of the raw read around it\n`,
      );
    }

    const median = [...measured].sort((a, b) => ratioOf(a) - ratioOf(b))[Math.floor(measured.length / 2)]!;
    const met = ratioOf(median) >= TARGET_RATIO;
    process.stdout.write(
      `(a) raw readAll: ${measured.map((round) => `${format(round.rawBefore)} / ${format(round.rawAfter)}`).join(', ')} events/s\n` +
        `(b) full rebuild of the ${allProjections.length} projections (${allProjections.map((projection) => projection.name).join(', ')}): ` +
        `${measured.map((round) => format(round.rebuild.rate)).join(', ')} events/s\n` +
        `rebuild / raw by round: ${measured.map((round) => percent(ratioOf(round))).join(', ')}; median ${percent(ratioOf(median))} ` +
        `(target >= ${TARGET_RATIO * 100}%): ${met ? 'met' : 'NOT met'}\n` +
        `machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${cpus().length} cores, node ${process.version}, ${process.platform}/${process.arch}\n`,
    );
    if (!met) process.exitCode = 1;
  } finally {
    await seedReadStore.close();
    await blobStore.close();
    await eventStore.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
