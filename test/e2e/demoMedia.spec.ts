import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../support/http.js';
import { killNpmStart, npmStart, NPM_START_PATIENCE_MS, type NpmStart } from '../support/npmStart.js';

/*
 * The demo catalogue's files over HTTP, against the service as the README starts it: `npm start` on a fresh
 * DATA_DIR seeds the demo catalogue (2,000 projects, the default) and writes the demo client's keys to
 * DATA_DIR/demo-api-keys. Every check is on properties of whatever pictures and documents the seed made
 * (sizes, formats and orientations vary), never on particular files.
 */

/** The widths each image address promises: `url` is at most 2560 px wide. */
const WIDTHS = [
  ['url', 2560],
  ['url_1600', 1600],
  ['url_800', 800],
  ['url_400', 400],
] as const;

const ORIGINAL_TYPES: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

interface Image {
  url: string;
  url_1600: string;
  url_800: string;
  url_400: string;
  original_url?: string;
}

interface Fetched {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** A GET exactly as a browser or CDN would send it: no Authorization header. */
async function fetchPublic(url: string, headers: Record<string, string> = {}): Promise<Fetched> {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function demoLiveKey(dataDir: string): string {
  const file = readFileSync(join(dataDir, 'demo-api-keys'), 'utf8');
  const key = /^DEMO_API_KEY_LIVE=(.+)$/m.exec(file)?.[1];
  if (!key) throw new Error('DATA_DIR/demo-api-keys has no DEMO_API_KEY_LIVE line');
  return key;
}

describe('demo media served by npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'catalogue-demo-media-'));
  let service: NpmStart;
  let liveKey: string;

  const api = async (path: string) => {
    const answer = await request(service.origin, `/v1${path}`, { token: liveKey });
    if (answer.status !== 200) throw new Error(`GET /v1${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  };

  /**
   * Every address of one picture: the original is the stored master (its SHA-256 is the key), each width is
   * a decodable WebP of min(width, the master's width as displayed) with the master's aspect, each answers
   * its own ETag with 304, and a width the spec does not list is a 404 in the error body.
   */
  async function expectServed(image: Image, label: string): Promise<void> {
    expect(image.original_url, `${label}: original_url`).toBeDefined();
    for (const address of [image.url, image.url_1600, image.url_800, image.url_400, image.original_url!]) {
      expect(address.startsWith(`${service.origin}/v1/media/`), `${label}: ${address} is built on the service's base URL`).toBe(true);
    }
    const original = /^(?<stem>.+\/(?<key>[0-9a-f]{64}))-original\.(?<ext>jpg|png|webp)$/.exec(image.original_url!)?.groups;
    expect(original, `${label}: ${image.original_url}`).toBeDefined();
    const { stem, key, ext } = original!;

    const master = await fetchPublic(image.original_url!);
    expect(master.status, `${label}: ${image.original_url}`).toBe(200);
    expect(master.headers.get('content-type')).toBe(ORIGINAL_TYPES[ext!]);
    expect(sha256(master.bytes), `${label}: the original's bytes are the ones its key names`).toBe(key);
    // As displayed: derivatives are auto-rotated, so an EXIF orientation swaps the sides.
    const { width: masterWidth, height: masterHeight } = (await sharp(master.bytes).metadata()).autoOrient;

    for (const [field, width] of WIDTHS) {
      const address = image[field];
      expect(address, `${label}: ${field}`).toBe(field === 'url' ? `${stem}.webp` : `${stem}-${width}.webp`);
      const served = await fetchPublic(address);
      expect(served.status, `${label}: ${address}`).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/webp');
      expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(Number(served.headers.get('content-length'))).toBe(served.bytes.length);
      const decoded = await sharp(served.bytes).metadata();
      const expectedWidth = Math.min(width, masterWidth);
      expect({ label, field, format: decoded.format, width: decoded.width }).toEqual({
        label,
        field,
        format: 'webp',
        width: expectedWidth,
      });
      expect(
        Math.abs(decoded.height - (masterHeight * expectedWidth) / masterWidth),
        `${label}: ${field} keeps the aspect`,
      ).toBeLessThanOrEqual(1);
    }

    for (const address of [image.url, image.url_400, image.original_url!]) {
      const etag = (await fetchPublic(address)).headers.get('etag');
      expect(etag, `${label}: ${address} has a strong ETag`).toMatch(/^"[0-9a-f]{64}"$/);
      const revalidated = await fetchPublic(address, { 'if-none-match': etag! });
      expect(revalidated.status, `${label}: If-None-Match ${address}`).toBe(304);
      expect(revalidated.bytes.length).toBe(0);
    }

    const unsupported = await fetchPublic(`${stem}-1200.webp`);
    expect(unsupported.status, `${label}: ${stem}-1200.webp`).toBe(404);
    expect(JSON.parse(unsupported.bytes.toString('utf8'))).toMatchObject({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  }

  beforeAll(async () => {
    service = await npmStart(dataDir, { SEED_DEMO: 'true', SEED_PROJECTS: '2000', LOG_LEVEL: 'warn' });
    liveKey = demoLiveKey(dataDir);
  }, NPM_START_PATIENCE_MS + 60_000);

  afterAll(async () => {
    if (service) {
      service.child.kill('SIGTERM');
      await Promise.race([service.exited, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
      killNpmStart(service);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  /** The first demo project with gallery pictures, floor plans and a brochure (most demo projects have all three). */
  async function findProjectWithFiles(): Promise<{ id: number; media: any; brochure: any }> {
    const candidates = (await api('/projects?per_page=100&sort=name')) as Array<{
      id: number;
      media_count: number;
      floor_plan_count: number;
    }>;
    for (const candidate of candidates.filter((project) => project.media_count > 0 && project.floor_plan_count > 0)) {
      const brochure = await request(service.origin, `/v1/projects/${candidate.id}/brochure`, { token: liveKey });
      if (brochure.status === 200)
        return { id: candidate.id, media: await api(`/projects/${candidate.id}/media`), brochure: brochure.body.data };
    }
    throw new Error('none of the first 100 demo projects has gallery pictures, floor plans and a brochure');
  }
  let chosen: ReturnType<typeof findProjectWithFiles> | undefined;
  const projectWithFiles = () => (chosen ??= findProjectWithFiles());

  it(
    'when a page of a demo project media is read with the demo live key, then every image address in it answers without a key: exact originals, WebP of every width, 304 on its ETag, 404 for another width',
    async () => {
      const { id, media } = await projectWithFiles();
      expect(media.items.length).toBeGreaterThan(0);
      await Promise.all(
        media.items.map((item: { id: number; image: Image }) => expectServed(item.image, `project ${id} media ${item.id}`)),
      );
    },
    NPM_START_PATIENCE_MS,
  );

  it(
    'when a floor plan, a developer logo and a community banner are read, then their images resolve the same way',
    async () => {
      const { id } = await projectWithFiles();
      const floorPlans = (await api(`/projects/${id}/floor-plans`)) as Array<{ id: number; image: Image }>;
      expect(floorPlans.length).toBeGreaterThan(0);
      await expectServed(floorPlans[0]!.image, `project ${id} floor plan ${floorPlans[0]!.id}`);

      const developer = ((await api('/developers?per_page=100')) as Array<{ id: number; logo: Image | null }>).find((each) => each.logo);
      expect(developer, 'a demo developer with a logo').toBeDefined();
      await expectServed(developer!.logo!, `developer ${developer!.id} logo`);

      const community = ((await api('/communities?per_page=100')) as Array<{ id: number; banner: Image | null }>).find(
        (each) => each.banner,
      );
      expect(community, 'a demo community with a banner').toBeDefined();
      await expectServed(community!.banner!, `community ${community!.id} banner`);
    },
    NPM_START_PATIENCE_MS,
  );

  it(
    "when the brochure's signed link is followed without a key, then it streams the PDF; when its signature or path is tampered with, then 403 LINK_INVALID",
    async () => {
      const { brochure } = await projectWithFiles();
      const link = new URL(brochure.download_url as string);
      expect(link.origin).toBe(service.origin);
      const key = /^\/v1\/documents\/brochure\/([0-9a-f]{64})\/[^/]+$/.exec(link.pathname)?.[1];
      expect(key, link.pathname).toBeDefined();

      const served = await fetchPublic(link.href);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('application/pdf');
      expect(served.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(served.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(served.bytes.length).toBe(brochure.size_bytes);
      expect(sha256(served.bytes)).toBe(key);

      const signature = link.searchParams.get('signature')!;
      const forged = new URL(link);
      forged.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
      const otherName = new URL(link);
      otherName.pathname = link.pathname.replace(/\/[^/]+$/, '/another-name.pdf');
      const extended = new URL(link);
      extended.searchParams.set('expires', String(Number(link.searchParams.get('expires')) + 3600));
      for (const tampered of [forged, otherName, extended]) {
        const refused = await fetchPublic(tampered.href);
        expect(refused.status, tampered.href).toBe(403);
        expect(JSON.parse(refused.bytes.toString('utf8'))).toMatchObject({ error: { code: 'LINK_INVALID' } });
      }
    },
    NPM_START_PATIENCE_MS,
  );
});
