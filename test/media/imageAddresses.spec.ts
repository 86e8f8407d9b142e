import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { ImageRef } from '../../src/catalogue/imageRef.js';
import {
  appendEvents,
  clientEvent,
  clientRegistered,
  developerEvent,
  minute,
  planDefined,
  projectCreated,
  projectEvent,
  referenceCatalogue,
  type StreamEvent,
} from '../support/catalogueEvents.js';
import { request } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { cameraJpeg, imageRefOf, smallPng, storePicture, type Picture } from './pictures.js';

interface Fetched {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

async function fetched(baseUrl: string, path: string, init: RequestInit = {}): Promise<Fetched> {
  const response = await fetch(`${baseUrl}${path}`, { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
const errorOf = (answer: Fetched) => (JSON.parse(answer.bytes.toString('utf8')) as { error: { code: string } }).error;

const galleryPicture = (projectId: number, mediaId: number, image: ImageRef): StreamEvent =>
  projectEvent('GalleryPictureAdded', projectId, { picture: { media_id: mediaId, caption: null, position: mediaId, image } });

describe('image addresses', () => {
  let app: TestApp;
  let camera: Picture;
  let png: Picture;
  let cameraKey: string;
  let pngKey: string;
  let v1: string;

  /** Appends the events and waits until the read models hold them. */
  async function catalogue(...events: StreamEvent[]): Promise<void> {
    await app.projector.waitForPosition(await appendEvents(app.eventStore, events), 10_000);
  }
  const get = (path: string, init?: RequestInit) => fetched(v1, path, init);

  beforeAll(async () => {
    app = await startTestApp();
    v1 = `${app.baseUrl}/v1`;
    [camera, png] = await Promise.all([cameraJpeg(), smallPng()]);
    const [cameraStored, pngStored] = await Promise.all([storePicture(app.blobStore, camera), storePicture(app.blobStore, png)]);
    cameraKey = cameraStored.sha256;
    pngKey = pngStored.sha256;
    await catalogue(
      ...referenceCatalogue(),
      projectCreated(1),
      galleryPicture(1, 101, imageRefOf(cameraStored, camera)),
      galleryPicture(1, 102, imageRefOf(pngStored, png)),
      developerEvent({ type: 'DeveloperRevised', data: { developer_id: 1, changes: { logo: imageRefOf(pngStored, png) }, at: minute(1) } }),
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  it('when each width of a camera picture is asked for, then it is an upright WebP of that width, immutable and validated by its hash', async () => {
    // Stored 3000 x 2000 and turned upright by its EXIF orientation: 2000 x 3000, so the widest is 2000.
    for (const [suffix, width] of [
      ['.webp', 2000],
      ['-1600.webp', 1600],
      ['-800.webp', 800],
      ['-400.webp', 400],
    ] as const) {
      const answer = await get(`/media/101/${cameraKey}${suffix}`);
      expect(answer.status, suffix).toBe(200);
      const metadata = await sharp(answer.bytes).metadata();
      expect([metadata.format, metadata.width, metadata.height], suffix).toEqual(['webp', width, width * 1.5]);
      expect(metadata.exif).toBeUndefined();
      expect(
        Object.fromEntries(['content-type', 'content-length', 'cache-control', 'etag'].map((name) => [name, answer.headers.get(name)])),
      ).toEqual({
        'content-type': 'image/webp',
        'content-length': String(answer.bytes.length),
        'cache-control': 'public, max-age=31536000, immutable',
        etag: `"${sha256(answer.bytes)}"`,
      });
      expect(Date.parse(answer.headers.get('last-modified')!)).not.toBeNaN();
      expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('when a picture is narrower than a width, then it is served at its own width, never enlarged', async () => {
    for (const suffix of ['.webp', '-1600.webp', '-800.webp', '-400.webp']) {
      const metadata = await sharp((await get(`/media/102/${pngKey}${suffix}`)).bytes).metadata();
      expect([metadata.format, metadata.width, metadata.height]).toEqual(['webp', 300, 200]);
    }
  });

  it('when the original is asked for, then it is the exact bytes as stored, in its own format only', async () => {
    const answer = await get(`/media/101/${cameraKey}-original.jpg`);
    expect(answer.status).toBe(200);
    expect(answer.bytes.equals(camera.bytes)).toBe(true);
    expect(answer.headers.get('content-type')).toBe('image/jpeg');
    expect(answer.headers.get('etag')).toBe(`"${cameraKey}"`);
    expect(answer.headers.get('accept-ranges')).toBe('bytes');
    expect((await get(`/media/developer-1/${pngKey}-original.png`)).bytes.equals(png.bytes)).toBe(true);
    expect((await get(`/media/101/${cameraKey}-original.png`)).status).toBe(404);
  });

  it('when an address names another width, format or shape, then it is 404 in the error body', async () => {
    for (const file of [
      `${cameraKey}-1200.webp`,
      `${cameraKey}-2560.webp`,
      `${cameraKey}-0400.webp`,
      `${cameraKey}.jpg`,
      `${cameraKey}-original.gif`,
      `${cameraKey.toUpperCase()}.webp`,
      `${cameraKey.slice(1)}.webp`,
    ]) {
      const answer = await get(`/media/101/${file}`);
      expect(answer.status, file).toBe(404);
      expect(errorOf(answer).code).toBe('NOT_FOUND');
      expect(answer.headers.get('cache-control')).toBeNull();
    }
  });

  it('when the media id or key is unknown, or the key belongs to another media id, then it is 404', async () => {
    for (const path of [
      `/media/999/${cameraKey}.webp`,
      `/media/101/${sha256(randomBytes(8))}.webp`,
      `/media/102/${cameraKey}.webp`,
      `/media/developer-2/${pngKey}.webp`,
      `/media/community-1/${pngKey}.webp`,
      `/media/not-a-media-id/${cameraKey}.webp`,
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(errorOf(answer).code).toBe('NOT_FOUND');
    }
  });

  it('when an address is asked with an API key, a bad one included, then the key plays no part', async () => {
    const answer = await get(`/media/102/${pngKey}-400.webp`, { headers: { authorization: 'Bearer svc_live_not-a-real-key' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ratelimit-limit')).toBeNull();
  });

  it('when If-None-Match names the served version (exactly, weakly, in a list or as *), then the answer is 304', async () => {
    const first = await get(`/media/102/${pngKey}-800.webp`);
    const etag = first.headers.get('etag')!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const answer = await get(`/media/102/${pngKey}-800.webp`, { headers: { 'if-none-match': ifNoneMatch } });
      expect(answer.status, ifNoneMatch).toBe(304);
      expect(answer.bytes.length).toBe(0);
      expect(answer.headers.get('etag')).toBe(etag);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    expect((await get(`/media/102/${pngKey}-800.webp`, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
  });

  it('when HEAD is asked, then the headers are those of GET and there is no body', async () => {
    for (const file of [`${cameraKey}-original.jpg`, `${cameraKey}-400.webp`]) {
      const full = await get(`/media/101/${file}`);
      const head = await get(`/media/101/${file}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.bytes.length).toBe(0);
      for (const name of ['content-type', 'content-length', 'etag', 'last-modified', 'cache-control']) {
        expect(head.headers.get(name), name).toBe(full.headers.get(name));
      }
    }
  });

  it('when a byte range of an original is asked for, then it is 206 with those bytes, and a range past the end is 416', async () => {
    const path = `/media/101/${cameraKey}-original.jpg`;
    const size = camera.bytes.length;
    const first = await get(path, { headers: { range: 'bytes=0-99' } });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-99/${size}`);
    expect(first.headers.get('content-length')).toBe('100');
    expect(first.bytes.equals(camera.bytes.subarray(0, 100))).toBe(true);

    const last = await get(path, { headers: { range: 'bytes=-50' } });
    expect(last.status).toBe(206);
    expect(last.bytes.equals(camera.bytes.subarray(size - 50))).toBe(true);

    const past = await get(path, { headers: { range: `bytes=${size}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${size}`);
    expect(errorOf(past).code).toBe('RANGE_NOT_SATISFIABLE');
  });

  it('when 20 first requests for one derivative arrive at once, then sharp renders it once and all get the same picture', async () => {
    const picture = await cameraJpeg('Single flight');
    const stored = await storePicture(app.blobStore, picture);
    await catalogue(galleryPicture(1, 103, imageRefOf(stored, picture)));
    const rendersBefore = app.imageDerivatives.renders;
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(`/media/103/${stored.sha256}-800.webp`)));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 20 }, () => 200));
    expect(new Set(answers.map((answer) => sha256(answer.bytes))).size).toBe(1);
    expect(app.imageDerivatives.renders - rendersBefore).toBe(1);
  });

  it('when a picture is replaced, then its earlier addresses redirect to the current picture for a short while', async () => {
    const replacement = await smallPng('Replacement');
    const stored = await storePicture(app.blobStore, replacement);
    const earlier = await cameraJpeg('Earlier');
    const earlierStored = await storePicture(app.blobStore, earlier);
    await catalogue(
      galleryPicture(1, 104, imageRefOf(earlierStored, earlier)),
      projectEvent('GalleryPictureReplaced', 1, { media_id: 104, image: imageRefOf(stored, replacement) }),
    );
    for (const [file, location] of [
      [`${earlierStored.sha256}-800.webp`, `${stored.sha256}-800.webp`],
      [`${earlierStored.sha256}.webp`, `${stored.sha256}.webp`],
      // The original moves to the current picture's own format.
      [`${earlierStored.sha256}-original.jpg`, `${stored.sha256}-original.png`],
    ]) {
      const answer = await get(`/media/104/${file}`);
      expect(answer.status, file).toBe(307);
      expect(answer.headers.get('location')).toBe(location);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=300');
    }
    // The earlier original was a JPEG: no other format of it was ever an address.
    expect((await get(`/media/104/${earlierStored.sha256}-original.png`)).status).toBe(404);
    const followed = await fetch(`${v1}/media/104/${earlierStored.sha256}-original.jpg`);
    expect(followed.url).toBe(`${v1}/media/104/${stored.sha256}-original.png`);
    expect(Buffer.from(await followed.arrayBuffer()).equals(replacement.bytes)).toBe(true);
  });

  it('when a picture names bytes that are not stored, or not a picture, then each address is 404, never 500', async () => {
    const missing = sha256(randomBytes(16));
    const notAPicture = await app.blobStore.put(Readable.from([Buffer.from('plain text, not a picture')]), { contentType: 'image/jpeg' });
    const ref = (key: string): ImageRef => ({ key, file_name: 'x.jpg', content_type: 'image/jpeg', width: 10, height: 10, size_bytes: 10 });
    await catalogue(galleryPicture(1, 105, ref(missing)), galleryPicture(1, 106, ref(notAPicture.sha256)));
    for (const path of [
      `/media/105/${missing}.webp`,
      `/media/105/${missing}-400.webp`,
      `/media/105/${missing}-original.jpg`,
      `/media/106/${notAPicture.sha256}-800.webp`,
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(errorOf(answer).code).toBe('NOT_FOUND');
    }
  });

  it('when a picture is removed or its project deleted, then its addresses are 404', async () => {
    const picture = await smallPng('Removed');
    const stored = await storePicture(app.blobStore, picture);
    await catalogue(
      projectCreated(2),
      galleryPicture(2, 107, imageRefOf(stored, picture)),
      galleryPicture(2, 108, imageRefOf(stored, picture)),
      galleryPicture(2, 109, imageRefOf(stored, picture)),
    );
    expect((await get(`/media/107/${stored.sha256}-400.webp`)).status).toBe(200);
    await catalogue(projectEvent('GalleryPictureRemoved', 2, { media_id: 107 }), projectEvent('ProjectDeleted', 2, {}));
    for (const mediaId of [107, 108, 109]) expect((await get(`/media/${mediaId}/${stored.sha256}-400.webp`)).status).toBe(404);
  });

  it("when an account-specific address names a client's account token, then it behaves as the plain one; any other token is 404", async () => {
    const tokenSet = (account_token: string | null, at: string) =>
      clientEvent({ type: 'ClientAccountTokenSet', data: { client_id: 1, account_token, at } });
    await catalogue(planDefined(1), clientRegistered(1, { plan_id: 1 }), tokenSet('acme-7f3k', minute(2)));
    const plain = await get(`/media/101/${cameraKey}-400.webp`);
    const account = await get(`/media/c/acme-7f3k/101/${cameraKey}-400.webp`);
    expect(account.status).toBe(200);
    expect(account.bytes.equals(plain.bytes)).toBe(true);
    expect(account.headers.get('etag')).toBe(plain.headers.get('etag'));
    expect((await get(`/media/c/acme-7f3k/101/${cameraKey}-original.jpg`)).bytes.equals(camera.bytes)).toBe(true);
    for (const path of [`/media/c/acme-7f3k/101/${cameraKey}-1200.webp`, `/media/c/other-token/101/${cameraKey}-400.webp`]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(errorOf(answer).code).toBe('NOT_FOUND');
    }

    await catalogue(tokenSet(null, minute(3)));
    expect((await get(`/media/c/acme-7f3k/101/${cameraKey}-400.webp`)).status).toBe(404);
  });

  it('when an address is sent another method, then it is 405 naming GET and HEAD', async () => {
    const answer = await get(`/media/101/${cameraKey}.webp`, { method: 'POST' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('when each kind of answer is compared with /v1/openapi.yaml, then its status, type, headers and error body are documented', async () => {
    const contract = parse((await request(app.baseUrl, '/v1/openapi.yaml')).body as string);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(contract, 'openapi');
    const resolved = (node: { $ref?: string }) =>
      node.$ref === undefined
        ? node
        : node.$ref
            .slice(2)
            .split('/')
            .reduce((parent: any, name) => parent[name], contract);
    const expectDocumented = (path: string, method: 'get' | 'head', answer: Fetched) => {
      const node = contract.paths[path][method].responses[String(answer.status)];
      expect(node, `${method} ${path} documents ${answer.status}`).toBeDefined();
      const response = resolved(node);
      for (const [name, header] of Object.entries(resolved(response.headers ?? {})) as Array<[string, any]>) {
        if (resolved(header).required) expect(answer.headers.get(name), `${answer.status} sends ${name}`).not.toBeNull();
      }
      const type = answer.headers.get('content-type')?.split(';')[0];
      if (response.content === undefined) return expect(answer.bytes.length, `${answer.status} has no body`).toBe(0);
      expect(Object.keys(response.content), `${answer.status} documents ${type}`).toContain(type);
      if (type !== 'application/json' || method === 'head') return;
      const validate = ajv.compile({ $ref: `openapi#${(node.$ref as string).slice(1)}/content/application~1json/schema` });
      expect(validate(JSON.parse(answer.bytes.toString('utf8'))), `${answer.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const plain = '/media/{media_id}/{file}';
    const account = '/media/c/{account_token}/{media_id}/{file}';

    const earlier = await cameraJpeg('Documented earlier');
    const earlierStored = await storePicture(app.blobStore, earlier);
    await catalogue(
      galleryPicture(1, 110, imageRefOf(earlierStored, earlier)),
      projectEvent('GalleryPictureReplaced', 1, { media_id: 110, image: imageRefOf(await storePicture(app.blobStore, png), png) }),
      planDefined(2),
      clientRegistered(2, { plan_id: 2 }),
      clientEvent({ type: 'ClientAccountTokenSet', data: { client_id: 2, account_token: 'documented-token', at: minute(4) } }),
    );
    const original = `/media/101/${cameraKey}-original.jpg`;
    const etag = (await get(original)).headers.get('etag')!;
    for (const [answer, method] of [
      [await get(`/media/101/${cameraKey}-800.webp`), 'get'],
      [await get(original), 'get'],
      [await get(`/media/102/${pngKey}-original.png`), 'get'],
      [await get(original, { method: 'HEAD' }), 'head'],
      [await get(original, { headers: { range: 'bytes=0-9' } }), 'get'],
      [await get(original, { headers: { range: `bytes=${camera.bytes.length}-` } }), 'get'],
      [await get(original, { headers: { 'if-none-match': etag } }), 'get'],
      [await get(`/media/110/${earlierStored.sha256}-400.webp`), 'get'],
      [await get(`/media/101/${cameraKey}-1200.webp`), 'get'],
      [await get(`/media/999/${cameraKey}.webp`, { method: 'HEAD' }), 'head'],
      [await get(`/media/101/${cameraKey}%E0.webp`), 'get'],
    ] as const) {
      expectDocumented(plain, method, answer);
    }
    for (const [answer, method] of [
      [await get(`/media/c/documented-token/101/${cameraKey}-400.webp`), 'get'],
      [await get(`/media/c/documented-token/101/${cameraKey}-400.webp`, { method: 'HEAD' }), 'head'],
      [await get(`/media/c/documented-token/110/${earlierStored.sha256}.webp`), 'get'],
      [await get(`/media/c/unknown-token/101/${cameraKey}-400.webp`), 'get'],
    ] as const) {
      expectDocumented(account, method, answer);
    }
  });
});
