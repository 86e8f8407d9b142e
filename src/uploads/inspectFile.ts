import { fileTypeFromFile } from 'file-type';
import sharp, { type Metadata } from 'sharp';
import { FileContentMismatch, FileCorrupt } from './uploadErrors.js';
import type { UploadKind } from './uploadKinds.js';

/** What a staged file turned out to be: its content type from its bytes, and for pictures their size. */
export interface InspectedFile {
  contentType: string;
  /** Pictures only: as displayed, i.e. after the EXIF orientation (derived widths are auto-rotated too). */
  width: number | null;
  height: number | null;
}

/** sharp's format names of the picture types an upload takes. */
const SHARP_FORMATS: Record<string, string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp' };

/**
 * Reads what a staged file is, never trusting the client: the magic numbers (file-type) must say the
 * declared content type, and a picture must decode to the end (sharp), which also gives its size. `field`
 * names the request field in the errors.
 */
export async function inspectFile(path: string, kind: UploadKind, declared: string, field: string): Promise<InspectedFile> {
  const detected = (await fileTypeFromFile(path))?.mime ?? null;
  if (detected !== declared) throw new FileContentMismatch(field, declared, detected);
  if (kind !== 'image') return { contentType: detected, width: null, height: null };

  let metadata: Metadata;
  try {
    metadata = await sharp(path).metadata();
    // The header alone can be whole while the rest is cut off or damaged; decoding a small rendition reads
    // every byte (a JPEG is shrunk while it is decoded, so this stays cheap for large pictures).
    await sharp(path, { failOn: 'error' }).resize(64, 64, { fit: 'inside' }).raw().toBuffer();
  } catch {
    throw new FileCorrupt(field, declared);
  }
  if (metadata.format !== SHARP_FORMATS[declared]) throw new FileContentMismatch(field, declared, `image/${metadata.format}`);
  return { contentType: detected, width: metadata.autoOrient.width, height: metadata.autoOrient.height };
}
