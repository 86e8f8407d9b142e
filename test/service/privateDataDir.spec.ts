import { chmod, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService, type RunningService } from '../../src/service.js';
import { request } from '../support/http.js';

interface LogLine {
  level: number;
  msg: string;
  dataDir?: string;
  changed?: Array<{ path: string; from: string; to: string }>;
}

const WARN = 40;
/** Every file the embedded service writes in DATA_DIR on a first start with the demo seed. */
const FILES_OF_A_FIRST_START = [
  'admin-token',
  'blobs',
  'demo-api-keys',
  'events.sqlite',
  'events.sqlite-shm',
  'events.sqlite-wal',
  'idempotency.sqlite',
  'idempotency.sqlite-shm',
  'idempotency.sqlite-wal',
  'jobs.sqlite',
  'jobs.sqlite-shm',
  'jobs.sqlite-wal',
  'leases.sqlite',
  'leases.sqlite-shm',
  'leases.sqlite-wal',
  'link-signing-secret',
  'readmodels.sqlite',
  'readmodels.sqlite-shm',
  'readmodels.sqlite-wal',
  'uploads',
  'webhook-secret-key',
];
/** Folders are owner-only too, and keep their search permission. */
const privateModeOf = (name: string): string => (['.', 'blobs', 'uploads'].includes(name) ? '700' : '600');

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function temporaryDirectory(): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'catalogue-data-dir-'));
  cleanups.push(() => rm(parent, { recursive: true, force: true }));
  return parent;
}

/**
 * The service as src/main.ts starts it in embedded mode: its own stores, generated admin token and link
 * secret, the demo seed; started on `dataDir`, after one admin command written through to the read models.
 */
async function startOn(dataDir: string): Promise<{ service: RunningService; logLines: LogLine[] }> {
  const logLines: LogLine[] = [];
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_TOKEN: '',
    DATA_DIR: dataDir,
    SEED_DEMO: 'true',
    SEED_PROJECTS: '0',
    LOG_LEVEL: 'info',
  });
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logLines.push(JSON.parse(line) as LogLine) } });
  const service = await startService({ config, logger });
  let stopped = false;
  const stop = async () => {
    if (!stopped) await service.stop();
    stopped = true;
  };
  cleanups.push(stop);
  const created = await request(service.url!, '/admin/v1/clients', {
    method: 'POST',
    token: service.adminToken!,
    body: { name: 'Mode check', plan: 'enterprise' },
  });
  expect(created.status).toBe(201);
  await service.projector!.waitForPosition((await service.eventStore.headPosition())!, 10_000);
  return { service: { ...service, stop }, logLines };
}

async function modesUnder(dataDir: string): Promise<Record<string, string>> {
  const modes: Record<string, string> = { '.': ((await stat(dataDir)).mode & 0o777).toString(8) };
  for (const name of await readdir(dataDir)) modes[name] = ((await stat(join(dataDir, name))).mode & 0o777).toString(8);
  return modes;
}

const dataDirWarnings = (logLines: LogLine[]) => logLines.filter((line) => line.level === WARN && /DATA_DIR/.test(line.msg));

describe('DATA_DIR modes', () => {
  it('when the service starts on a fresh DATA_DIR, then the folder is 0700 and every file in it, WAL and shared memory included, is 0600, without a warning', async () => {
    const dataDir = join(await temporaryDirectory(), 'data');

    const { logLines } = await startOn(dataDir);

    const modes = await modesUnder(dataDir);
    expect(Object.keys(modes).sort()).toEqual(['.', ...FILES_OF_A_FIRST_START]);
    expect(modes).toEqual(Object.fromEntries(Object.keys(modes).map((name) => [name, privateModeOf(name)])));
    expect(dataDirWarnings(logLines)).toEqual([]);
  });

  it('when the service starts on a DATA_DIR an earlier version left 0755 with 0644 files, then it makes them 0700 and 0600 and says so in one warning naming paths, never contents', async () => {
    const dataDir = join(await temporaryDirectory(), 'data');
    const first = await startOn(dataDir);
    await first.service.stop();
    const leftBehind = await readdir(dataDir);
    await chmod(dataDir, 0o755);
    for (const name of leftBehind) await chmod(join(dataDir, name), 0o644);
    const secrets = await Promise.all(['admin-token', 'link-signing-secret'].map((name) => readFile(join(dataDir, name), 'utf8')));

    const { logLines } = await startOn(dataDir);

    const modes = await modesUnder(dataDir);
    expect(modes).toEqual(Object.fromEntries(Object.keys(modes).map((name) => [name, privateModeOf(name)])));
    const warnings = dataDirWarnings(logLines);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.dataDir).toBe(dataDir);
    expect(warnings[0]!.changed).toEqual(
      expect.arrayContaining([
        { path: dataDir, from: '0755', to: '0700' },
        ...leftBehind.map((name) => ({ path: join(dataDir, name), from: '0644', to: `0${privateModeOf(name)}` })),
      ]),
    );
    expect(warnings[0]!.changed).toHaveLength(leftBehind.length + 1);
    const logText = JSON.stringify(logLines);
    for (const secret of secrets) expect(logText).not.toContain(secret.trim());
  });
});
