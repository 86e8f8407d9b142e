import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { BlobInfo, BlobStore } from '../../src/blobStore/blobStore.js';
import type { ImageRef } from '../../src/catalogue/imageRef.js';

/** A picture as a camera or an editor would hand it over: its bytes and what they are. */
export interface Picture {
  bytes: Buffer;
  contentType: ImageRef['content_type'];
  /** As stored (before the EXIF orientation is applied). */
  width: number;
  height: number;
}

/** Two colour halves and a label, so that pictures differ and a rotation shows. */
function drawing(width: number, height: number, label: string): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<rect width="${width / 2}" height="${height}" fill="#c63"/><rect x="${width / 2}" width="${width / 2}" height="${height}" fill="#369"/>` +
      `<text x="${width / 10}" y="${height / 2}" font-size="${Math.round(height / 8)}" fill="#fff">${label}</text></svg>`,
  );
}

/**
 * A 3000 x 2000 camera JPEG stored sideways: EXIF orientation 6 (shown rotated a quarter turn clockwise, so
 * 2000 x 3000), a Display P3 colour profile, and EXIF fields (camera make, copyright) derivatives must drop.
 */
export async function cameraJpeg(label = 'Facade'): Promise<Picture> {
  const bytes = await sharp(drawing(3000, 2000, label))
    .withIccProfile('p3')
    .withExif({ IFD0: { Make: 'TestCam', Copyright: 'Photographer' } })
    .withMetadata({ orientation: 6 })
    .jpeg({ quality: 85 })
    .toBuffer();
  return { bytes, contentType: 'image/jpeg', width: 3000, height: 2000 };
}

/** A 300 x 200 PNG: narrower than every width, so never enlarged. */
export async function smallPng(label = 'Logo'): Promise<Picture> {
  const bytes = await sharp(drawing(300, 200, label))
    .png()
    .toBuffer();
  return { bytes, contentType: 'image/png', width: 300, height: 200 };
}

export async function storePicture(blobStore: BlobStore, picture: Picture): Promise<BlobInfo> {
  return blobStore.put(Readable.from([picture.bytes]), { contentType: picture.contentType });
}

/** The ImageRef an upload of the stored picture records: its key is the blob's SHA-256. */
export function imageRefOf(stored: BlobInfo, picture: Picture, fileName = 'picture'): ImageRef {
  return {
    key: stored.sha256,
    file_name: `${fileName}.${picture.contentType.slice('image/'.length).replace('jpeg', 'jpg')}`,
    content_type: picture.contentType,
    width: picture.width,
    height: picture.height,
    size_bytes: picture.bytes.length,
  };
}

/** All of a stream's bytes. */
export async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
