import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import type { ImageRef } from '../../src/catalogue/imageRef.js';
import type { StoredFiles } from '../../src/catalogue/storedFiles.js';
import type { VideoFile } from '../../src/catalogue/project.js';

/*
 * Real files for tests: pictures drawn by sharp, a tiny PDF and a tiny MP4 written by hand, and refs to them
 * once stored in a test app's blob store (a JSON ref sent to the admin API must name a stored file).
 */

export type PictureFormat = 'jpeg' | 'png' | 'webp';

export interface PictureOptions {
  width?: number;
  height?: number;
  format?: PictureFormat;
  /** Pictures with different seeds have different bytes (a different colour), so different keys. */
  seed?: number;
}

/** A solid-colour picture of the given size; the colour comes from the seed. */
export function pictureBytes({ width = 80, height = 60, format = 'jpeg', seed = 1 }: PictureOptions = {}): Promise<Buffer> {
  const background = { r: (seed * 67) % 256, g: (seed * 131) % 256, b: (seed * 199) % 256 };
  return sharp({ create: { width, height, channels: 3, background } })
    .toFormat(format)
    .toBuffer();
}

/**
 * A minimal valid PDF with one empty page, written out by hand (header, catalogue, page tree, page,
 * cross-reference table with the real byte offsets, trailer). `label` goes into a comment, so PDFs with
 * different labels have different keys.
 */
export function pdfBytes(label = 'test'): Buffer {
  const header = `%PDF-1.4\n% ${label.replace(/[\r\n]/g, ' ')}\n`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << >> >>',
  ];
  let body = header;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(body);
  const entries = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/**
 * The smallest MP4 that file-type (and a player reading the boxes) takes for one: an `ftyp` box (brand
 * isom) and a `moov` box holding an `mvhd` header of a zero-length movie. It has no track, so it plays
 * nothing; uploads only sniff a video's magic numbers, which is all this is for. `seed` changes the
 * creation time, so different seeds give different keys.
 */
export function mp4Bytes(seed = 1): Buffer {
  const box = (type: string, payload: Buffer) => {
    const header = Buffer.alloc(8);
    header.writeUInt32BE(8 + payload.length, 0);
    header.write(type, 4, 'latin1');
    return Buffer.concat([header, payload]);
  };
  const ftyp = box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1'));
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(seed, 4); // creation time
  mvhd.writeUInt32BE(1000, 12); // timescale
  mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
  mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
  [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].forEach((value, index) => mvhd.writeUInt32BE(value, 36 + index * 4)); // identity matrix
  mvhd.writeUInt32BE(1, 96); // next track id
  return Buffer.concat([ftyp, box('moov', box('mvhd', mvhd))]);
}

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

const CONTENT_TYPES: Record<PictureFormat, ImageRef['content_type']> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };
const EXTENSIONS: Record<PictureFormat, string> = { jpeg: 'jpg', png: 'png', webp: 'webp' };

/** Stores a picture in the blob store and answers the ImageRef that names it. */
export async function storedImage(blobStore: BlobStore, options: PictureOptions & { fileName?: string } = {}): Promise<ImageRef> {
  const format = options.format ?? 'jpeg';
  const bytes = await pictureBytes(options);
  const info = await blobStore.put(Readable.from([bytes]), { contentType: CONTENT_TYPES[format] });
  const { width, height } = await sharp(bytes).metadata();
  return {
    key: info.sha256,
    file_name: options.fileName ?? `picture-${options.seed ?? 1}.${EXTENSIONS[format]}`,
    content_type: CONTENT_TYPES[format],
    width,
    height,
    size_bytes: info.size,
  };
}

/** Stores a PDF and answers the stored PdfDocument that names it. */
export async function storedPdf(blobStore: BlobStore, label = 'test', fileName = `${label}.pdf`) {
  const info = await blobStore.put(Readable.from([pdfBytes(label)]), { contentType: 'application/pdf' });
  return { key: info.sha256, file_name: fileName, content_type: 'application/pdf' as const, size_bytes: info.size };
}

/** Stores an MP4 and answers the VideoFile that names it. */
export async function storedVideo(blobStore: BlobStore, seed = 1, fileName = `video-${seed}.mp4`): Promise<VideoFile> {
  const info = await blobStore.put(Readable.from([mp4Bytes(seed)]), { contentType: 'video/mp4' });
  return { key: info.sha256, file_name: fileName, content_type: 'video/mp4', size_bytes: info.size };
}

/** Facts (CatalogueFacts.storedFiles) saying the blob store holds exactly these refs' files: for decider tests. */
export function storedFacts(...refs: Array<{ key: string; content_type: string; size_bytes: number; width?: number; height?: number }>) {
  return Object.fromEntries(
    refs.map((ref) => [
      ref.key,
      { content_type: ref.content_type, size_bytes: ref.size_bytes, width: ref.width ?? null, height: ref.height ?? null },
    ]),
  );
}

/** A StoredFiles port holding exactly these refs' files: for tests of routes that run commands without a blob store. */
export function storedFilesHolding(...refs: Parameters<typeof storedFacts>): StoredFiles {
  const facts = storedFacts(...refs);
  return { describe: (key) => Promise.resolve(facts[key] ?? null) };
}
