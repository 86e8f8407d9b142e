import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp, { type Sharp } from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BlobInfo, BlobStore } from '../../src/blobStore/blobStore.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import {
  IMAGE_WIDTHS,
  SourceUnreadable,
  createImageDerivatives,
  derivativeVariant,
  type ImageWidth,
  type VerifiedBlobFiles,
} from '../../src/media/imageDerivatives.js';
import { bytesOf, cameraJpeg, smallPng, storePicture, type Picture } from './pictures.js';

const tempDir = mkdtempSync(join(tmpdir(), 'image-derivatives-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

let stores = 0;
const opened: BlobStore[] = [];
const aDataDir = () => join(tempDir, `data-${++stores}`);
/** The embedded store: it offers renders its checked files' paths, so sharp reads masters from disk. */
function anEmbeddedStore(dataDir = aDataDir()): ReturnType<typeof createEmbeddedBlobStore> {
  const store = createEmbeddedBlobStore({ dataDir });
  opened.push(store);
  return store;
}
/** The port and nothing more (as GridFS is): renders read each master into a Buffer through `open`. */
function aPortOnlyStore(dataDir = aDataDir()): BlobStore {
  const store = anEmbeddedStore(dataDir);
  return {
    put: (source, options) => store.put(source, options),
    stat: (sha256) => store.stat(sha256),
    open: (sha256, range) => store.open(sha256, range),
    linkVariant: (source, variant, derived) => store.linkVariant(source, variant, derived),
    findVariant: (source, variant) => store.findVariant(source, variant),
    list: () => store.list(),
    delete: (sha256) => store.delete(sha256),
    close: () => store.close(),
  };
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** Flips one byte in the middle of a stored blob's file. */
function corruptStoredFile(dataDir: string, sha256: string): void {
  const path = join(dataDir, 'blobs', sha256.slice(0, 2), sha256);
  const bytes = readFileSync(path);
  bytes[bytes.length >> 1]! ^= 0xff;
  writeFileSync(path, bytes);
}

async function decoded(blobStore: BlobStore, derived: BlobInfo | null) {
  expect(derived).not.toBeNull();
  const stream = await blobStore.open(derived!.sha256);
  return sharp(await bytesOf(stream!)).metadata();
}

let camera: Picture;
let png: Picture;
beforeAll(async () => {
  [camera, png] = await Promise.all([cameraJpeg(), smallPng()]);
});

describe.each([
  { masters: 'read from their files (embedded store)', aBlobStore: anEmbeddedStore },
  { masters: 'read into buffers (a store with the port only)', aBlobStore: aPortOnlyStore },
])('image derivatives, masters $masters', ({ aBlobStore }) => {
  it('when every width of a sideways camera JPEG is asked for, then each is an upright WebP of that width keeping only the colour profile', async () => {
    const blobStore = aBlobStore();
    const source = await storePicture(blobStore, camera);
    const derivatives = createImageDerivatives(blobStore);
    for (const width of IMAGE_WIDTHS) {
      const derived = await derivatives.derivative(source.sha256, width);
      expect(derived?.contentType).toBe('image/webp');
      const metadata = await decoded(blobStore, derived);
      // Shown 2000 x 3000 once turned upright: 2560 is wider than that, so the widest is 2000.
      const expectedWidth = Math.min(width, 2000);
      expect({ format: metadata.format, width: metadata.width, height: metadata.height }).toEqual({
        format: 'webp',
        width: expectedWidth,
        height: expectedWidth * 1.5,
      });
      expect(metadata.orientation).toBeUndefined();
      expect(metadata.exif).toBeUndefined();
      expect(metadata.icc).toBeDefined();
      expect(await blobStore.findVariant(source.sha256, derivativeVariant(width))).toEqual(derived);
    }
    expect(derivatives.renders).toBe(IMAGE_WIDTHS.length);
  });

  it('when a picture is narrower than every width, then each derivative keeps its own size', async () => {
    const blobStore = aBlobStore();
    const source = await storePicture(blobStore, png);
    const derivatives = createImageDerivatives(blobStore);
    for (const width of IMAGE_WIDTHS) {
      const metadata = await decoded(blobStore, await derivatives.derivative(source.sha256, width));
      expect([metadata.format, metadata.width, metadata.height]).toEqual(['webp', 300, 200]);
    }
  });

  it('when 20 requests for one derivative arrive at once, then sharp runs once and all get the same blob', async () => {
    const blobStore = aBlobStore();
    const source = await storePicture(blobStore, camera);
    const derivatives = createImageDerivatives(blobStore);
    const answers = await Promise.all(Array.from({ length: 20 }, () => derivatives.derivative(source.sha256, 800)));
    expect(derivatives.renders).toBe(1);
    expect(new Set(answers.map((answer) => answer?.sha256)).size).toBe(1);
  });

  it('when a derivative was made before, then it is found in the blob store, also by another process', async () => {
    const dataDir = aDataDir();
    const blobStore = aBlobStore(dataDir);
    const source = await storePicture(blobStore, png);
    const first = createImageDerivatives(blobStore);
    const made = await first.derivative(source.sha256, 400);
    expect(await first.derivative(source.sha256, 400)).toEqual(made);
    expect(first.renders).toBe(1);

    const restarted = createImageDerivatives(aBlobStore(dataDir));
    expect(await restarted.derivative(source.sha256, 400)).toEqual(made);
    expect(restarted.renders).toBe(0);
  });

  it('when every width is pre-generated, then later requests render nothing', async () => {
    const blobStore = aBlobStore();
    const source = await storePicture(blobStore, png);
    const derivatives = createImageDerivatives(blobStore);
    await derivatives.pregenerate(source.sha256);
    expect(derivatives.renders).toBe(4);
    for (const width of IMAGE_WIDTHS) expect(await blobStore.findVariant(source.sha256, derivativeVariant(width))).not.toBeNull();
    await Promise.all(IMAGE_WIDTHS.map((width: ImageWidth) => derivatives.derivative(source.sha256, width)));
    expect(derivatives.renders).toBe(4);
  });

  it('when the source blob is not stored, then there is no derivative', async () => {
    const derivatives = createImageDerivatives(aBlobStore());
    expect(await derivatives.derivative('0'.repeat(64), 800)).toBeNull();
    expect(derivatives.renders).toBe(0);
  });

  it('when the source bytes are not a picture, then the render fails as SourceUnreadable and the next request tries again', async () => {
    const blobStore = aBlobStore();
    const source = await blobStore.put(Readable.from([Buffer.from('not a picture at all')]), { contentType: 'image/jpeg' });
    const derivatives = createImageDerivatives(blobStore);
    await expect(derivatives.derivative(source.sha256, 800)).rejects.toBeInstanceOf(SourceUnreadable);
    await expect(derivatives.derivative(source.sha256, 800)).rejects.toBeInstanceOf(SourceUnreadable);
    expect(derivatives.renders).toBe(2);
    expect(await blobStore.findVariant(source.sha256, derivativeVariant(800))).toBeNull();
  });

  it("when the master's stored bytes are corrupt, then the render fails as SourceUnreadable and nothing is linked", async () => {
    const dataDir = aDataDir();
    const blobStore = aBlobStore(dataDir);
    const source = await storePicture(blobStore, camera);
    corruptStoredFile(dataDir, source.sha256);
    const derivatives = createImageDerivatives(blobStore);
    await expect(derivatives.derivative(source.sha256, 800)).rejects.toBeInstanceOf(SourceUnreadable);
    expect(await blobStore.findVariant(source.sha256, derivativeVariant(800))).toBeNull();
  });

  it.each([1, 2])('when renders are limited to %i at a time, then no more run at once and every request completes', async (limit) => {
    const blobStore = aBlobStore();
    const source = await storePicture(blobStore, camera);
    const derivatives = createImageDerivatives(blobStore, { maxConcurrentRenders: limit });
    // Counted around the pipeline's promise (sharp's own process counter lags the promise by a callback, so
    // sampling it can see the next render start before the last one is counted out).
    let atOnce = 0;
    let mostAtOnce = 0;
    const toBuffer = sharp.prototype.toBuffer;
    const spy = vi.spyOn(sharp.prototype, 'toBuffer').mockImplementation(async function (this: Sharp) {
      mostAtOnce = Math.max(mostAtOnce, ++atOnce);
      try {
        return await (toBuffer as (this: Sharp) => Promise<Buffer>).call(this);
      } finally {
        atOnce--;
      }
    } as typeof toBuffer);
    try {
      const answers = await Promise.all(IMAGE_WIDTHS.map((width) => derivatives.derivative(source.sha256, width)));
      expect(answers.every((answer) => answer !== null)).toBe(true);
    } finally {
      spy.mockRestore();
    }
    expect(derivatives.renders).toBe(4);
    expect(mostAtOnce).toBeGreaterThan(0);
    expect(mostAtOnce).toBeLessThanOrEqual(limit);
  });
});

describe('image derivatives with the embedded store', () => {
  it('when a master is rendered, then sharp is handed its checked file, not its bytes through open', async () => {
    const blobStore = anEmbeddedStore();
    const source = await storePicture(blobStore, camera);
    // Compile-time too: the embedded store offers what renders look for.
    const offered: VerifiedBlobFiles = blobStore;
    const checked = vi.spyOn(offered, 'verifiedFilePath');
    const opens = vi.spyOn(blobStore, 'open');
    const derivatives = createImageDerivatives(blobStore);

    const derived = await derivatives.derivative(source.sha256, 800);

    expect(checked).toHaveBeenCalledWith(source.sha256);
    expect(opens).not.toHaveBeenCalled();
    expect((await decoded(blobStore, derived)).width).toBe(800);
  });

  it('when a master is collected between its check and its render, then there is no derivative rather than an error', async () => {
    const blobStore = anEmbeddedStore();
    const source = await storePicture(blobStore, camera);
    const check = blobStore.verifiedFilePath.bind(blobStore);
    vi.spyOn(blobStore, 'verifiedFilePath').mockImplementation(async (sha256) => {
      const path = await check(sha256);
      await blobStore.delete(sha256);
      return path;
    });
    const derivatives = createImageDerivatives(blobStore);

    expect(await derivatives.derivative(source.sha256, 800)).toBeNull();
  });
});
