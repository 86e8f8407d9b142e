import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { BlobStore } from '../blobStore/blobStore.js';

/*
 * The files the demo catalogue's refs name. A stored-file ref must name a blob with the same facts, so the
 * seed stores real files first: one generated picture per size and type the demo uses, one small PDF and one
 * tiny MP4, shared by every project (file names differ per project; keys are the content's SHA-256).
 */

export type PictureType = 'image/jpeg' | 'image/png' | 'image/webp';

export const DEMO_PICTURE_SIZES: ReadonlyArray<readonly [width: number, height: number]> = [
  [1920, 1080],
  [1600, 1200],
  [2400, 1600],
  [1080, 1350],
  [1280, 960],
];
const PICTURE_TYPES: readonly PictureType[] = ['image/jpeg', 'image/png', 'image/webp'];

interface StoredFile {
  key: string;
  size_bytes: number;
}

export interface DemoFiles {
  picture(
    width: number,
    height: number,
    contentType: PictureType,
  ): StoredFile & { content_type: PictureType; width: number; height: number };
  pdf: StoredFile & { content_type: 'application/pdf' };
  video: StoredFile & { content_type: 'video/mp4' };
}

/** Stores the demo files (again storing bytes already stored is a no-op) and answers their refs' facts. */
export async function storeDemoFiles(blobStore: BlobStore): Promise<DemoFiles> {
  const store = async (bytes: Buffer, contentType: string): Promise<StoredFile> => {
    const info = await blobStore.put(Readable.from([bytes]), { contentType });
    return { key: info.sha256, size_bytes: info.size };
  };
  const pictures = new Map<string, StoredFile>();
  for (const [index, [width, height]] of DEMO_PICTURE_SIZES.entries()) {
    for (const type of PICTURE_TYPES)
      pictures.set(`${width}x${height} ${type}`, await store(await picture(width, height, type, index), type));
  }
  const pdf = await store(pdfBytes(), 'application/pdf');
  const video = await store(mp4Bytes(), 'video/mp4');
  return {
    picture(width, height, contentType) {
      const stored = pictures.get(`${width}x${height} ${contentType}`);
      if (!stored) throw new Error(`The demo files have no ${width}x${height} ${contentType} picture.`);
      return { ...stored, content_type: contentType, width, height };
    },
    pdf: { ...pdf, content_type: 'application/pdf' },
    video: { ...video, content_type: 'video/mp4' },
  };
}

/** A building against the sky, drawn as SVG: sky and facade colours vary with `variant`. */
function picture(width: number, height: number, type: PictureType, variant: number): Promise<Buffer> {
  const hue = (variant * 47) % 360;
  const windows: string[] = [];
  const left = width * 0.3;
  const top = height * 0.2;
  for (let row = 0; row < 8; row++) {
    for (let column = 0; column < 6; column++) {
      windows.push(
        `<rect x="${left + width * 0.02 + column * width * 0.065}" y="${top + height * 0.03 + row * height * 0.095}" width="${width * 0.04}" height="${height * 0.06}" fill="hsl(${hue},30%,85%)"/>`,
      );
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="hsl(${hue},60%,55%)"/><stop offset="1" stop-color="hsl(${hue},40%,85%)"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#sky)"/>
    <rect x="${left}" y="${top}" width="${width * 0.4}" height="${height * 0.8}" fill="hsl(${(hue + 180) % 360},20%,35%)"/>
    ${windows.join('')}
  </svg>`;
  const image = sharp(Buffer.from(svg));
  const encoded = type === 'image/jpeg' ? image.jpeg({ quality: 80 }) : type === 'image/png' ? image.png() : image.webp({ quality: 80 });
  return encoded.toBuffer();
}

/** A one-page PDF written out by hand (catalogue, page tree, page, cross-reference table, trailer). */
function pdfBytes(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    streamObject('BT /F1 24 Tf 72 770 Td (Demo brochure) Tj ET'),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const offset = Buffer.byteLength(body);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = Buffer.byteLength(body);
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

const streamObject = (content: string) => `<< /Length ${Buffer.byteLength(content)} >>\nstream\n${content}\nendstream`;

/**
 * An MP4 of a zero-length movie: an `ftyp` box (brand isom) and a `moov` box with its `mvhd` header. It plays
 * nothing, but it is an MP4 by its boxes, as uploads check; a real clip is the demo catalogue's to add.
 */
function mp4Bytes(): Buffer {
  const box = (type: string, payload: Buffer) => {
    const header = Buffer.alloc(8);
    header.writeUInt32BE(8 + payload.length, 0);
    header.write(type, 4, 'latin1');
    return Buffer.concat([header, payload]);
  };
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12); // timescale
  mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
  mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
  [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].forEach((value, index) => mvhd.writeUInt32BE(value, 36 + index * 4));
  mvhd.writeUInt32BE(1, 96); // next track id
  return Buffer.concat([box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2mp41', 'latin1')), box('moov', box('mvhd', mvhd))]);
}
