import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { BlobStore } from '../blobStore/blobStore.js';
import { Random } from './random.js';

/*
 * The pictures, documents and video of the demo catalogue, made at seed time. Everything is drawn from its
 * inputs alone (fixed seeds, no clock, no timestamps in the files), so the same inputs give the same bytes
 * and so the same content keys on every run. Pictures are SVG drawings that sharp renders into JPEG or PNG
 * masters; documents are small hand-written PDFs; the video is one short MP4 shipped with the code.
 */

export type DemoFileType = 'image/jpeg' | 'image/png' | 'application/pdf' | 'video/mp4';

/** A generated file and the facts an upload would read from it. */
export interface DemoFile {
  bytes: Buffer;
  sha256: string;
  contentType: DemoFileType;
  /** As displayed, i.e. after the EXIF orientation (as uploads and image widths read it); null but for pictures. */
  width: number | null;
  height: number | null;
}

/** A rendered picture: it always has a size. */
export type DemoPictureFile = DemoFile & { width: number; height: number };

/** Facade scenes a project's pictures cycle through; each has its own size and format (see FACADE_SCENES). */
export const FACADE_VARIANTS = 5;
export const FLOOR_PLAN_VARIANTS = 3;
export const FLOOR_PLATE_VARIANTS = 6;

/** A picture of the demo catalogue, by what it shows: equal descriptions give the same master. */
export type DemoPicture =
  | { kind: 'facade'; name: string; variant: number }
  | { kind: 'floorPlan'; unitType: string | null; variant: number }
  | { kind: 'floorPlate'; variant: number }
  | { kind: 'logo'; name: string }
  | { kind: 'banner'; name: string }
  | { kind: 'portrait'; name: string; longHair: boolean };

export const demoPictureId = (picture: DemoPicture): string => JSON.stringify(picture);

export async function renderDemoPicture(picture: DemoPicture): Promise<DemoPictureFile> {
  const random = new Random(seedOf(demoPictureId(picture)));
  switch (picture.kind) {
    case 'facade': {
      const scene = FACADE_SCENES[picture.variant % FACADE_VARIANTS]!;
      const svg = facadeSvg(random, picture.name, scene);
      return scene.exifOrientation ? encodeRotatedJpeg(svg, scene) : encode(svg, scene.format, scene);
    }
    case 'floorPlan': {
      const size = FLOOR_PLAN_SIZES[picture.variant % FLOOR_PLAN_SIZES.length]!;
      return encode(floorPlanSvg(random, picture.unitType, size), 'png', size);
    }
    case 'floorPlate':
      return encode(floorPlateSvg(random, FLOOR_PLATE_SIZE), 'png', FLOOR_PLATE_SIZE);
    case 'logo': {
      // A third of the logos are narrower than the smallest width (400 px), so no width is ever upscaled.
      const side = random.chance(1 / 3) ? 320 : 512;
      return encode(logoSvg(random, picture.name, side), 'png', { width: side, height: side });
    }
    case 'banner': {
      // Half are wider than the largest width (2560 px), so that the `.webp` width is a real resize.
      const size = random.chance(0.5) ? { width: 2700, height: 900 } : { width: 1800, height: 600 };
      return encode(bannerSvg(random, picture.name, size), 'jpeg', size);
    }
    case 'portrait':
      return encode(portraitSvg(random, picture, PORTRAIT_SIZE), 'jpeg', PORTRAIT_SIZE);
  }
}

// Files through the blob store.

/** What the blob store holds for a demo file: the facts a file ref of the catalogue repeats. */
export interface StoredDemoFile {
  key: string;
  content_type: DemoFileType;
  size_bytes: number;
}

export interface StoredDemoPicture extends StoredDemoFile {
  width: number;
  height: number;
}

/**
 * Pictures rendered by description, each once, a few at a time: a picture asked for now goes before the
 * ones rendered ahead of need. Rendering is deterministic, so one instance can serve several seeds (tests
 * seeding many catalogues share one).
 */
export class DemoPictureRenders {
  private readonly rendered = new Map<string, Promise<DemoPictureFile>>();
  private readonly queue = new TaskQueue<DemoPictureFile>(RENDER_CONCURRENCY);

  /** Starts rendering pictures that will be asked for (or raises the ones already waiting to `priority`). */
  ahead(pictures: readonly DemoPicture[], priority: Exclude<Priority, 'now'>): void {
    for (const picture of pictures) {
      // A failure is reported to whoever asks for the picture, not as an unhandled rejection.
      this.render(picture, priority).catch(() => undefined);
    }
  }

  get(picture: DemoPicture): Promise<DemoPictureFile> {
    return this.render(picture, 'now');
  }

  private render(picture: DemoPicture, priority: Priority): Promise<DemoPictureFile> {
    const id = demoPictureId(picture);
    const rendered = this.rendered.get(id);
    if (rendered) {
      this.queue.raise(rendered, priority);
      return rendered;
    }
    const scheduled = this.queue.schedule(() => renderDemoPicture(picture), priority);
    this.rendered.set(id, scheduled);
    return scheduled;
  }
}

/** sharp renders off the main thread; two at a time leaves the seed's own work a core on a small machine. */
const RENDER_CONCURRENCY = 2;

/**
 * Puts mostly wait for the disk (fsync); several at once let the file system commit them together. Files
 * stored ahead of need take fewer slots, leaving the disk and Node's small thread pool to the work at hand.
 */
const PUT_CONCURRENCY = 8;
const PUT_AHEAD_CONCURRENCY = 2;

/** The facts of a file just stored, as an upload reads them (src/catalogue/storedFiles.ts: StoredFileFacts). */
export interface StoredFacts {
  content_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
}

export interface DemoMediaOptions {
  /** Pictures already rendered, to reuse. */
  renders?: DemoPictureRenders;
  /** Told the facts of every file once it is stored (as an upload tells the stored-file check). */
  onStored?: (key: string, facts: StoredFacts) => void;
}

/** Stores the demo files in a blob store, each distinct file once however many projects name it. */
export class DemoMedia {
  private readonly stored = new Map<string, Promise<StoredDemoFile>>();
  private readonly puts = new TaskQueue<StoredDemoFile>(PUT_CONCURRENCY, PUT_AHEAD_CONCURRENCY);
  private readonly renders: DemoPictureRenders;

  constructor(
    private readonly blobStore: BlobStore,
    private readonly options: DemoMediaOptions = {},
  ) {
    this.renders = options.renders ?? new DemoPictureRenders();
  }

  /** Renders pictures ahead of need (`soon` before `later`); none is stored before it is asked for. */
  renderAhead(pictures: readonly DemoPicture[], priority: Exclude<Priority, 'now'> = 'later'): void {
    this.renders.ahead(pictures, priority);
  }

  async picture(picture: DemoPicture): Promise<StoredDemoPicture> {
    const rendered = await this.renders.get(picture);
    const stored = await this.store(rendered);
    return { ...stored, width: rendered.width, height: rendered.height };
  }

  /** Stores a generated document (or any other demo file); equal bytes are stored once. */
  file(file: DemoFile): Promise<StoredDemoFile> {
    return this.store(file);
  }

  /** Starts storing a file that will be asked for later, behind the files asked for now; see hurry(). */
  fileAhead(file: DemoFile): Promise<StoredDemoFile> {
    const stored = this.store(file, 'later');
    // A failure is reported to whoever awaits the file, not as an unhandled rejection.
    stored.catch(() => undefined);
    return stored;
  }

  /** Moves a file stored ahead (by fileAhead) to the front, as if asked for now. */
  hurry(stored: Promise<StoredDemoFile>): Promise<StoredDemoFile> {
    this.puts.raise(stored, 'now');
    return stored;
  }

  /** The walkthrough video shared by the projects that have a video file. */
  async video(): Promise<StoredDemoFile> {
    return this.store(await demoVideo());
  }

  private store(file: DemoFile, priority: Priority = 'now'): Promise<StoredDemoFile> {
    const stored = this.stored.get(file.sha256);
    if (stored) {
      this.puts.raise(stored, priority);
      return stored;
    }
    const scheduled = this.puts.schedule(() => this.put(file), priority);
    this.stored.set(file.sha256, scheduled);
    return scheduled;
  }

  private async put(file: DemoFile): Promise<StoredDemoFile> {
    const info = await this.blobStore.put(Readable.from([file.bytes]), { contentType: file.contentType });
    // The address is the content's hash, so the stored bytes are the generated ones and their facts hold.
    if (info.sha256 !== file.sha256) throw new Error(`The blob store stored ${file.sha256} as ${info.sha256}.`);
    const stored = { key: info.sha256, content_type: file.contentType, size_bytes: info.size };
    this.options.onStored?.(stored.key, {
      content_type: stored.content_type,
      size_bytes: stored.size_bytes,
      width: file.width,
      height: file.height,
    });
    return stored;
  }
}

/** How soon a task's result is wanted: asked for now, by the projects planned next, or some time later. */
export type Priority = 'now' | 'soon' | 'later';
const PRIORITIES: readonly Priority[] = ['now', 'soon', 'later'];

/**
 * Runs at most `concurrency` tasks at once, the most wanted first; a `later` task starts only while fewer
 * than `laterConcurrency` tasks run.
 */
class TaskQueue<Result> {
  private running = 0;
  private readonly waiting: Record<Priority, Array<() => void>> = { now: [], soon: [], later: [] };
  private readonly pending = new Map<Promise<Result>, { start: () => void; priority: Priority }>();

  constructor(
    private readonly concurrency: number,
    private readonly laterConcurrency = concurrency,
  ) {}

  schedule(task: () => Promise<Result>, priority: Priority): Promise<Result> {
    let start!: () => void;
    const result = new Promise<Result>((resolve, reject) => {
      start = () => {
        this.pending.delete(result);
        this.running += 1;
        task()
          .then(resolve, reject)
          .finally(() => {
            this.running -= 1;
            this.next();
          });
      };
    });
    this.pending.set(result, { start, priority });
    this.waiting[priority].push(start);
    this.next();
    return result;
  }

  /** Moves a task still waiting up to `priority` (never down). */
  raise(result: Promise<Result>, priority: Priority): void {
    const task = this.pending.get(result);
    if (!task || PRIORITIES.indexOf(priority) >= PRIORITIES.indexOf(task.priority)) return;
    const queue = this.waiting[task.priority];
    queue.splice(queue.indexOf(task.start), 1);
    this.waiting[priority].push(task.start);
    task.priority = priority;
    this.next();
  }

  private next(): void {
    for (;;) {
      const priority = PRIORITIES.find((candidate) => this.waiting[candidate].length > 0);
      if (!priority || this.running >= (priority === 'later' ? this.laterConcurrency : this.concurrency)) return;
      this.waiting[priority].shift()!();
    }
  }
}

// Encoding.

interface Size {
  width: number;
  height: number;
}

const JPEG_QUALITY = 84;

async function encode(svg: string, format: 'jpeg' | 'png', size: Size): Promise<DemoPictureFile> {
  const image = sharp(Buffer.from(svg));
  const bytes =
    format === 'jpeg' ? await image.jpeg({ quality: JPEG_QUALITY, optimiseCoding: false }).toBuffer() : await image.png().toBuffer();
  return imageFile(bytes, format === 'jpeg' ? 'image/jpeg' : 'image/png', size);
}

/**
 * A JPEG whose pixels are stored turned a quarter to the left with EXIF orientation 6 (turn right to
 * display), as phone cameras write them: shown the right way up only by a reader that auto-orients.
 */
async function encodeRotatedJpeg(svg: string, size: Size): Promise<DemoPictureFile> {
  const bytes = await sharp(Buffer.from(svg))
    .rotate(270)
    .jpeg({ quality: JPEG_QUALITY, optimiseCoding: false })
    .withMetadata({ orientation: 6 })
    .toBuffer();
  return imageFile(bytes, 'image/jpeg', size);
}

function imageFile(bytes: Buffer, contentType: DemoFileType, size: Size): DemoPictureFile {
  return { bytes, sha256: sha256(bytes), contentType, width: size.width, height: size.height };
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** A 32-bit seed from a picture's description, so that each picture draws its own details. */
function seedOf(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

// Drawings. Coordinates are pixels of the master; sizes follow the picture so small masters stay legible.

const FONT = 'DejaVu Sans';

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const n = (value: number): string => String(Math.round(value * 10) / 10);

function svgDocument(size: Size, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" viewBox="0 0 ${size.width} ${size.height}">${body}</svg>`;
}

function rect(x: number, y: number, width: number, height: number, fill: string, extra = ''): string {
  return `<rect x="${n(x)}" y="${n(y)}" width="${n(width)}" height="${n(height)}" fill="${fill}"${extra}/>`;
}

function text(x: number, y: number, size: number, fill: string, content: string, extra = ''): string {
  return `<text x="${n(x)}" y="${n(y)}" font-family="${FONT}" font-size="${n(size)}" fill="${fill}"${extra}>${escapeXml(content)}</text>`;
}

/** The font size at which `content` in bold fills at most `width` (DejaVu Sans Bold: ~0.68 em per capital). */
const fitted = (content: string, width: number, max: number): number => Math.min(max, width / (Math.max(content.length, 1) * 0.68));

interface FacadeScene extends Size {
  format: 'jpeg' | 'png';
  sky: [top: string, horizon: string];
  glass: string;
  /** Share of windows with the lights on. */
  lit: number;
  sun: string | null;
  exifOrientation?: true;
}

/**
 * One scene per variant, with sizes chosen so the image widths matter: wider than 2560 px, ordinary, a
 * portrait stored rotated with an EXIF orientation, and narrower than 800 px (no width is upscaled).
 */
const FACADE_SCENES: FacadeScene[] = [
  { width: 1920, height: 1080, format: 'jpeg', sky: ['#4f93d8', '#cde6f7'], glass: '#2f5d85', lit: 0, sun: null },
  { width: 2600, height: 1463, format: 'jpeg', sky: ['#e9784a', '#fbd38d'], glass: '#5b4a5e', lit: 0.12, sun: '#fff1c2' },
  { width: 1600, height: 1200, format: 'png', sky: ['#6aaee8', '#eef6fb'], glass: '#3c6e99', lit: 0, sun: '#fffbe6' },
  {
    width: 1080,
    height: 1440,
    format: 'jpeg',
    sky: ['#27345e', '#d98c6a'],
    glass: '#2c3350',
    lit: 0.45,
    sun: null,
    exifOrientation: true,
  },
  { width: 640, height: 427, format: 'jpeg', sky: ['#8cc2e8', '#f8e7c9'], glass: '#35577a', lit: 0, sun: null },
];

const MATERIALS = ['#d8c3a5', '#eceae4', '#c98b6b', '#a9b1b8', '#e2d3b8', '#b9c7cf', '#d6b98f'];

function facadeSvg(random: Random, name: string, scene: FacadeScene): string {
  const { width: w, height: h } = scene;
  const unit = Math.min(w, h);
  const horizon = h * 0.8;
  const parts: string[] = [
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${scene.sky[0]}"/><stop offset="1" stop-color="${scene.sky[1]}"/></linearGradient></defs>`,
    rect(0, 0, w, h, 'url(#sky)'),
  ];
  if (scene.sun)
    parts.push(`<circle cx="${n(w * random.float(0.1, 0.3))}" cy="${n(horizon * 0.55)}" r="${n(unit * 0.07)}" fill="${scene.sun}"/>`);

  // A hazy skyline behind the building.
  for (let x = -w * 0.02; x < w; x += w * random.float(0.05, 0.09)) {
    const towerHeight = h * random.float(0.18, 0.5);
    parts.push(rect(x, horizon - towerHeight, w * random.float(0.04, 0.07), towerHeight, '#9fb3c8', ' fill-opacity="0.55"'));
  }

  const portrait = h > w;
  const towerWidth = w * (portrait ? 0.5 : 0.28);
  const centre = w / 2 + w * random.float(-0.08, 0.08);
  if (random.chance(0.6)) {
    const side = centre < w / 2 ? 1 : -1;
    parts.push(tower(random, scene, centre + side * towerWidth * 1.05, towerWidth * 0.7, h * random.float(0.3, 0.42), horizon, null));
  }
  parts.push(tower(random, scene, centre, towerWidth, h * 0.12, horizon, name.toUpperCase()));

  // Street: pavement, road with lane marks, palms.
  parts.push(rect(0, horizon, w, h * 0.06, '#d8cfbd'), rect(0, horizon + h * 0.06, w, h - horizon, '#5f6368'));
  for (let x = w * 0.02; x < w; x += w * 0.09) parts.push(rect(x, h * 0.93, w * 0.045, h * 0.008, '#f2f2f2'));
  const palms = random.int(3, 6);
  for (let index = 0; index < palms; index++)
    parts.push(palm(w * ((index + 0.5) / palms) + w * random.float(-0.03, 0.03), horizon + h * 0.04, h * 0.22));
  return svgDocument(scene, parts.join(''));
}

function tower(
  random: Random,
  scene: FacadeScene,
  centre: number,
  width: number,
  top: number,
  bottom: number,
  sign: string | null,
): string {
  const { width: w, height: h } = scene;
  const left = centre - width / 2;
  const material = random.pick(MATERIALS);
  const crown = sign ? h * 0.07 : h * 0.02;
  const podium = h * 0.09;
  const parts = [rect(left, top, width, bottom - top, material)];
  parts.push(rect(left - width * 0.05, top, width * 1.1, crown, '#3b3f45'));
  if (sign) {
    const size = fitted(sign, width * 0.9, crown * 0.62);
    parts.push(text(centre, top + crown / 2 + size * 0.36, size, '#ffffff', sign, ' font-weight="bold" text-anchor="middle"'));
  }

  // The window grid is one tile (a window and a balcony line) repeated, which renders far faster than a
  // shape per window; whole pixels keep the tiles sharp. Lit windows are drawn over it.
  const floorHeight = Math.max(Math.round(h * 0.026), 9);
  const columns = Math.max(3, Math.round(width / (floorHeight * 1.5)));
  const columnWidth = Math.floor(width / columns);
  const gridLeft = Math.round(centre - (columns * columnWidth) / 2);
  const gridTop = Math.round(top + crown + floorHeight * 0.4);
  const floors = Math.floor((bottom - podium - gridTop) / floorHeight);
  const windows = `windows-${gridLeft}`;
  const pane = { x: columnWidth * 0.14, y: floorHeight * 0.12, width: columnWidth * 0.72, height: floorHeight * 0.64 };
  parts.push(
    `<defs><pattern id="${windows}" x="${gridLeft}" y="${gridTop}" width="${columnWidth}" height="${floorHeight}" patternUnits="userSpaceOnUse">` +
      rect(pane.x, pane.y, pane.width, pane.height, scene.glass) +
      rect(0, floorHeight * 0.82, columnWidth, floorHeight * 0.1, '#ffffff', ' fill-opacity="0.6"') +
      '</pattern></defs>',
    rect(gridLeft, gridTop, columns * columnWidth, floors * floorHeight, `url(#${windows})`),
  );
  for (let floor = 0; floor < floors && scene.lit > 0; floor++) {
    for (let column = 0; column < columns; column++) {
      if (random.chance(scene.lit)) {
        parts.push(
          rect(gridLeft + column * columnWidth + pane.x, gridTop + floor * floorHeight + pane.y, pane.width, pane.height, '#ffd27a'),
        );
      }
    }
  }
  // Podium with shop fronts.
  const podiumWidth = width * 1.5;
  parts.push(rect(centre - podiumWidth / 2, bottom - podium, podiumWidth, podium, '#6e6a64'));
  for (let x = centre - podiumWidth / 2 + w * 0.01; x < centre + podiumWidth / 2 - w * 0.03; x += w * 0.035) {
    parts.push(rect(x, bottom - podium * 0.75, w * 0.026, podium * 0.75, '#9cc3d9'));
  }
  return parts.join('');
}

function palm(x: number, ground: number, height: number): string {
  const topY = ground - height;
  const lean = height * 0.08;
  const fronds = [-150, -115, -80, -45, -10, 20, 200, 160]
    .map(
      (angle) =>
        `<ellipse cx="${n(x + lean + Math.cos((angle * Math.PI) / 180) * height * 0.16)}" cy="${n(topY + Math.sin((angle * Math.PI) / 180) * height * 0.08 + height * 0.03)}" rx="${n(height * 0.17)}" ry="${n(height * 0.035)}" fill="#3f7d3a" transform="rotate(${angle > 90 ? angle - 180 : angle} ${n(x + lean)} ${n(topY)})"/>`,
    )
    .join('');
  return `<path d="M${n(x)} ${n(ground)} Q${n(x - lean)} ${n(ground - height / 2)} ${n(x + lean)} ${n(topY)}" stroke="#7a5a3a" stroke-width="${n(height * 0.045)}" fill="none"/>${fronds}`;
}

const FLOOR_PLAN_SIZES: Size[] = [
  { width: 2000, height: 1500 },
  { width: 1400, height: 1050 },
  { width: 1800, height: 1350 },
];

/** Bedrooms drawn for a unit type; offices and shops are drawn as open space. */
function bedroomsOf(unitType: string | null): number | 'open' {
  if (unitType === null) return 2;
  if (unitType === 'Studio') return 0;
  if (unitType === 'Office' || unitType === 'Retail') return 'open';
  if (unitType === 'Duplex') return 3;
  return Math.min(Number.parseInt(unitType, 10) || 1, 5);
}

function floorPlanSvg(random: Random, unitType: string | null, size: Size): string {
  const { width: w, height: h } = size;
  const unit = Math.min(w, h);
  const wall = unit * 0.012;
  const x0 = w * 0.08;
  const y0 = h * 0.08;
  const planWidth = w * 0.84;
  const planHeight = h * 0.7;
  const label = unit * 0.026;
  const stroke = (width: number) => ` fill="none" stroke="#2b2b2b" stroke-width="${n(width)}"`;
  /** A room and its name; the name sits at `labelAt` (shares of the room) to keep clear of the furniture. */
  const room = (x: number, y: number, roomWidth: number, roomHeight: number, name: string, labelAt: [number, number] = [0.5, 0.5]) => {
    const labelX = x + roomWidth * labelAt[0];
    const labelY = y + roomHeight * labelAt[1];
    return (
      `<rect x="${n(x)}" y="${n(y)}" width="${n(roomWidth)}" height="${n(roomHeight)}"${stroke(wall * 0.55)}/>` +
      text(labelX, labelY, label, '#333333', name, ' font-weight="bold" text-anchor="middle"') +
      text(
        labelX,
        labelY + label * 1.4,
        label * 0.75,
        '#777777',
        `${metres(roomWidth, planWidth)} x ${metres(roomHeight, planWidth)} m`,
        ' text-anchor="middle"',
      )
    );
  };
  const parts = [rect(0, 0, w, h, '#ffffff'), rect(x0, y0, planWidth, planHeight, '#fbfaf6')];

  const bedrooms = bedroomsOf(unitType);
  if (bedrooms === 'open') {
    parts.push(room(x0, y0, planWidth * 0.7, planHeight, unitType === 'Retail' ? 'SHOP FLOOR' : 'OPEN OFFICE'));
    parts.push(room(x0 + planWidth * 0.7, y0, planWidth * 0.3, planHeight * 0.5, unitType === 'Retail' ? 'STORE' : 'MEETING'));
    parts.push(room(x0 + planWidth * 0.7, y0 + planHeight * 0.5, planWidth * 0.3, planHeight * 0.5, 'WC'));
    for (let desk = 0; desk < 6; desk++)
      parts.push(
        rect(
          x0 + planWidth * (0.06 + (desk % 3) * 0.2),
          y0 + planHeight * (0.2 + Math.floor(desk / 3) * 0.4),
          planWidth * 0.12,
          planHeight * 0.12,
          '#e4ded2',
        ),
      );
  } else {
    const livingWidth = planWidth * (bedrooms === 0 ? 1 : random.float(0.5, 0.58));
    const kitchenHeight = planHeight * 0.38;
    parts.push(room(x0, y0, livingWidth * 0.6, kitchenHeight, 'KITCHEN'));
    parts.push(room(x0 + livingWidth * 0.6, y0, livingWidth * 0.4, kitchenHeight, 'BATH', [0.5, 0.3]));
    parts.push(room(x0, y0 + kitchenHeight, livingWidth, planHeight - kitchenHeight, bedrooms === 0 ? 'STUDIO' : 'LIVING / DINING'));
    // Counter, sofa and bath tub.
    parts.push(rect(x0 + wall, y0 + wall, livingWidth * 0.5, kitchenHeight * 0.16, '#d9d2c3'));
    parts.push(
      `<rect x="${n(x0 + livingWidth * 0.12)}" y="${n(y0 + planHeight * 0.82)}" width="${n(livingWidth * 0.45)}" height="${n(planHeight * 0.1)}" rx="${n(unit * 0.01)}" fill="#d9d2c3"/>`,
    );
    parts.push(
      `<rect x="${n(x0 + livingWidth * 0.64)}" y="${n(y0 + kitchenHeight * 0.58)}" width="${n(livingWidth * 0.32)}" height="${n(kitchenHeight * 0.34)}" rx="${n(unit * 0.015)}" fill="#dfe9ef" stroke="#8aa2b1"/>`,
    );
    const bedroomHeight = planHeight / Math.max(bedrooms, 1);
    for (let index = 0; index < bedrooms; index++) {
      const x = x0 + livingWidth;
      const y = y0 + index * bedroomHeight;
      const bedroomWidth = planWidth - livingWidth;
      parts.push(room(x, y, bedroomWidth, bedroomHeight, index === 0 ? 'MASTER BEDROOM' : `BEDROOM ${index + 1}`, [0.33, 0.5]));
      parts.push(rect(x + bedroomWidth * 0.64, y + bedroomHeight * 0.18, bedroomWidth * 0.3, bedroomHeight * 0.64, '#e8e1d3'));
      parts.push(
        rect(x + bedroomWidth * 0.86, y + bedroomHeight * 0.22, bedroomWidth * 0.06, bedroomHeight * 0.56, '#ffffff', ' stroke="#bbbbbb"'),
      );
      // A door from the living room: a gap in the wall and its swing.
      const door = Math.min(bedroomHeight * 0.3, unit * 0.07);
      const doorY = y + bedroomHeight * 0.1;
      parts.push(rect(x - wall * 0.4, doorY, wall * 0.8, door, '#fbfaf6'));
      parts.push(
        `<path d="M${n(x)} ${n(doorY)} L${n(x + door)} ${n(doorY)} A${n(door)} ${n(door)} 0 0 1 ${n(x)} ${n(doorY + door)}" fill="none" stroke="#888888" stroke-width="${n(wall * 0.25)}"/>`,
      );
    }
  }
  parts.push(`<rect x="${n(x0)}" y="${n(y0)}" width="${n(planWidth)}" height="${n(planHeight)}"${stroke(wall)}/>`);
  // Balcony along the bottom, then the title block.
  parts.push(
    `<rect x="${n(x0)}" y="${n(y0 + planHeight)}" width="${n(planWidth * 0.6)}" height="${n(h * 0.06)}" fill="#f1efe9" stroke="#2b2b2b" stroke-dasharray="${n(wall)} ${n(wall)}" stroke-width="${n(wall * 0.4)}"/>`,
  );
  parts.push(text(x0 + planWidth * 0.3, y0 + planHeight + h * 0.04, label * 0.8, '#555555', 'BALCONY', ' text-anchor="middle"'));
  const title = `${(unitType ?? 'Typical floor').toUpperCase()}  -  FLOOR PLAN`;
  parts.push(text(x0, h * 0.95, fitted(title, planWidth * 0.7, unit * 0.045), '#1d3557', title, ' font-weight="bold"'));
  const area = bedrooms === 'open' ? random.int(800, 4_000) : random.int(420 + (bedrooms || 0) * 450, 700 + (bedrooms || 0) * 650);
  parts.push(
    text(x0 + planWidth, h * 0.95, unit * 0.032, '#555555', `Total area ${area.toLocaleString('en-US')} sq ft`, ' text-anchor="end"'),
  );
  // North arrow.
  const arrow = unit * 0.03;
  parts.push(`<path d="M${n(w - x0 * 0.5)} ${n(y0 * 0.35)} l${n(arrow * 0.5)} ${n(arrow * 1.4)} l${n(-arrow)} 0 z" fill="#1d3557"/>`);
  parts.push(text(w - x0 * 0.5, y0 * 0.35 + arrow * 2.4, arrow, '#1d3557', 'N', ' font-weight="bold" text-anchor="middle"'));
  return svgDocument(size, parts.join(''));
}

/** A plan drawn 14 m wide (a typical apartment), so rooms get believable sizes. */
const metres = (length: number, planWidth: number): string => ((length / planWidth) * 14).toFixed(1);

const FLOOR_PLATE_SIZE: Size = { width: 2000, height: 1200 };
const UNIT_COLOURS = ['#f4e3c3', '#dbe8d4', '#d6e4f0', '#f0d9d6'];

function floorPlateSvg(random: Random, size: Size): string {
  const { width: w, height: h } = size;
  const x0 = w * 0.06;
  const y0 = h * 0.1;
  const plateWidth = w * 0.88;
  const plateHeight = h * 0.72;
  const rowHeight = plateHeight * 0.4;
  const perRow = random.int(4, 7);
  const unitWidth = plateWidth / perRow;
  const parts = [rect(0, 0, w, h, '#ffffff'), rect(x0, y0, plateWidth, plateHeight, '#f7f6f2', ' stroke="#2b2b2b" stroke-width="14"')];
  let number = 1;
  for (const y of [y0, y0 + plateHeight - rowHeight]) {
    for (let index = 0; index < perRow; index++) {
      const x = x0 + index * unitWidth;
      parts.push(rect(x, y, unitWidth, rowHeight, random.pick(UNIT_COLOURS), ' stroke="#2b2b2b" stroke-width="6"'));
      parts.push(
        text(
          x + unitWidth / 2,
          y + rowHeight / 2,
          44,
          '#333333',
          String(number++).padStart(2, '0'),
          ' font-weight="bold" text-anchor="middle"',
        ),
      );
      parts.push(
        text(
          x + unitWidth / 2,
          y + rowHeight / 2 + 44,
          26,
          '#666666',
          random.pick(['STUDIO', '1 BED', '2 BED', '3 BED']),
          ' text-anchor="middle"',
        ),
      );
    }
  }
  const coreWidth = plateWidth * 0.3;
  parts.push(
    rect(
      x0 + (plateWidth - coreWidth) / 2,
      y0 + rowHeight + plateHeight * 0.03,
      coreWidth,
      plateHeight * 0.14,
      '#b8b8b8',
      ' stroke="#2b2b2b" stroke-width="6"',
    ),
  );
  parts.push(
    text(
      x0 + plateWidth / 2,
      y0 + rowHeight + plateHeight * 0.12,
      34,
      '#222222',
      'CORE - LIFTS - STAIRS',
      ' font-weight="bold" text-anchor="middle"',
    ),
  );
  parts.push(text(x0, h * 0.95, 52, '#1d3557', 'TYPICAL FLOOR PLATE', ' font-weight="bold"'));
  return svgDocument(size, parts.join(''));
}

const BRAND_COLOURS = ['#1d3557', '#b5838d', '#2a9d8f', '#e76f51', '#6d597a', '#264653', '#c9a227', '#457b9d', '#8d5524'];

function logoSvg(random: Random, name: string, side: number): string {
  const colour = random.pick(BRAND_COLOURS);
  const words = name.split(' ');
  const initials = words
    .slice(0, 2)
    .map((word) => word[0])
    .join('');
  const centre = side / 2;
  const radius = side * 0.26;
  const emblem = random.pick([
    `<circle cx="${n(centre)}" cy="${n(side * 0.36)}" r="${n(radius)}" fill="${colour}"/>`,
    `<rect x="${n(centre - radius)}" y="${n(side * 0.36 - radius)}" width="${n(radius * 2)}" height="${n(radius * 2)}" rx="${n(radius * 0.3)}" fill="${colour}"/>`,
    `<path d="M${n(centre)} ${n(side * 0.36 - radius * 1.2)} L${n(centre + radius * 1.2)} ${n(side * 0.36)} L${n(centre)} ${n(side * 0.36 + radius * 1.2)} L${n(centre - radius * 1.2)} ${n(side * 0.36)} Z" fill="${colour}"/>`,
    `<path d="M${n(centre - radius)} ${n(side * 0.36 + radius)} V${n(side * 0.36)} A${n(radius)} ${n(radius)} 0 0 1 ${n(centre + radius)} ${n(side * 0.36)} V${n(side * 0.36 + radius)} Z" fill="${colour}"/>`,
  ]);
  const lines = words.length > 2 ? [words.slice(0, -1).join(' '), words.at(-1)!] : [name];
  const size = Math.min(...lines.map((line) => fitted(line, side * 0.9, side * 0.085)));
  return svgDocument(
    { width: side, height: side },
    emblem +
      text(centre, side * 0.36 + radius * 0.3, radius * 0.85, '#ffffff', initials, ' font-weight="bold" text-anchor="middle"') +
      lines
        .map((line, index) =>
          text(centre, side * 0.78 + index * size * 1.25, size, '#222222', line.toUpperCase(), ' font-weight="bold" text-anchor="middle"'),
        )
        .join(''),
  );
}

/** 4:5, wider than the 800 px an agent's image_url asks for, so that width is a real resize. */
const PORTRAIT_SIZE: Size = { width: 960, height: 1200 };
const SKIN_TONES = ['#f1c27d', '#e0ac69', '#c68642', '#8d5524', '#ffdbac'];
const HAIR_COLOURS = ['#2b1d14', '#4a3123', '#0f0f0f', '#6b4e2e', '#8c8c8c'];
const BACKDROPS = ['#dfe7ec', '#e8e1d5', '#d9e4dc', '#e6dde8', '#f0e6d8'];

/** An agent's studio portrait: head and shoulders on a plain backdrop, the name on a band below. */
function portraitSvg(random: Random, { name, longHair }: { name: string; longHair: boolean }, size: Size): string {
  const { width: w, height: h } = size;
  const centre = w / 2;
  const headY = h * 0.42;
  const headR = w * 0.17;
  const skin = random.pick(SKIN_TONES);
  const hair = random.pick(HAIR_COLOURS);
  const suit = random.pick(BRAND_COLOURS);
  const hairShape = longHair
    ? `<path d="M${n(centre - headR * 1.15)} ${n(headY + headR * 1.6)} Q${n(centre - headR * 1.3)} ${n(headY - headR * 1.3)} ${n(centre)} ${n(headY - headR * 1.2)} Q${n(centre + headR * 1.3)} ${n(headY - headR * 1.3)} ${n(centre + headR * 1.15)} ${n(headY + headR * 1.6)} Z" fill="${hair}"/>`
    : `<path d="M${n(centre - headR * 1.02)} ${n(headY - headR * 0.1)} Q${n(centre - headR)} ${n(headY - headR * 1.25)} ${n(centre)} ${n(headY - headR * 1.15)} Q${n(centre + headR)} ${n(headY - headR * 1.25)} ${n(centre + headR * 1.02)} ${n(headY - headR * 0.1)} Z" fill="${hair}"/>`;
  const shoulders = `<path d="M${n(w * 0.12)} ${n(h * 0.86)} Q${n(w * 0.14)} ${n(h * 0.62)} ${n(centre)} ${n(h * 0.6)} Q${n(w * 0.86)} ${n(h * 0.62)} ${n(w * 0.88)} ${n(h * 0.86)} Z" fill="${suit}"/>`;
  const collar = `<path d="M${n(centre - w * 0.08)} ${n(h * 0.6)} L${n(centre)} ${n(h * 0.72)} L${n(centre + w * 0.08)} ${n(h * 0.6)} Z" fill="#ffffff"/>`;
  const neck = rect(centre - headR * 0.38, headY + headR * 0.7, headR * 0.76, h * 0.6 - headY - headR * 0.6, skin);
  const label = name.toUpperCase();
  return svgDocument(
    size,
    rect(0, 0, w, h, random.pick(BACKDROPS)) +
      `<circle cx="${n(centre)}" cy="${n(headY)}" r="${n(w * 0.42)}" fill="#ffffff" opacity="0.35"/>` +
      (longHair ? hairShape : '') +
      neck +
      shoulders +
      collar +
      `<circle cx="${n(centre)}" cy="${n(headY)}" r="${n(headR)}" fill="${skin}"/>` +
      (longHair ? '' : hairShape) +
      rect(0, h * 0.86, w, h * 0.14, '#1f2933') +
      text(centre, h * 0.945, fitted(label, w * 0.86, h * 0.05), '#ffffff', label, ' font-weight="bold" text-anchor="middle"'),
  );
}

function bannerSvg(random: Random, name: string, size: Size): string {
  const { width: w, height: h } = size;
  const waterline = h * 0.72;
  const [top, bottom] = random.pick([
    ['#1e3c72', '#f5af7b'],
    ['#3a7bd5', '#d4ecf7'],
    ['#41295a', '#f09a6a'],
    ['#0f4c75', '#bbe1fa'],
  ]);
  const parts = [
    `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${top}"/><stop offset="1" stop-color="${bottom}"/></linearGradient><linearGradient id="water" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2c5d7c"/><stop offset="1" stop-color="#14324a"/></linearGradient></defs>`,
    rect(0, 0, w, waterline, 'url(#sky)'),
    `<circle cx="${n(w * random.float(0.55, 0.9))}" cy="${n(h * 0.45)}" r="${n(h * 0.12)}" fill="#fff4d6" fill-opacity="0.85"/>`,
  ];
  for (let x = 0; x < w; x += w * random.float(0.015, 0.035)) {
    const towerHeight = h * random.float(0.12, random.chance(0.1) ? 0.62 : 0.4);
    const towerWidth = w * random.float(0.012, 0.028);
    parts.push(rect(x, waterline - towerHeight, towerWidth, towerHeight, '#1f2d40'));
    if (towerHeight > h * 0.45)
      parts.push(rect(x + towerWidth * 0.45, waterline - towerHeight - h * 0.08, towerWidth * 0.1, h * 0.08, '#1f2d40'));
  }
  parts.push(rect(0, waterline, w, h - waterline, 'url(#water)'));
  for (let line = 0; line < 14; line++) {
    parts.push(
      rect(
        w * random.float(0, 0.9),
        waterline + h * random.float(0.02, 0.25),
        w * random.float(0.03, 0.12),
        h * 0.006,
        '#ffffff',
        ' fill-opacity="0.35"',
      ),
    );
  }
  const titleSize = fitted(name, w * 0.6, h * 0.16);
  parts.push(rect(0, h * 0.06, w * 0.66, titleSize * 2.3, '#000000', ' fill-opacity="0.35"'));
  parts.push(text(w * 0.03, h * 0.06 + titleSize * 1.25, titleSize, '#ffffff', name, ' font-weight="bold"'));
  parts.push(text(w * 0.03, h * 0.06 + titleSize * 1.95, titleSize * 0.38, '#f1f1f1', 'COMMUNITY', ' letter-spacing="6"'));
  return svgDocument(size, parts.join(''));
}

// Documents: small PDFs written by hand (text in the standard Helvetica fonts, shapes as vector paths).

export interface DemoBrochure {
  name: string;
  developer: string;
  place: string;
  /** Short lines listed under "Highlights". */
  highlights: string[];
}

const A4 = { width: 595, height: 842 };

/** A one-page A4 brochure for a project: a coloured cover with a drawing of the building, then highlights. */
export function demoBrochurePdf(brochure: DemoBrochure): DemoFile {
  const random = new Random(seedOf(`brochure ${JSON.stringify(brochure)}`));
  const [red, green, blue] = random.pick(PDF_ACCENTS);
  const page = new PdfPage();
  page.fill(red, green, blue).rect(0, 842 - 330, 595, 330);
  // The building on the cover.
  page.fill(0.93, 0.91, 0.86).rect(360, 842 - 320, 120, 250);
  for (let y = 842 - 300; y < 842 - 80; y += 18) {
    for (let x = 370; x < 470; x += 20) page.fill(0.2, 0.33, 0.47).rect(x, y, 12, 10);
  }
  page.fill(0.25, 0.25, 0.27).rect(350, 842 - 80, 140, 16);
  page.text(40, 842 - 90, 'Helvetica-Bold', fittedPdf(brochure.name, 300, 30), brochure.name, [1, 1, 1]);
  page.text(40, 842 - 120, 'Helvetica', 13, `by ${brochure.developer}`, [1, 1, 1]);
  page.text(40, 842 - 140, 'Helvetica', 13, brochure.place, [1, 1, 1]);
  page.text(40, 842 - 380, 'Helvetica-Bold', 16, 'Highlights', [0.1, 0.1, 0.1]);
  brochure.highlights.forEach((line, index) => {
    page.fill(red, green, blue).rect(42, 842 - 412 - index * 24, 6, 6);
    page.text(58, 842 - 414 - index * 24, 'Helvetica', 12, line, [0.2, 0.2, 0.2]);
  });
  page.fill(0.95, 0.95, 0.95).rect(0, 0, 595, 50);
  page.text(40, 20, 'Helvetica', 9, 'Demo catalogue brochure: a generated sample, not an offer.', [0.4, 0.4, 0.4]);
  return pdfFile(`${brochure.name} brochure`, A4, [page]);
}

/** A landscape master plan of a community: roads, plots by use, a park, water and a legend. */
export function demoMasterPlanPdf(community: string): DemoFile {
  const random = new Random(seedOf(`master plan ${community}`));
  const size = { width: 842, height: 595 };
  const page = new PdfPage();
  page.fill(0.97, 0.96, 0.92).rect(0, 0, 842, 595);
  page.fill(0.62, 0.8, 0.9).rect(0, 0, 842, 70);
  const uses: Array<[string, [number, number, number]]> = [
    ['Residential', [0.96, 0.85, 0.64]],
    ['Villas', [0.93, 0.74, 0.6]],
    ['Retail', [0.86, 0.55, 0.55]],
    ['Park', [0.62, 0.8, 0.55]],
    ['School', [0.7, 0.7, 0.9]],
  ];
  for (let column = 0; column < 6; column++) {
    for (let row = 0; row < 4; row++) {
      const [, colour] = random.pick(uses);
      page.fill(...colour).rect(40 + column * 100, 90 + row * 105, 86, 90);
    }
  }
  page.fill(0.55, 0.55, 0.55);
  for (let column = 0; column <= 6; column++) page.rect(30 + column * 100, 80, 6, 420);
  for (let row = 0; row <= 4; row++) page.rect(30, 80 + row * 105, 606, 6);
  page.text(40, 545, 'Helvetica-Bold', fittedPdf(community, 560, 24), `${community} master plan`, [0.11, 0.21, 0.34]);
  page.text(660, 470, 'Helvetica-Bold', 12, 'Legend', [0.1, 0.1, 0.1]);
  uses.forEach(([use, colour], index) => {
    page.fill(...colour).rect(660, 440 - index * 22, 14, 14);
    page.text(682, 443 - index * 22, 'Helvetica', 11, use, [0.2, 0.2, 0.2]);
  });
  page.text(40, 30, 'Helvetica', 9, 'Demo catalogue: a generated sample master plan, not to scale.', [0.2, 0.2, 0.3]);
  return pdfFile(`${community} master plan`, size, [page]);
}

const PDF_ACCENTS: Array<[number, number, number]> = [
  [0.11, 0.21, 0.34],
  [0.16, 0.62, 0.56],
  [0.91, 0.44, 0.32],
  [0.43, 0.35, 0.48],
  [0.15, 0.27, 0.33],
  [0.71, 0.51, 0.55],
];

/** Helvetica Bold averages ~0.6 em per character. */
const fittedPdf = (content: string, width: number, max: number): number => Math.min(max, width / (Math.max(content.length, 1) * 0.6));

type PdfFont = 'Helvetica' | 'Helvetica-Bold';
const PDF_FONTS: Record<PdfFont, string> = { Helvetica: 'F1', 'Helvetica-Bold': 'F2' };

/** A page's content stream (PDF coordinates: points, origin at the bottom left). */
class PdfPage {
  private readonly operators: string[] = [];

  fill(red: number, green: number, blue: number): this {
    this.operators.push(`${pdfNumber(red)} ${pdfNumber(green)} ${pdfNumber(blue)} rg`);
    return this;
  }

  rect(x: number, y: number, width: number, height: number): this {
    this.operators.push(`${pdfNumber(x)} ${pdfNumber(y)} ${pdfNumber(width)} ${pdfNumber(height)} re f`);
    return this;
  }

  text(x: number, y: number, font: PdfFont, size: number, content: string, [red, green, blue]: [number, number, number]): this {
    this.operators.push(
      `BT /${PDF_FONTS[font]} ${pdfNumber(size)} Tf ${pdfNumber(red)} ${pdfNumber(green)} ${pdfNumber(blue)} rg ${pdfNumber(x)} ${pdfNumber(y)} Td ${pdfString(content)} Tj ET`,
    );
    return this;
  }

  content(): string {
    return this.operators.join('\n');
  }
}

const pdfNumber = (value: number): string => String(Math.round(value * 100) / 100);

/** A literal string in WinAnsi: backslash and parentheses escaped, anything outside printable ASCII as `?`. */
function pdfString(content: string): string {
  return `(${content.replace(/[^\x20-\x7e]/g, '?').replace(/[\\()]/g, (character) => `\\${character}`)})`;
}

/**
 * A PDF 1.4 file: catalog, page tree, the two standard fonts, an Info dictionary with a title and no dates
 * (so the bytes depend on the content alone), one page and content stream per page, the xref table.
 */
function pdfFile(title: string, size: Size, pages: PdfPage[]): DemoFile {
  const fontsAt = 3;
  const firstPageAt = 6;
  const pageIds = pages.map((_, index) => firstPageAt + index * 2);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
    `<< /Title ${pdfString(title)} /Producer (Property catalogue demo seed) >>`,
    ...pages.flatMap((page, index) => {
      const content = page.content();
      return [
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${size.width} ${size.height}] /Resources << /Font << /F1 ${fontsAt} 0 R /F2 ${fontsAt + 1} 0 R >> >> /Contents ${pageIds[index]! + 1} 0 R >>`,
        `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
      ];
    }),
  ];
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets = objects.map((object, index) => {
    const offset = body.length;
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 5 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  // latin1: one byte per character, so the offsets counted above are byte offsets.
  const bytes = Buffer.from(body, 'latin1');
  return { bytes, sha256: sha256(bytes), contentType: 'application/pdf', width: null, height: null };
}

// Video.

/**
 * A four-second 320x180 H.264 walkthrough (a slow pan over a demo facade, no sound), made once with
 * ffmpeg and kept in the repository, so that seeding needs no video tooling.
 */
const DEMO_VIDEO = new URL('./assets/demo-walkthrough.mp4', import.meta.url);

export async function demoVideo(): Promise<DemoFile> {
  const bytes = await readFile(DEMO_VIDEO);
  return { bytes, sha256: sha256(bytes), contentType: 'video/mp4', width: null, height: null };
}
