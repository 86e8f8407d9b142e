import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import {
  DemoMedia,
  demoBrochurePdf,
  demoMasterPlanPdf,
  demoVideo,
  FACADE_VARIANTS,
  renderDemoPicture,
  type DemoFile,
  type DemoPicture,
} from '../../src/seed/demoMedia.js';

const tempDir = mkdtempSync(join(tmpdir(), 'demo-media-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

const openStores: BlobStore[] = [];
afterEach(async () => {
  for (const store of openStores.splice(0)) await store.close();
});

let stores = 0;
function aBlobStore(): BlobStore {
  const store = createEmbeddedBlobStore({ dataDir: join(tempDir, `data-${++stores}`) });
  openStores.push(store);
  return store;
}

const facades: DemoPicture[] = Array.from({ length: FACADE_VARIANTS }, (_, variant) => ({ kind: 'facade', name: 'Azure', variant }));
const everyKind: DemoPicture[] = [
  ...facades,
  { kind: 'floorPlan', unitType: '2 Bedrooms', variant: 0 },
  { kind: 'floorPlan', unitType: 'Office', variant: 1 },
  { kind: 'floorPlate', variant: 2 },
  { kind: 'logo', name: 'Falcon Ridge Properties' },
  { kind: 'banner', name: 'Dubai Marina' },
];

const brochure = {
  name: 'Azure Heights',
  developer: 'Falcon Ridge Properties',
  place: 'Dubai Marina, Dubai',
  highlights: ['Studio, 1 Bedroom', 'Handover 2027'],
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** What an upload reads from a picture: its format, and its size as displayed (after the EXIF orientation). */
async function readPicture(file: DemoFile) {
  const metadata = await sharp(file.bytes).metadata();
  return { type: (await fileTypeFromBuffer(file.bytes))?.mime, width: metadata.autoOrient.width, height: metadata.autoOrient.height };
}

describe('demo media', () => {
  it('when every kind of picture is rendered twice, then both runs give the same bytes', async () => {
    const first = await Promise.all(everyKind.map(renderDemoPicture));
    const second = await Promise.all(everyKind.map(renderDemoPicture));

    expect(second.map((file) => file.sha256)).toEqual(first.map((file) => file.sha256));
    for (const file of first) expect(file.sha256).toBe(sha256(file.bytes));
    expect(new Set(first.map((file) => file.sha256)).size).toBe(everyKind.length);
  });

  it('when pictures are rendered, then their type and size are what an upload would read from the bytes', async () => {
    for (const picture of everyKind) {
      const file = await renderDemoPicture(picture);
      expect(await readPicture(file), JSON.stringify(picture)).toEqual({ type: file.contentType, width: file.width, height: file.height });
    }
  });

  it('when the facades of a project are rendered, then they include one wider than 2560 px, one narrower than 800 px and one stored turned with an EXIF orientation', async () => {
    const files = await Promise.all(facades.map(renderDemoPicture));
    const orientations = await Promise.all(files.map(async (file) => (await sharp(file.bytes).metadata()).orientation ?? 1));

    expect(files.some((file) => file.width! > 2560)).toBe(true);
    expect(files.some((file) => file.width! < 800)).toBe(true);
    expect(new Set(files.map((file) => file.contentType))).toEqual(new Set(['image/jpeg', 'image/png']));
    const turned = orientations.indexOf(6);
    expect(turned).toBeGreaterThanOrEqual(0);
    const stored = await sharp(files[turned]!.bytes).metadata();
    expect([stored.width, stored.height]).toEqual([files[turned]!.height, files[turned]!.width]);
  });

  it('when the documents are made twice, then they are the same valid PDFs, without dates, whose cross-reference table points at their objects', async () => {
    const documents = [demoBrochurePdf(brochure), demoMasterPlanPdf('Dubai Marina')];

    expect([demoBrochurePdf(brochure).sha256, demoMasterPlanPdf('Dubai Marina').sha256]).toEqual(documents.map((file) => file.sha256));
    expect(demoBrochurePdf({ ...brochure, name: 'Marina Heights' }).sha256).not.toBe(documents[0]!.sha256);
    for (const file of documents) {
      const text = file.bytes.toString('latin1');
      expect(await fileTypeFromBuffer(file.bytes)).toEqual({ ext: 'pdf', mime: 'application/pdf' });
      expect(text).not.toMatch(/CreationDate|ModDate/);
      const xref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)![1]);
      expect(text.slice(xref, xref + 4)).toBe('xref');
      const offsets = [...text.slice(xref).matchAll(/^(\d{10}) 00000 n $/gm)].map((match) => Number(match[1]));
      expect(offsets.length).toBeGreaterThanOrEqual(6);
      offsets.forEach((offset, index) => expect(text.startsWith(`${index + 1} 0 obj\n`, offset)).toBe(true));
    }
  });

  it('when the demo video is read, then it is a small MP4', async () => {
    const video = await demoVideo();

    expect(await fileTypeFromBuffer(video.bytes)).toEqual({ ext: 'mp4', mime: 'video/mp4' });
    expect(video.bytes.length).toBeLessThan(100_000);
  });

  it('when the same picture is asked for many times, then it is rendered and stored once under the SHA-256 of its bytes', async () => {
    const blobStore = aBlobStore();
    let puts = 0;
    const counting: BlobStore = Object.assign(Object.create(blobStore) as BlobStore, {
      put: (...args: Parameters<BlobStore['put']>) => {
        puts += 1;
        return blobStore.put(...args);
      },
    });
    const media = new DemoMedia(counting);
    media.renderAhead(facades);

    const refs = await Promise.all([...facades, ...facades, facades[0]!].map((picture) => media.picture(picture)));

    expect(puts).toBe(FACADE_VARIANTS);
    expect(refs.slice(FACADE_VARIANTS, 2 * FACADE_VARIANTS)).toEqual(refs.slice(0, FACADE_VARIANTS));
    for (const [index, ref] of refs.slice(0, FACADE_VARIANTS).entries()) {
      const rendered = await renderDemoPicture(facades[index]!);
      expect(ref).toEqual({
        key: rendered.sha256,
        content_type: rendered.contentType,
        size_bytes: rendered.bytes.length,
        width: rendered.width,
        height: rendered.height,
      });
      expect(await blobStore.stat(ref.key)).toMatchObject({ size: ref.size_bytes, contentType: ref.content_type });
    }
  });

  it('when a document and the video are stored, then their keys name stored blobs of their size and type', async () => {
    const blobStore = aBlobStore();
    const media = new DemoMedia(blobStore);

    const stored = [await media.file(demoBrochurePdf(brochure)), await media.video(), await media.video()];

    for (const ref of stored) expect(await blobStore.stat(ref.key)).toMatchObject({ size: ref.size_bytes, contentType: ref.content_type });
    expect(stored[2]).toEqual(stored[1]);
  });
});
