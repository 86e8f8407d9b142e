import { mkdtempSync, rmSync } from 'node:fs';
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
} from '../../src/media/imageDerivatives.js';
import { bytesOf, cameraJpeg, smallPng, storePicture, type Picture } from './pictures.js';

const tempDir = mkdtempSync(join(tmpdir(), 'image-derivatives-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

let stores = 0;
const opened: BlobStore[] = [];
function aBlobStore(dataDir = join(tempDir, `data-${++stores}`)): BlobStore {
  const store = createEmbeddedBlobStore({ dataDir });
  opened.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

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

describe('image derivatives', () => {
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
    const dataDir = join(tempDir, 'shared');
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
