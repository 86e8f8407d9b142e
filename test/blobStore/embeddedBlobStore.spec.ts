import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BlobCorrupted, type BlobStore } from '../../src/blobStore/blobStore.js';
import { createBlobStore } from '../../src/blobStore/createBlobStore.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { blobStoreContract, inChunks, listAll, readAll, someBytes } from './blobStoreContract.js';

const tempDir = mkdtempSync(join(tmpdir(), 'embedded-blob-store-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

let dirs = 0;
const aDataDir = (): string => join(tempDir, `data-${++dirs}`);

/** Where the embedded store keeps the bytes of `sha256` (README: Blob store). */
const bytesFile = (dataDir: string, sha256: string): string => join(dataDir, 'blobs', sha256.slice(0, 2), sha256);

blobStoreContract('embedded', async () => {
  const dataDir = aDataDir();
  return {
    store: createEmbeddedBlobStore({ dataDir }),
    corrupt: (sha256) => corruptFile(dataDir, sha256, 1234),
  };
});

/** The id of a process that has exited. */
function aDeadProcessId(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** Flips one byte of a stored blob's file (its size stays the same). */
async function corruptFile(dataDir: string, sha256: string, at: number): Promise<void> {
  const file = await openFile(bytesFile(dataDir, sha256), 'r+');
  try {
    const [byte] = (await file.read(Buffer.alloc(1), 0, 1, at)).buffer;
    await file.write(Buffer.from([byte! ^ 0xff]), 0, 1, at);
  } finally {
    await file.close();
  }
}

describe('embedded blob store', () => {
  const opened: BlobStore[] = [];
  const open = (dataDir: string): ReturnType<typeof createEmbeddedBlobStore> => {
    const store = createEmbeddedBlobStore({ dataDir });
    opened.push(store);
    return store;
  };

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it('when the store is reopened, then its blobs and variant links are still there', async () => {
    const dataDir = aDataDir();
    const first = open(dataDir);
    const source = await first.put(inChunks(someBytes(5000, 1)), { contentType: 'image/jpeg' });
    const derived = await first.put(inChunks(someBytes(700, 2)), { contentType: 'image/webp' });
    await first.linkVariant(source.sha256, 'webp-w400-q92', derived.sha256);
    await first.close();

    const reopened = open(dataDir);

    expect(await reopened.stat(source.sha256)).toEqual(source);
    expect(await reopened.findVariant(source.sha256, 'webp-w400-q92')).toEqual(derived);
    expect((await readAll((await reopened.open(source.sha256))!)).equals(someBytes(5000, 1))).toBe(true);
  });

  it('when two stores on one folder put the same bytes at once, then both succeed with one copy', async () => {
    const dataDir = aDataDir();
    const api = open(dataDir);
    const worker = open(dataDir);
    const bytes = someBytes(300_000, 3);

    const [left, right] = await Promise.all([
      api.put(inChunks(bytes, 4096), { contentType: 'image/png' }),
      worker.put(inChunks(bytes, 1000), { contentType: 'image/png' }),
    ]);

    expect(left).toEqual(right);
    expect(await listAll(api)).toEqual([left]);
    expect(readdirSync(join(dataDir, 'blobs', left.sha256.slice(0, 2))).sort()).toEqual([left.sha256, `${left.sha256}.json`]);
  });

  describe('a crash mid-write', () => {
    it('when the source fails midway, then no blob is visible and no temporary file is left', async () => {
      const dataDir = aDataDir();
      const store = open(dataDir);
      async function* failing(): AsyncGenerator<Uint8Array> {
        yield someBytes(100_000, 4);
        throw new Error('the client went away');
      }

      await expect(store.put(failing(), { contentType: 'image/jpeg' })).rejects.toThrow('the client went away');

      expect(await listAll(store)).toEqual([]);
      expect(readdirSync(join(dataDir, 'blobs')).sort()).toEqual(['tmp', 'variants']);
      expect(readdirSync(join(dataDir, 'blobs', 'tmp'))).toEqual([]);
    });

    it('when a put is refused as too large, then no temporary file is left', async () => {
      const dataDir = aDataDir();
      const store = open(dataDir);

      await expect(store.put(inChunks(someBytes(10_000, 5)), { contentType: 'image/jpeg', maxBytes: 5000 })).rejects.toThrow();

      expect(readdirSync(join(dataDir, 'blobs', 'tmp'))).toEqual([]);
    });

    it('when a killed process left temporary files, then opening the store removes them and keeps those of running processes', async () => {
      const dataDir = aDataDir();
      open(dataDir);
      const tmp = join(dataDir, 'blobs', 'tmp');
      const dead = aDeadProcessId();
      writeFileSync(join(tmp, `${dead}-0b6f1c7e`), someBytes(64_000, 6));
      writeFileSync(join(tmp, `${dead}-0b6f1c7e.json`), '{"size":');
      writeFileSync(join(tmp, 'not-ours'), 'x');
      writeFileSync(join(tmp, `${process.pid}-in-progress`), 'being written');

      const reopened = open(dataDir);

      expect(readdirSync(tmp)).toEqual([`${process.pid}-in-progress`]);
      expect(await listAll(reopened)).toEqual([]);
    });

    it('when metadata was published but the bytes were not (a crash between the two), then there is no blob until the bytes are put', async () => {
      const dataDir = aDataDir();
      const store = open(dataDir);
      const bytes = someBytes(2000, 7);
      const info = await store.put(inChunks(bytes), { contentType: 'image/png' });
      rmSync(bytesFile(dataDir, info.sha256));

      expect(await store.stat(info.sha256)).toBeNull();
      expect(await store.open(info.sha256)).toBeNull();
      expect(await listAll(store)).toEqual([]);

      expect(await store.put(inChunks(bytes), { contentType: 'image/png' })).toEqual(info);
      expect((await readAll((await store.open(info.sha256))!)).equals(bytes)).toBe(true);
    });
  });

  it('when blobs and variant links are written, then every folder is 0700 and every file 0600', async () => {
    const dataDir = aDataDir();
    const store = open(dataDir);
    const source = await store.put(inChunks(someBytes(5000, 8)), { contentType: 'image/jpeg' });
    const derived = await store.put(inChunks(someBytes(500, 9)), { contentType: 'image/webp' });
    await store.linkVariant(source.sha256, 'webp-w800-q92', derived.sha256);

    const modes: string[] = [];
    const visit = (path: string) => {
      const stats = statSync(path);
      modes.push(`${(stats.mode & 0o777).toString(8)} ${stats.isDirectory() ? 'dir' : 'file'}`);
      if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    };
    visit(join(dataDir, 'blobs'));

    expect(new Set(modes)).toEqual(new Set(['700 dir', '600 file']));
    expect(modes.filter((mode) => mode.endsWith('file'))).toHaveLength(5);
  });

  describe('verified file paths (the capability renders use instead of reading a master into memory)', () => {
    it('when a stored blob is asked for, then the answer is the path of a file holding exactly its bytes', async () => {
      const dataDir = aDataDir();
      const store = open(dataDir);
      const bytes = someBytes(2_500_000, 12);
      const info = await store.put(inChunks(bytes, 65_536), { contentType: 'image/jpeg' });

      const path = await store.verifiedFilePath(info.sha256);

      expect(path).toBe(bytesFile(dataDir, info.sha256));
      expect(readFileSync(path!).equals(bytes)).toBe(true);
    });

    it('when no such blob is stored, or the address is not a SHA-256, then the answer is null', async () => {
      const dataDir = aDataDir();
      const store = open(dataDir);
      const info = await store.put(inChunks(someBytes(3000, 13)), { contentType: 'image/png' });
      rmSync(bytesFile(dataDir, info.sha256));

      expect(await store.verifiedFilePath(info.sha256)).toBeNull();
      expect(await store.verifiedFilePath('f'.repeat(64))).toBeNull();
      expect(await store.verifiedFilePath('../../etc/passwd')).toBeNull();
    });

    it('when several blobs are checked at once and one is corrupt, then only that one is refused, as BlobCorrupted', async () => {
      const dataDir = aDataDir();
      const store = open(dataDir);
      // Each larger than the buffer a check reads through, so that concurrent checks share reused buffers.
      const infos = await Promise.all(
        [14, 15, 16, 17].map((seed) => store.put(inChunks(someBytes(1_500_000 + seed, seed), 65_536), { contentType: 'image/jpeg' })),
      );
      await corruptFile(dataDir, infos[2]!.sha256, 1_400_000);

      const answers = await Promise.allSettled(infos.map((info) => store.verifiedFilePath(info.sha256)));

      expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((answers[2] as PromiseRejectedResult).reason).toBeInstanceOf(BlobCorrupted);
      expect((answers[3] as PromiseFulfilledResult<string | null>).value).toBe(bytesFile(dataDir, infos[3]!.sha256));
      // Checked again after the failure, with the same reused buffers: still right.
      expect(await store.verifiedFilePath(infos[0]!.sha256)).toBe(bytesFile(dataDir, infos[0]!.sha256));
    });
  });

  it('when a variant name could leave its folder, then it is refused', async () => {
    const store = open(aDataDir());
    const source = await store.put(inChunks(someBytes(100, 10)), { contentType: 'image/jpeg' });

    for (const variant of ['../escape', '.hidden', 'a/b', '', 'x'.repeat(101)]) {
      await expect(store.linkVariant(source.sha256, variant, source.sha256)).rejects.toBeInstanceOf(TypeError);
      await expect(store.findVariant(source.sha256, variant)).rejects.toBeInstanceOf(TypeError);
    }
  });
});

describe('createBlobStore', () => {
  it('when no MongoDB URL is configured, then blobs are stored under DATA_DIR/blobs/', async () => {
    const dataDir = aDataDir();
    const store = createBlobStore({ dataDir });
    try {
      const info = await store.put(inChunks(someBytes(100, 11)), { contentType: 'image/png' });

      expect(statSync(bytesFile(dataDir, info.sha256)).size).toBe(100);
    } finally {
      await store.close();
    }
  });
});
