import type { OpenMode, PathLike } from 'node:fs';
import type * as fsPromises from 'node:fs/promises';
import { mkdtemp, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ensureSecretFile } from '../../src/http/secretFile.js';

/*
 * Processes that start together on a fresh DATA_DIR (two api replicas and a worker) each ensure the same
 * secret files. Node's writeFile opens (creating the file) and then writes, as separate steps; on a busy
 * disk the time between them is long enough for another process to read the file empty. Here writeFile
 * takes its steps with a pause between them, so that racing calls meet that moment every time instead of
 * once in a few hundred starts.
 */

const WRITE_PAUSE_MS = 20;

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof fsPromises>();
  return {
    ...actual,
    async writeFile(path: PathLike, data: string, options: { mode?: number; flag?: OpenMode }) {
      const handle = await actual.open(path, options.flag ?? 'w', options.mode);
      try {
        await new Promise((resolve) => setTimeout(resolve, WRITE_PAUSE_MS));
        await handle.writeFile(data);
      } finally {
        await handle.close();
      }
    },
  };
});

const RACERS = 4;
const MIN_LENGTH = 32;

describe('secret files generated in DATA_DIR', () => {
  const dataDirs: string[] = [];
  const freshDataDir = async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'catalogue-secret-file-'));
    dataDirs.push(dataDir);
    return dataDir;
  };
  afterEach(async () => {
    await Promise.all(dataDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('when several starts ensure the same secret at once, then each reads the same whole secret, one created it, and no temporary file is left', async () => {
    const dataDir = await freshDataDir();
    const results = await Promise.all(Array.from({ length: RACERS }, () => ensureSecretFile(dataDir, 'shared-secret', MIN_LENGTH)));
    const stored = (await readFile(join(dataDir, 'shared-secret'), 'utf8')).trim();
    expect(stored).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(results.map((result) => result.secret)).toEqual(Array(RACERS).fill(stored));
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(await readdir(dataDir)).toEqual(['shared-secret']);
    expect((await stat(join(dataDir, 'shared-secret'))).mode & 0o777).toBe(0o600);
  });

  it('when the secret file exists, then it is read as it is and not created again', async () => {
    const dataDir = await freshDataDir();
    const handle = await open(join(dataDir, 'shared-secret'), 'wx', 0o600);
    await handle.writeFile(`${'s'.repeat(MIN_LENGTH)}\n`);
    await handle.close();
    const found = await ensureSecretFile(dataDir, 'shared-secret', MIN_LENGTH);
    expect(found).toMatchObject({ secret: 's'.repeat(MIN_LENGTH), created: false, permissionsTooOpen: false });
  });
});
