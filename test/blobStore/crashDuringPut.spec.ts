import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { eventually, GiveUp } from '../support/eventually.js';
import { listAll } from './blobStoreContract.js';

const tempDir = mkdtempSync(join(tmpdir(), 'blob-crash-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

const adapterModule = fileURLToPath(new URL('../../src/blobStore/embeddedBlobStore.ts', import.meta.url));

/** A process that puts a big file slowly (64 KB a millisecond, at most 256 MB) until it is killed. */
function aSlowPut(dataDir: string) {
  const script = `
    const { createEmbeddedBlobStore } = await import(${JSON.stringify(adapterModule)});
    const store = createEmbeddedBlobStore({ dataDir: ${JSON.stringify(dataDir)} });
    async function* slowly() {
      for (let index = 0; index < 4096; index++) {
        yield Buffer.alloc(65536, index);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    await store.put(slowly(), { contentType: 'video/mp4' });
    process.stdout.write('finished\\n');
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  return { child, exited };
}

it('when a process is killed -9 during a put, then reopening the store shows no blob and removes the half-written file', async () => {
  const dataDir = join(tempDir, 'data');
  const tmp = join(dataDir, 'blobs', 'tmp');
  const { child, exited } = aSlowPut(dataDir);
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  try {
    const halfWritten = await eventually('the child to have written a megabyte of its put', () => {
      if (exitedEarly) throw new GiveUp('the child exited before it was killed');
      // Before the child has made the folder, readdirSync throws: eventually asks again.
      return readdirSync(tmp).find((name) => statSync(join(tmp, name)).size > 1024 * 1024);
    });

    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(readdirSync(tmp)).toContain(halfWritten);
  } finally {
    child.kill('SIGKILL');
  }

  const reopened = createEmbeddedBlobStore({ dataDir });
  try {
    expect(await listAll(reopened)).toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(join(dataDir, 'blobs')).sort()).toEqual(['tmp', 'variants']);
  } finally {
    await reopened.close();
  }
});
