import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivativeVariant } from '../../src/media/imageDerivatives.js';
import { eventually } from '../support/eventually.js';
import { request } from '../support/http.js';
import { mp4Bytes, pdfBytes, pictureBytes, sha256, storedImage } from '../support/storedFiles.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/** A test app whose DATA_DIR (and so its upload staging folder) is a fresh temporary folder. */
async function startUploadApp(env: Record<string, string> = {}): Promise<TestApp & { stagingDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'uploads-'));
  const app = await startTestApp({ env: { DATA_DIR: dataDir, ...env } });
  return {
    ...app,
    stagingDir: join(dataDir, 'uploads'),
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | FormData | string;
}

/** Sends a body as it is (bytes, a form, or JSON text) to the admin API. */
async function send(app: TestApp, path: string, { method = 'POST', headers = {}, body }: Sent = {}) {
  const response = await fetch(`${app.baseUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${app.adminToken}`, ...headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

const json = (value: unknown): Sent => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
const raw = (bytes: Buffer, contentType: string, headers: Record<string, string> = {}): Sent => ({
  headers: { 'content-type': contentType, ...headers },
  body: bytes,
});

function form(fields: Record<string, string>, files: Record<string, { bytes: Buffer; type: string; name: string }>): Sent {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  for (const [name, file] of Object.entries(files)) body.append(name, new Blob([file.bytes], { type: file.type }), file.name);
  return { body };
}

/** A body streamed without Content-Length (chunked), or cut off mid-way; answers the status and body, if any. */
function sendChunked(
  app: TestApp,
  path: string,
  chunks: Buffer[],
  options: { contentType: string; abortAfterChunks?: number },
): Promise<{ status: number; body: any } | 'aborted'> {
  const url = new URL(`${app.baseUrl}/admin/v1${path}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${app.adminToken}`, 'content-type': options.contentType, 'transfer-encoding': 'chunked' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text === '' ? undefined : JSON.parse(text) }));
      },
    );
    req.on('error', (error) => (options.abortAfterChunks === undefined ? reject(error) : resolve('aborted')));
    chunks.forEach((chunk, index) => {
      if (options.abortAfterChunks !== undefined && index >= options.abortAfterChunks) return;
      req.write(chunk);
    });
    if (options.abortAfterChunks === undefined) req.end();
    else setImmediate(() => req.destroy());
  });
}

const projectEvents = async (app: TestApp, projectId: number) => app.eventStore.readStream(`project-${projectId}`);
const lastEvent = async (app: TestApp, projectId: number) => (await projectEvents(app, projectId)).at(-1)!;

describe('uploads through the admin API', () => {
  let app: TestApp & { stagingDir: string };
  let projectId: number;
  let developerId: number;
  let stateId: number;

  /** Runs a JSON command that must succeed. */
  const accepted = async (method: string, path: string, body?: unknown) => {
    const answer = await request(app.baseUrl, `/admin/v1${path}`, {
      method,
      token: app.adminToken,
      ...(body === undefined ? {} : { body }),
    });
    if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body.data;
  };

  /** Sends a request that must be refused and checks that nothing was appended and nothing is left in staging. */
  const refused = async (path: string, sent: Sent) => {
    const headBefore = await app.eventStore.headPosition();
    const answer = await send(app, path, sent);
    expect(await app.eventStore.headPosition()).toBe(headBefore);
    expect(readdirSync(app.stagingDir)).toEqual([]);
    return answer;
  };

  beforeAll(async () => {
    app = await startUploadApp();
    stateId = (await accepted('POST', '/states', { name: 'Dubai', slug: 'dubai', country_code: 'AE' })).id;
    const communityId = (await accepted('POST', '/communities', { state_id: stateId, name: 'Dubai Marina', slug: 'dubai-marina' })).id;
    developerId = (await accepted('POST', '/developers', { name: 'Emaar', slug: 'emaar' })).id;
    projectId = (
      await accepted('POST', '/projects', {
        name: 'Marina Heights',
        slug: 'marina-heights',
        developer_id: developerId,
        state_id: stateId,
        community_id: communityId,
        nature: 'off_plan',
      })
    ).id;
  });
  afterAll(() => app.close());

  it('when a JPEG is sent as the body, then the picture is stored and the event names it by its SHA-256, with the size read from the file', async () => {
    const bytes = await pictureBytes({ width: 120, height: 90, seed: 11 });
    const answer = await send(app, `/projects/${projectId}/gallery?file_name=lobby.jpg`, raw(bytes, 'image/jpeg'));

    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const event = await lastEvent(app, projectId);
    expect(event.type).toBe('GalleryPictureAdded');
    expect((event.data as any).picture.image).toEqual({
      key: sha256(bytes),
      file_name: 'lobby.jpg',
      content_type: 'image/jpeg',
      width: 120,
      height: 90,
      size_bytes: bytes.length,
    });
    expect(await app.blobStore.stat(sha256(bytes))).toMatchObject({ size: bytes.length, contentType: 'image/jpeg' });
    expect(readdirSync(app.stagingDir)).toEqual([]);
  });

  it('when a picture is sent as a multipart part with the other fields as form fields, then the fields are read by their types and the size comes from the file', async () => {
    const bytes = await pictureBytes({ width: 64, height: 48, format: 'png', seed: 12 });
    const answer = await send(
      app,
      `/projects/${projectId}/floor-plans`,
      form({ title: 'Type A', price: '1250000', area: '"1,200 sq ft"' }, { file: { bytes, type: 'image/png', name: 'type-a.png' } }),
    );

    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const floorPlan = ((await lastEvent(app, projectId)).data as any).floor_plan;
    expect(floorPlan).toMatchObject({ title: 'Type A', price: 1_250_000, area: '1,200 sq ft', unit_type_id: null });
    expect(floorPlan.image).toEqual({
      key: sha256(bytes),
      file_name: 'type-a.png',
      content_type: 'image/png',
      width: 64,
      height: 48,
      size_bytes: bytes.length,
    });
  });

  it('when a picture is replaced by upload, then the event names the new picture under a new key', async () => {
    const first = await pictureBytes({ seed: 13 });
    const added = await send(app, `/projects/${projectId}/gallery`, raw(first, 'image/jpeg'));
    const mediaId = added.body.data.gallery.find((picture: any) => picture.image.key === sha256(first)).media_id;
    const second = await pictureBytes({ seed: 14, format: 'webp' });

    const answer = await send(app, `/projects/${projectId}/gallery/${mediaId}/image`, { method: 'PUT', ...raw(second, 'image/webp') });

    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const event = await lastEvent(app, projectId);
    expect(event.type).toBe('GalleryPictureReplaced');
    expect((event.data as any).image.key).toBe(sha256(second));
    expect(sha256(second)).not.toBe(sha256(first));
    expect((event.data as any).image.file_name).toBe('image.webp');
  });

  it('when a PNG is sent as image/jpeg, then 422 FILE_CONTENT_MISMATCH names the field, nothing is appended or stored, and staging is empty', async () => {
    const bytes = await pictureBytes({ format: 'png', seed: 15 });
    const answer = await refused(`/projects/${projectId}/gallery`, raw(bytes, 'image/jpeg'));

    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({
      code: 'FILE_CONTENT_MISMATCH',
      details: { field: 'body.image', content_type: 'image/jpeg', detected_type: 'image/png' },
    });
    expect(await app.blobStore.stat(sha256(bytes))).toBeNull();
  });

  it('when a multipart part declares another type than its bytes, then 422 FILE_CONTENT_MISMATCH and nothing is appended', async () => {
    const bytes = await pictureBytes({ format: 'webp', seed: 16 });
    const answer = await refused(
      `/projects/${projectId}/gallery`,
      form({ caption: 'Pool' }, { file: { bytes, type: 'image/png', name: 'pool.png' } }),
    );
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('FILE_CONTENT_MISMATCH');
  });

  it('when a JPEG is cut short, then 422 FILE_CORRUPT and nothing is appended or stored', async () => {
    const whole = await pictureBytes({ width: 400, height: 300, seed: 17 });
    const truncated = whole.subarray(0, Math.floor(whole.length / 2));
    const answer = await refused(`/projects/${projectId}/gallery`, raw(truncated, 'image/jpeg'));

    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: 'FILE_CORRUPT', details: { field: 'body.image' } });
    expect(await app.blobStore.stat(sha256(truncated))).toBeNull();
  });

  it('when the body is a type the field does not take, then 415 lists the types it takes', async () => {
    const pdf = await refused(`/projects/${projectId}/gallery`, raw(pdfBytes(), 'application/pdf'));
    expect(pdf.status).toBe(415);
    expect(pdf.body.error).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      details: { field: 'body', accepted_types: ['application/json', 'multipart/form-data', 'image/jpeg', 'image/png', 'image/webp'] },
    });

    const text = await refused(`/projects/${projectId}/gallery`, raw(Buffer.from('a picture'), 'text/plain'));
    expect(text.status).toBe(415);

    const part = await refused(
      `/projects/${projectId}/gallery`,
      form({}, { file: { bytes: pdfBytes(), type: 'application/pdf', name: 'x.pdf' } }),
    );
    expect(part.status).toBe(415);
    expect(part.body.error.details).toMatchObject({ field: 'body.image', accepted_types: ['image/jpeg', 'image/png', 'image/webp'] });
  });

  it('when a JSON ref names no stored file, then 422 names its key; when its facts differ from the stored file, then 422 names each', async () => {
    const unknown = await refused(
      `/projects/${projectId}/gallery`,
      json({ image: { key: 'f'.repeat(64), file_name: 'x.jpg', content_type: 'image/jpeg', width: 10, height: 10, size_bytes: 100 } }),
    );
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.error.details.fields)).toEqual(['body.image.key']);

    const stored = await storedImage(app.blobStore, { width: 50, height: 40, seed: 18 });
    const wrongSize = await refused(
      `/projects/${projectId}/gallery`,
      json({ image: { ...stored, width: 5000, size_bytes: stored.size_bytes + 1 } }),
    );
    expect(wrongSize.status).toBe(422);
    expect(Object.keys(wrongSize.body.error.details.fields).sort()).toEqual(['body.image.size_bytes', 'body.image.width']);

    const right = await send(app, `/projects/${projectId}/gallery`, json({ image: stored }));
    expect(right.status, JSON.stringify(right.body)).toBe(201);
  });

  it('when a multipart form names the picture both as a part and as a field, then 422 and nothing is appended', async () => {
    const bytes = await pictureBytes({ seed: 19 });
    const image = JSON.stringify({
      key: sha256(bytes),
      file_name: 'a.jpg',
      content_type: 'image/jpeg',
      width: 9999,
      height: 1,
      size_bytes: 1,
    });
    const answer = await refused(`/projects/${projectId}/gallery`, form({ image }, { file: { bytes, type: 'image/jpeg', name: 'a.jpg' } }));
    expect(answer.status).toBe(422);
    expect(answer.body.error.details.fields).toHaveProperty('body.image');
  });

  it('when a brochure PDF is sent as the body, then the brochure event names it; a name from Content-Disposition is cleaned', async () => {
    const bytes = pdfBytes('brochure');
    const disposition = `attachment; filename="fallback.pdf"; filename*=UTF-8''Marina%E2%80%AE%0AHeights.pdf`;
    const answer = await send(app, `/projects/${projectId}/brochure`, {
      method: 'PUT',
      ...raw(bytes, 'application/pdf', { 'content-disposition': disposition }),
    });

    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const event = await lastEvent(app, projectId);
    expect(event.type).toBe('BrochureAttached');
    expect((event.data as any).brochure).toEqual({
      key: sha256(bytes),
      file_name: 'MarinaHeights.pdf',
      content_type: 'application/pdf',
      size_bytes: bytes.length,
    });
  });

  it('when a video and its thumbnail are sent as parts with the title as a field, then the video event names both', async () => {
    const video = mp4Bytes(3);
    const thumbnail = await pictureBytes({ format: 'webp', width: 32, height: 18, seed: 20 });
    const answer = await send(app, `/projects/${projectId}/video`, {
      method: 'PUT',
      ...form(
        { title: 'Walkthrough', description: 'null' },
        {
          file: { bytes: video, type: 'video/mp4', name: 'walk.mp4' },
          thumbnail: { bytes: thumbnail, type: 'image/webp', name: 'walk.webp' },
        },
      ),
    });

    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const event = await lastEvent(app, projectId);
    expect(event.type).toBe('VideoSet');
    expect((event.data as any).video).toEqual({
      title: 'Walkthrough',
      description: null,
      external_url: null,
      file: { key: sha256(video), file_name: 'walk.mp4', content_type: 'video/mp4', size_bytes: video.length },
      thumbnail: {
        key: sha256(thumbnail),
        file_name: 'walk.webp',
        content_type: 'image/webp',
        width: 32,
        height: 18,
        size_bytes: thumbnail.length,
      },
    });
  });

  it('when floor plates come as a JSON list field with a part per picture, then each plate gets its picture', async () => {
    const second = await pictureBytes({ format: 'png', seed: 21 });
    const items = JSON.stringify([
      { title: 'Podium', floors: '1-3', image: null },
      { title: 'Typical', floors: '4-20', image: null },
    ]);
    const answer = await send(app, `/projects/${projectId}/floor-plates`, {
      method: 'PUT',
      ...form({ items }, { 'items.1.image': { bytes: second, type: 'image/png', name: 'typical.png' } }),
    });

    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const plates = ((await lastEvent(app, projectId)).data as any).items;
    expect(plates[0].image).toBeNull();
    expect(plates[1].image).toMatchObject({ key: sha256(second), file_name: 'typical.png' });

    const stray = await refused(`/projects/${projectId}/floor-plates`, {
      method: 'PUT',
      ...form({ items }, { 'items.5.image': { bytes: second, type: 'image/png', name: 'x.png' } }),
    });
    expect(stray.status).toBe(422);
  });

  it('when a developer logo is sent as the body of a revision, then the developer records it', async () => {
    const bytes = await pictureBytes({ format: 'png', width: 30, height: 30, seed: 22 });
    const answer = await send(app, `/developers/${developerId}`, { method: 'PATCH', ...raw(bytes, 'image/png') });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.logo).toMatchObject({ key: sha256(bytes), width: 30, height: 30, file_name: 'image.png' });
  });

  it('when a community is created with its banner as a part, then the community records it', async () => {
    const bytes = await pictureBytes({ width: 160, height: 40, seed: 23 });
    const answer = await send(
      app,
      '/communities',
      form(
        { state_id: String(stateId), name: 'Jumeirah', slug: 'jumeirah' },
        { banner: { bytes, type: 'image/jpeg', name: 'banner.jpg' } },
      ),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.data.banner).toMatchObject({ key: sha256(bytes), width: 160, height: 40, file_name: 'banner.jpg' });
  });

  it('when a picture carries an EXIF orientation, then its width and height are as displayed', async () => {
    const bytes = await sharp({ create: { width: 100, height: 40, channels: 3, background: '#336699' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const answer = await send(app, `/projects/${projectId}/gallery`, raw(bytes, 'image/jpeg'));
    expect(answer.status).toBe(201);
    expect(((await lastEvent(app, projectId)).data as any).picture.image).toMatchObject({ width: 40, height: 100 });
  });

  it('when the command is refused after its file was stored, then nothing is appended and the blob is left unreferenced', async () => {
    const bytes = await pictureBytes({ seed: 24 });
    const answer = await refused('/projects/999999/gallery', raw(bytes, 'image/jpeg'));
    expect(answer.status).toBe(404);
    // Stored before the command ran; no event names it, so the blob garbage collector removes it.
    expect(await app.blobStore.stat(sha256(bytes))).not.toBeNull();
  });

  it('when file_name comes with a JSON body or a compressed file is sent, then the request is refused', async () => {
    const stored = await storedImage(app.blobStore, { seed: 25 });
    const named = await refused(`/projects/${projectId}/gallery?file_name=x.jpg`, json({ image: stored }));
    expect(named.status).toBe(422);
    expect(named.body.error.details.fields).toHaveProperty(['query.file_name']);

    const gzipped = await refused(
      `/projects/${projectId}/gallery`,
      raw(await pictureBytes({ seed: 26 }), 'image/jpeg', { 'content-encoding': 'gzip' }),
    );
    expect(gzipped.status).toBe(415);
  });

  it('when the client stops sending mid-upload, then the staging file is removed and nothing is appended', async () => {
    const headBefore = await app.eventStore.headPosition();
    const chunk = Buffer.alloc(64 * 1024, 1);
    const outcome = await sendChunked(app, `/projects/${projectId}/gallery`, [chunk, chunk, chunk], {
      contentType: 'image/jpeg',
      abortAfterChunks: 2,
    });
    expect(outcome).toBe('aborted');
    await eventually('the staging folder to be empty', () => readdirSync(app.stagingDir).length === 0);
    expect(await app.eventStore.headPosition()).toBe(headBefore);
  });
});

describe('upload limits', () => {
  let app: TestApp & { stagingDir: string };
  let projectId: number;
  const LIMIT = 2_000;

  beforeAll(async () => {
    app = await startUploadApp({ UPLOAD_MAX_IMAGE_BYTES: String(LIMIT) });
    const admin = (path: string, body: unknown) =>
      request(app.baseUrl, `/admin/v1${path}`, { method: 'POST', token: app.adminToken, body });
    const stateId = (await admin('/states', { name: 'Dubai', slug: 'dubai', country_code: 'AE' })).body.data.id;
    const communityId = (await admin('/communities', { state_id: stateId, name: 'Marina', slug: 'marina' })).body.data.id;
    const developerId = (await admin('/developers', { name: 'Emaar', slug: 'emaar' })).body.data.id;
    projectId = (
      await admin('/projects', {
        name: 'Creek',
        slug: 'creek',
        developer_id: developerId,
        state_id: stateId,
        community_id: communityId,
        nature: 'off_plan',
      })
    ).body.data.id;
  });
  afterAll(() => app.close());

  const oversize = () =>
    pictureBytes({ width: 400, height: 400, format: 'png', seed: 30 }).then((bytes) => Buffer.concat([bytes, Buffer.alloc(LIMIT)]));

  it('when Content-Length says the file is over its kind limit, then 413 in the error body, and nothing is appended or left in staging', async () => {
    const headBefore = await app.eventStore.headPosition();
    const answer = await send(app, `/projects/${projectId}/gallery`, raw(await oversize(), 'image/png'));

    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({
      error: { code: 'PAYLOAD_TOO_LARGE', details: { field: 'body.image', limit_bytes: LIMIT } },
      meta: { request_id: expect.any(String) },
    });
    expect(answer.headers.get('connection')).toBe('close');
    expect(await app.eventStore.headPosition()).toBe(headBefore);
    expect(readdirSync(app.stagingDir)).toEqual([]);
  });

  it('when a chunked body passes the limit, then 413 as soon as it does, and the staging file is removed', async () => {
    const bytes = await oversize();
    const answer = await sendChunked(app, `/projects/${projectId}/gallery`, [bytes.subarray(0, 1_000), bytes.subarray(1_000)], {
      contentType: 'image/png',
    });
    expect(answer).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE', details: { limit_bytes: LIMIT } } } });
    expect(readdirSync(app.stagingDir)).toEqual([]);
  });

  it('when a multipart part passes the limit, then 413 names its field', async () => {
    const answer = await send(
      app,
      `/projects/${projectId}/gallery`,
      form({ caption: 'Big' }, { file: { bytes: await oversize(), type: 'image/png', name: 'big.png' } }),
    );
    expect(answer.status).toBe(413);
    expect(answer.body.error.details).toMatchObject({ field: 'body.image', limit_bytes: LIMIT });
    expect(readdirSync(app.stagingDir)).toEqual([]);
  });

  it('when a file within the limit is sent, then it is accepted', async () => {
    const small = await pictureBytes({ width: 8, height: 8, seed: 31 });
    expect(small.length).toBeLessThan(LIMIT);
    const answer = await send(app, `/projects/${projectId}/gallery`, raw(small, 'image/jpeg'));
    expect(answer.status).toBe(201);
  });
});

describe('upload staging and pre-generated widths', () => {
  it('when the service starts, then staging files left by processes that no longer run are removed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'uploads-leftover-'));
    try {
      const staging = join(dataDir, 'uploads');
      const { mkdirSync } = await import('node:fs');
      mkdirSync(staging, { recursive: true, mode: 0o700 });
      // A process id above Linux's maximum (4194304) never runs.
      writeFileSync(join(staging, '4999999-0b1c2d3e-0000-4000-8000-000000000000'), 'half an upload');
      const app = await startTestApp({ env: { DATA_DIR: dataDir } });
      try {
        expect(readdirSync(staging)).toEqual([]);
      } finally {
        await app.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('when MEDIA_PREGENERATE=on, then an uploaded picture has its four widths before the command answers', async () => {
    const app = await startUploadApp({ MEDIA_PREGENERATE: 'on' });
    try {
      const admin = (path: string, body: unknown) =>
        request(app.baseUrl, `/admin/v1${path}`, { method: 'POST', token: app.adminToken, body });
      const developerId = (await admin('/developers', { name: 'Emaar', slug: 'emaar' })).body.data.id;
      const bytes = await pictureBytes({ width: 900, height: 300, seed: 40 });
      const answer = await send(app, `/developers/${developerId}`, { method: 'PATCH', ...raw(bytes, 'image/jpeg') });
      expect(answer.status).toBe(200);
      for (const width of [400, 800, 1600, 2560] as const) {
        expect(await app.blobStore.findVariant(sha256(bytes), derivativeVariant(width)), `width ${width}`).not.toBeNull();
      }
    } finally {
      await app.close();
    }
  });
});
