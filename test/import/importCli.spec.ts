import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { IMPORT_KEYS_STREAM } from '../../src/import/importKeys.js';
import { allProjections } from '../../projections/index.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { checkpointNameOf } from '../../src/projectionEngine/projection.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { eventually, GiveUp } from '../support/eventually.js';
import { storedImage } from '../support/storedFiles.js';
import { writeImportCatalogue } from './generatedCatalogue.js';
import { ndjson, partLines, projectLine, referenceLines, wholeLog } from './importLines.js';

const CLI = fileURLToPath(new URL('../../src/cli/import.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function aFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'import-cli-'));
  folders.push(folder);
  return folder;
}

function startCli(
  dataDir: string,
  args: readonly string[],
): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  delete env.MONGODB_URL;
  delete env.EVENTSTORE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = once(child, 'close').then(([code]) => ({ code: code as number | null, stdout, stderr }));
  return { child, done };
}

const runCli = (dataDir: string, args: readonly string[]) => startCli(dataDir, args).done;

/** Every projection's checkpoint in the DATA_DIR's read models, in allProjections' order. */
async function checkpointsIn(dataDir: string): Promise<Array<bigint | null>> {
  const readStore = createEmbeddedReadStore({ file: join(dataDir, 'readmodels.sqlite') });
  try {
    return await Promise.all(allProjections.map((projection) => readStore.getCheckpoint(checkpointNameOf(projection))));
  } finally {
    await readStore.close();
  }
}

const refusalsIn = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { line: number; key: string; error: { code: string; details: { fields: Record<string, string> } } });

/** Parts of the project whose pictures are stored in the CLI's blob store, as uploads would have stored them. */
async function storedPartLines(dataDir: string, project: string) {
  const blobStore = createEmbeddedBlobStore({ dataDir });
  try {
    return partLines(project, { floorPlan: await storedImage(blobStore, { seed: 1 }), gallery: await storedImage(blobStore, { seed: 2 }) });
  } finally {
    await blobStore.close();
  }
}

/** The CLI's own store file, opened beside it (the embedded store takes several processes). */
async function withLog<Result>(dataDir: string, read: (eventStore: EventStore) => Promise<Result>): Promise<Result> {
  const eventStore = createSqliteEventStore({ file: join(dataDir, 'events.sqlite') });
  try {
    return await read(eventStore);
  } finally {
    await eventStore.close();
  }
}

describe('npm run import', () => {
  it('when lines are refused, then each is printed with its line number, the others are imported, nothing of the refused ones is appended, and it exits 3', async () => {
    const folder = aFolder();
    const dataDir = join(folder, 'data');
    const good = join(folder, 'good.ndjson');
    writeFileSync(good, ndjson(...referenceLines, projectLine('p1'), ...(await storedPartLines(dataDir, 'p1'))));
    expect(await runCli(dataDir, [good])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('12 accepted (12 created, 0 revised, 0 unchanged), 0 refused'),
    });
    const logBefore = await withLog(dataDir, wholeLog);

    const bad = join(folder, 'bad.ndjson');
    writeFileSync(bad, ndjson(projectLine('p2', { developer: 'dev-nobody' }), '', 'not json', projectLine('p3', { slug: 'tower-p1' })));
    const run = await runCli(dataDir, [bad]);

    expect(run.code).toBe(3);
    expect(refusalsIn(run.stdout)).toMatchObject([
      {
        line: 1,
        key: 'p2',
        error: { code: 'VALIDATION_FAILED', details: { fields: { 'data.developer': expect.stringContaining('dev-nobody') } } },
      },
      { line: 3, error: { code: 'VALIDATION_FAILED', details: { fields: { line: 'must be one JSON object' } } } },
      { line: 4, key: 'p3', error: { code: 'SLUG_TAKEN', details: { fields: { 'data.slug': 'already in use' } } } },
    ]);
    expect(run.stdout).toContain('read 4 lines');
    expect(await withLog(dataDir, wholeLog)).toEqual(logBefore);
  }, 60_000);

  it('when the same file is imported a second time, then nothing is appended', async () => {
    const folder = aFolder();
    const dataDir = join(folder, 'data');
    const file = join(folder, 'catalogue.ndjson');
    writeFileSync(
      file,
      ndjson(
        ...referenceLines,
        projectLine('p1'),
        ...(await storedPartLines(dataDir, 'p1')),
        projectLine('p2', { related_projects: ['p1'] }),
      ),
    );
    expect((await runCli(dataDir, [file])).code).toBe(0);
    const head = await withLog(dataDir, (eventStore) => eventStore.headPosition());

    const again = await runCli(dataDir, [file]);

    expect(again).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('13 accepted (0 created, 0 revised, 13 unchanged), 0 refused; 0 events appended'),
    });
    expect(await withLog(dataDir, (eventStore) => eventStore.headPosition())).toBe(head);
  }, 60_000);

  it('when --replay is given, then every read model is rebuilt up to the last event the import appended', async () => {
    const folder = aFolder();
    const dataDir = join(folder, 'data');
    const file = join(folder, 'catalogue.ndjson');
    writeFileSync(file, ndjson(...referenceLines, projectLine('p1'), ...(await storedPartLines(dataDir, 'p1'))));

    const run = await runCli(dataDir, [file, '--replay']);

    expect(run.code).toBe(0);
    const head = await withLog(dataDir, (eventStore) => eventStore.headPosition());
    expect(run.stdout).toContain(`replayed ${String(head)} events into every read model`);
    expect(await checkpointsIn(dataDir)).toEqual(allProjections.map(() => head));
  }, 60_000);

  it('when --replay is given and the import appends nothing, then the rebuild begun beside it is given up and the CLI ends', async () => {
    const folder = aFolder();
    const dataDir = join(folder, 'data');
    const file = join(folder, 'catalogue.ndjson');
    writeFileSync(file, ndjson(...referenceLines, projectLine('p1')));
    expect((await runCli(dataDir, [file, '--replay'])).code).toBe(0);
    const head = await withLog(dataDir, (eventStore) => eventStore.headPosition());

    const again = await runCli(dataDir, [file, '--replay']);

    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0 events appended');
    expect(again.stdout).not.toContain('replayed');
    expect(await withLog(dataDir, (eventStore) => eventStore.headPosition())).toBe(head);
    expect(await checkpointsIn(dataDir)).toEqual(allProjections.map(() => head));
  }, 60_000);

  it('when the import is killed with SIGKILL halfway, then running it again imports every record exactly once', async () => {
    const folder = aFolder();
    const dataDir = join(folder, 'data');
    const file = join(folder, 'catalogue.ndjson');
    const projects = 800;
    await writeImportCatalogue(dataDir, file, projects);

    const first = startCli(dataDir, [file, '--batch-lines', '200']);
    await eventually(
      'the import to have written some batches',
      async () => {
        if (first.child.exitCode !== null) throw new GiveUp('the import ended before it was killed');
        return withLog(dataDir, async (eventStore) => (await eventStore.readStream(IMPORT_KEYS_STREAM)).length >= 3);
      },
      { timeoutMs: 30_000 },
    );
    first.child.kill('SIGKILL');
    expect((await first.done).code).toBeNull();
    const boundWhenKilled = await withLog(dataDir, async (eventStore) => (await eventStore.readStream(IMPORT_KEYS_STREAM)).length);

    const second = await runCli(dataDir, [file, '--batch-lines', '200']);

    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/ 0 refused; /);
    expect(second.stdout).not.toMatch(/\(0 created/);
    const log = await withLog(dataDir, wholeLog);
    const count = (type: string) => log.filter((event) => event.type === type).length;
    expect(count('ProjectCreated')).toBe(projects);
    expect(count('FloorPlanAdded')).toBe(3 * projects);
    expect(count('PaymentPlanAdded')).toBe(2 * projects);
    expect(count('GalleryPictureAdded')).toBe(5 * projects);
    const projectSlugs = log.filter((event) => event.type === 'SlugReserved' && event.streamName.startsWith('projectSlug-'));
    expect(new Set(projectSlugs.map((event) => event.streamName)).size).toBe(projects);
    expect(projectSlugs).toHaveLength(projects);
    const keys = log.filter((event) => event.streamName === IMPORT_KEYS_STREAM);
    expect(keys.length).toBeGreaterThan(boundWhenKilled);
    const projectKeys = keys.flatMap((event) => (event.data as { keys: { project?: Array<[string, number]> } }).keys.project ?? []);
    expect(new Set(projectKeys.map(([key]) => key)).size).toBe(projects);
    expect(projectKeys).toHaveLength(projects);
  }, 120_000);

  it('when the file is missing or an option is unknown, then it exits 2 with the usage', async () => {
    const dataDir = join(aFolder(), 'data');

    for (const args of [[], ['/no/such/file.ndjson'], ['--force', 'x.ndjson'], ['a.ndjson', 'b.ndjson'], [CLI, '--batch-lines', '0']]) {
      const run = await runCli(dataDir, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('usage: npm run import -- FILE.ndjson');
    }
  }, 60_000);
});
