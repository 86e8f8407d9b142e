import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BlobInfo, BlobStore, VariantListing } from '../../src/blobStore/blobStore.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { collectBlobGarbage, collectKeys } from '../../src/blobStore/garbageCollection.js';
import { createEventStore } from '../../src/eventStore/createEventStore.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { inChunks, listAll, someBytes } from './blobStoreContract.js';

const tempDir = mkdtempSync(join(tmpdir(), 'blob-gc-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

let dirs = 0;
const aDataDir = (): string => join(tempDir, `data-${++dirs}`);

const HOUR = 60 * 60 * 1000;
const aDayLater = (): Date => new Date(Date.now() + 25 * HOUR);
const shaOf = (infos: Iterable<BlobInfo>): string[] => [...infos].map((info) => info.sha256).sort();

/** An event naming `key` the way a gallery change does: deep inside its data. */
const galleryChanged = (key: string) => ({
  type: 'ProjectGalleryChanged',
  data: { projectId: 1, gallery: [{ media_id: 3, image: { key, width: 800, height: 600, format: 'jpeg', size_bytes: 100 } }] },
});

describe('blob garbage collection', () => {
  const closing: Array<{ close(): Promise<void> }> = [];
  const open = (dataDir: string) => {
    const stores = { blobStore: createEmbeddedBlobStore({ dataDir }), eventStore: createEventStore({ dataDir }) };
    closing.push(stores.blobStore, stores.eventStore);
    return stores;
  };

  afterEach(async () => {
    for (const store of closing.splice(0)) await store.close();
  });

  let seed = 100;
  const put = (blobStore: BlobStore, contentType = 'image/jpeg') => blobStore.put(inChunks(someBytes(500, seed++)), { contentType });

  it('when a blob past the grace period is named only by a retained record (the brochure cache), then it is kept', async () => {
    const { blobStore, eventStore } = open(aDataDir());
    const cachedPdf = await put(blobStore, 'application/pdf');
    const forgottenPdf = await put(blobStore, 'application/pdf');

    const report = await collectBlobGarbage({
      blobStore,
      eventStore,
      now: aDayLater(),
      retainedKeys: () => Promise.resolve(new Set([cachedPdf.sha256])),
    });

    expect(shaOf(report.deleted)).toEqual(shaOf([forgottenPdf]));
    expect(shaOf(await listAll(blobStore))).toEqual(shaOf([cachedPdf]));
  });

  it('when blobs are past the grace period, then those no event names are deleted with their variants, and named ones keep theirs', async () => {
    const { blobStore, eventStore } = open(aDataDir());
    const named = await put(blobStore);
    const namedWidth = await put(blobStore, 'image/webp');
    const orphan = await put(blobStore);
    const orphanWidth = await put(blobStore, 'image/webp');
    await blobStore.linkVariant(named.sha256, 'webp-w800-q92', namedWidth.sha256);
    await blobStore.linkVariant(orphan.sha256, 'webp-w800-q92', orphanWidth.sha256);
    await eventStore.appendToStream('project-1', [galleryChanged(named.sha256)], { expectedRevision: 'any' });

    const report = await collectBlobGarbage({ blobStore, eventStore, now: aDayLater() });

    expect(shaOf(report.deleted)).toEqual(shaOf([orphan, orphanWidth]));
    expect(report).toMatchObject({ events: 1, blobs: 4, kept: 2 });
    expect(shaOf(await listAll(blobStore))).toEqual(shaOf([named, namedWidth]));
    expect(await blobStore.findVariant(named.sha256, 'webp-w800-q92')).toEqual(namedWidth);
    expect(await blobStore.listVariants(orphan.sha256)).toEqual([]);
  });

  it('when an unnamed blob is younger than the grace period, then it and its variants are kept', async () => {
    const { blobStore, eventStore } = open(aDataDir());
    const uploaded = await put(blobStore);
    const width = await put(blobStore, 'image/webp');
    await blobStore.linkVariant(uploaded.sha256, 'webp-w400-q92', width.sha256);

    const report = await collectBlobGarbage({ blobStore, eventStore, now: new Date(Date.now() + 23 * HOUR) });

    expect(report.deleted).toEqual([]);
    expect(await listAll(blobStore)).toHaveLength(2);
  });

  it('when the grace period is given, then it is the age past which unnamed blobs go', async () => {
    const { blobStore, eventStore } = open(aDataDir());
    await put(blobStore);

    expect((await collectBlobGarbage({ blobStore, eventStore, graceMs: 2 * HOUR, now: new Date(Date.now() + HOUR) })).deleted).toEqual([]);
    expect((await collectBlobGarbage({ blobStore, eventStore, graceMs: 0 })).deleted).toHaveLength(1);
  });

  it('when it is a dry run, then it reports what it would delete and deletes nothing', async () => {
    const { blobStore, eventStore } = open(aDataDir());
    const orphan = await put(blobStore);

    const report = await collectBlobGarbage({ blobStore, eventStore, now: aDayLater(), dryRun: true });

    expect(report.deleted).toEqual([orphan]);
    expect(await listAll(blobStore)).toEqual([orphan]);
  });

  it('when an event names a doomed blob while the collection runs, then that blob and its variants are kept', async () => {
    const { blobStore, eventStore } = open(aDataDir());
    const late = await put(blobStore);
    const lateWidth = await put(blobStore, 'image/webp');
    await blobStore.linkVariant(late.sha256, 'webp-w800-q92', lateWidth.sha256);
    const listingThenAppending = listingHook(blobStore, () =>
      eventStore.appendToStream('project-2', [galleryChanged(late.sha256)], { expectedRevision: 'any' }).then(() => undefined),
    );

    const report = await collectBlobGarbage({ blobStore: listingThenAppending, eventStore, now: aDayLater() });

    expect(report.deleted).toEqual([]);
    expect(await listAll(blobStore)).toHaveLength(2);
  });

  it('when keys sit at any depth of an event, then each SHA-256 under a `key` field is found and nothing else', () => {
    const sha = (digit: string) => digit.repeat(64);
    const keys = new Set<string>();

    collectKeys(
      {
        logo: { key: sha('a') },
        brochure: { key: sha('b'), file_name: 'b.pdf' },
        floors: [{ plans: [{ image: { key: sha('c') } }] }],
        notAKey: sha('d'),
        key: 'legacy-key-1',
        other: { key: 42 },
      },
      keys,
    );

    expect([...keys].sort()).toEqual([sha('a'), sha('b'), sha('c')]);
  });
});

/** `store`, except that listing its blobs first runs `beforeListing` (an editor's append, in the test). */
function listingHook(store: BlobStore & VariantListing, beforeListing: () => Promise<void>): BlobStore & VariantListing {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'list') {
        return async function* () {
          await beforeListing();
          yield* target.list();
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('npm run blobs:gc', () => {
  const cli = fileURLToPath(new URL('../../src/cli/blobGc.ts', import.meta.url));

  function runGc(dataDir: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    delete env.MONGODB_URL;
    delete env.EVENTSTORE_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  }

  it('when run with a grace period of 0 hours, then it deletes the unnamed blobs and says how many', async () => {
    const dataDir = aDataDir();
    const blobStore = createEmbeddedBlobStore({ dataDir });
    const eventStore: EventStore = createEventStore({ dataDir });
    const named = await blobStore.put(inChunks(someBytes(300, 1)), { contentType: 'image/png' });
    await blobStore.put(inChunks(someBytes(200, 2)), { contentType: 'image/png' });
    await eventStore.appendToStream('developer-7', [{ type: 'DeveloperLogoChanged', data: { logo: { key: named.sha256 } } }], {
      expectedRevision: 'any',
    });
    await eventStore.close();

    const dryRun = await runGc(dataDir, ['--grace-hours', '0', '--dry-run']);
    expect(dryRun).toMatchObject({ code: 0, stdout: 'would delete 1 blob(s), 200 bytes; kept 1 of 2; 1 events read\n' });
    expect(await listAll(blobStore)).toHaveLength(2);

    const run = await runGc(dataDir, ['--grace-hours=0']);
    expect(run).toMatchObject({ code: 0, stdout: 'deleted 1 blob(s), 200 bytes; kept 1 of 2; 1 events read\n' });
    expect(await listAll(blobStore)).toEqual([named]);
    await blobStore.close();
  }, 60_000);

  it('when an argument is unknown or the grace period is not a number of hours, then it exits 2 with the usage', async () => {
    const dataDir = aDataDir();

    for (const args of [['--force'], ['--grace-hours', '-1'], ['--grace-hours=soon'], ['--grace-hours']]) {
      const run = await runGc(dataDir, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('usage: npm run blobs:gc');
    }
  }, 60_000);
});
