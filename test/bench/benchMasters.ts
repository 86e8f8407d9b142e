/**
 * Camera-like masters for the media benchmark: 3000 x 2000 JPEGs (quality 90, Display P3 profile, about 2 MB)
 * whose content costs what a photo costs to decode and encode (smooth gradients, hard-edged shapes, film
 * grain), never a flat colour. The same index always gives the same bytes, and no two indexes the same.
 *
 * Drawing a scene (and converting it to Display P3) takes a few hundred milliseconds, so a few scenes are drawn
 * once and each master is one of them with its own patch of changed pixels (a seeded rectangle, tinted), then
 * encoded with the profile spliced in: every master is a distinct picture at the cost of one JPEG encode.
 */
import sharp from 'sharp';
import { Random } from '../../src/seed/random.js';

export const MASTER_WIDTH = 3000;
export const MASTER_HEIGHT = 2000;
const SCENES = 8;
const CHANNELS = 3;

/** Gaussian-ish grain (sum of three uniforms), tiled over the scene with soft-light blending. */
async function grainTile(): Promise<Buffer> {
  const size = 509;
  const random = new Random(7);
  const grain = Buffer.alloc(size * size);
  for (let index = 0; index < grain.length; index += 1)
    grain[index] = 128 + Math.round((random.next() + random.next() + random.next() - 1.5) * 40);
  return sharp(grain, { raw: { width: size, height: size, channels: 1 } })
    .png()
    .toBuffer();
}

/** A sky-to-ground gradient with blotches, translucent blocks over it, and grain: raw Display P3 pixels. */
async function scene(seed: number, grain: Buffer): Promise<Buffer> {
  const random = new Random(seed);
  const [columns, rows] = [24, 16];
  const top = [random.int(60, 200), random.int(100, 220), random.int(150, 255)];
  const bottom = [random.int(40, 160), random.int(40, 140), random.int(20, 110)];
  const coarse = Buffer.alloc(columns * rows * CHANNELS);
  for (let y = 0; y < rows; y += 1)
    for (let x = 0; x < columns; x += 1)
      for (let channel = 0; channel < CHANNELS; channel += 1) {
        const mix = y / (rows - 1);
        const value = top[channel]! * (1 - mix) + bottom[channel]! * mix + random.int(-35, 35);
        coarse[(y * columns + x) * CHANNELS + channel] = Math.max(0, Math.min(255, Math.round(value)));
      }
  let blocks = '';
  for (let block = 0; block < 40; block += 1) {
    const fill = `rgb(${random.int(0, 255)},${random.int(0, 255)},${random.int(0, 255)})`;
    blocks +=
      `<rect x="${random.int(0, MASTER_WIDTH)}" y="${random.int(0, MASTER_HEIGHT)}" width="${random.int(40, 600)}" ` +
      `height="${random.int(40, 900)}" fill="${fill}" fill-opacity="${random.float(0.2, 0.8).toFixed(2)}"/>`;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${MASTER_WIDTH}" height="${MASTER_HEIGHT}">${blocks}</svg>`;
  return sharp(coarse, { raw: { width: columns, height: rows, channels: CHANNELS } })
    .resize(MASTER_WIDTH, MASTER_HEIGHT, { kernel: 'cubic' })
    .composite([{ input: Buffer.from(svg) }, { input: grain, tile: true, blend: 'soft-light' }])
    .removeAlpha()
    .withIccProfile('p3')
    .raw()
    .toBuffer();
}

/** sharp's Display P3 profile, as it embeds it. */
async function p3Profile(): Promise<Buffer> {
  const sample = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
    .withIccProfile('p3')
    .jpeg()
    .toBuffer();
  const { icc } = await sharp(sample).metadata();
  if (!icc) throw new Error('sharp embedded no Display P3 profile');
  return icc;
}

/** The JPEG with an ICC profile (one APP2 segment) after its JFIF header, as cameras write it. */
function withProfile(jpeg: Buffer, profile: Buffer): Buffer {
  const jfif = jpeg[2] === 0xff && jpeg[3] === 0xe0 ? 2 + jpeg.readUInt16BE(4) : 0;
  const insertAt = 2 + jfif;
  const marker = Buffer.from('ICC_PROFILE\0', 'latin1');
  const header = Buffer.alloc(4);
  header.writeUInt16BE(0xffe2, 0);
  header.writeUInt16BE(2 + marker.length + 2 + profile.length, 2);
  return Buffer.concat([jpeg.subarray(0, insertAt), header, marker, Buffer.from([1, 1]), profile, jpeg.subarray(insertAt)]);
}

/** Draws the scenes (a few seconds), then answers master `index`'s JPEG bytes. */
export async function masterMaker(): Promise<(index: number) => Promise<Buffer>> {
  const grain = await grainTile();
  const profile = await p3Profile();
  const scenes = await Promise.all(Array.from({ length: SCENES }, (_, index) => scene(1000 + index, grain)));
  return async (index) => {
    const pixels = Buffer.from(scenes[index % SCENES]!);
    const random = new Random(50_000 + index);
    const [width, height] = [random.int(200, 600), random.int(200, 600)];
    const [left, top] = [random.int(0, MASTER_WIDTH - width), random.int(0, MASTER_HEIGHT - height)];
    const tint = [random.int(1, 255), random.int(1, 255), random.int(1, 255)];
    for (let y = top; y < top + height; y += 1)
      for (let x = left; x < left + width; x += 1)
        for (let channel = 0; channel < CHANNELS; channel += 1) {
          const offset = (y * MASTER_WIDTH + x) * CHANNELS + channel;
          pixels[offset] = (pixels[offset]! + tint[channel]!) >> 1;
        }
    const jpeg = await sharp(pixels, { raw: { width: MASTER_WIDTH, height: MASTER_HEIGHT, channels: CHANNELS } })
      .jpeg({ quality: 90 })
      .toBuffer();
    return withProfile(jpeg, profile);
  };
}
