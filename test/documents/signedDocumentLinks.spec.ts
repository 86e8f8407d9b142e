import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { request } from '../support/http.js';
import { startApiFixture, publishedReferenceCatalogue, type ApiFixture } from '../support/apiFixture.js';
import { minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';

const SECRET = 'link-signing-secret-for-tests-0123456789';
/** 2030-01-01T00:00:00Z: a multiple of the 300-second expiry window of the default 900-second TTL. */
const BOUNDARY = Date.parse('2030-01-01T00:00:00Z');
let now = BOUNDARY;
const setClock = (secondsAfterBoundary: number) => {
  now = BOUNDARY + secondsAfterBoundary * 1000;
};

/** Deterministic bytes that are not all alike, so a wrong offset shows. */
const bytesOf = (size: number, seed: number) => Buffer.from(Array.from({ length: size }, (_, index) => (index * 31 + seed) % 251));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const BROCHURE = Buffer.concat([Buffer.from('%PDF-1.7\n'), bytesOf(70_000, 1)]);
const MASTER_PLAN = Buffer.concat([Buffer.from('%PDF-1.4\n'), bytesOf(5_000, 2)]);
const VIDEO = bytesOf(300_000, 3);
/** Named by project 2's events but never stored. */
const NEVER_STORED = sha256(Buffer.from('bytes nobody uploaded'));

const stored = (bytes: Buffer, file_name: string) => ({
  key: sha256(bytes),
  file_name,
  content_type: 'application/pdf' as const,
  size_bytes: bytes.length,
});
const videoSet = (projectId: number, key: string, size_bytes: number) =>
  projectEvent(
    'VideoSet',
    projectId,
    {
      video: {
        title: 'Walkthrough',
        description: null,
        external_url: null,
        file: { key, file_name: 'walkthrough.mp4', content_type: 'video/mp4', size_bytes },
        thumbnail: null,
      },
    },
    minute(2),
  );

let api: ApiFixture;
let key: string;

/**
 * Project 1 has its brochure, master-plan document and video stored; project 2 names files that are not
 * (a key never stored, and a key from before files were stored); project 3 gets legacy external documents
 * through the admin API.
 */
beforeAll(async () => {
  api = await startApiFixture({ clock: () => new Date(now), env: { LINK_SIGNING_SECRET: SECRET } });
  const { blobStore } = api.app;
  await blobStore.put(Readable.from([BROCHURE]), { contentType: 'application/pdf' });
  await blobStore.put(Readable.from([MASTER_PLAN]), { contentType: 'application/pdf' });
  await blobStore.put(Readable.from([VIDEO]), { contentType: 'video/mp4' });
  await api.given([
    ...publishedReferenceCatalogue(),
    ...[1, 2, 3].flatMap((id) => [projectCreated(id, {}, minute(1)), projectEvent('ProjectPublished', id, {}, minute(1))]),
    projectEvent('BrochureAttached', 1, { brochure: stored(BROCHURE, 'Marina Heights – brochure (EN).pdf') }, minute(2)),
    projectEvent('MasterPlanDocumentAttached', 1, { document: stored(MASTER_PLAN, 'master-plan.pdf') }, minute(2)),
    videoSet(1, sha256(VIDEO), VIDEO.length),
    projectEvent('BrochureAttached', 2, { brochure: { ...stored(BROCHURE, 'gone.pdf'), key: NEVER_STORED } }, minute(2)),
    projectEvent('MasterPlanDocumentAttached', 2, { document: { ...stored(MASTER_PLAN, 'old.pdf'), key: 'mp-legacy-key' } }, minute(2)),
    videoSet(2, NEVER_STORED, 1_000),
  ]);
  key = await api.key();
});

afterAll(async () => {
  await api.close();
});

/** A link as handed out, split so a test can alter one part of it. */
const linkParts = (url: string) => {
  const parsed = new URL(url);
  return {
    origin: parsed.origin,
    path: parsed.pathname,
    expires: parsed.searchParams.get('expires')!,
    signature: parsed.searchParams.get('signature')!,
  };
};
const linkUrl = (parts: ReturnType<typeof linkParts>, query = `expires=${parts.expires}&signature=${parts.signature}`) =>
  `${parts.origin}${parts.path}?${query}`;

const download = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const body = Buffer.from(await response.arrayBuffer());
  const isJson = body.length > 0 && (response.headers.get('content-type')?.includes('application/json') ?? false);
  const json = isJson ? JSON.parse(body.toString('utf8')) : undefined;
  return { status: response.status, headers: response.headers, body, json };
};

const brochureUrl = async (project = 1) => {
  const answer = await api.get(`/projects/${project}/brochure`, key);
  expect(answer.status).toBe(200);
  return answer.body.data.download_url as string;
};

describe('signed document links over HTTP', () => {
  it('when a brochure link is followed, then it streams the exact bytes as an attachment named like the record', async () => {
    setClock(10);
    const url = await brochureUrl();
    expect(linkParts(url).path).toBe(
      `/v1/documents/brochure/${sha256(BROCHURE)}/${encodeURIComponent('Marina Heights – brochure (EN).pdf')}`,
    );
    const answer = await download(url);
    expect(answer.status).toBe(200);
    expect(answer.body.equals(BROCHURE)).toBe(true);
    expect(answer.headers.get('content-type')).toBe('application/pdf');
    expect(answer.headers.get('content-length')).toBe(String(BROCHURE.length));
    expect(answer.headers.get('etag')).toBe(`"${sha256(BROCHURE)}"`);
    expect(answer.headers.get('accept-ranges')).toBe('bytes');
    expect(answer.headers.get('last-modified')).toMatch(/ GMT$/);
    expect(answer.headers.get('content-disposition')).toBe(
      `attachment; filename="Marina Heights _ brochure (EN).pdf"; filename*=UTF-8''Marina%20Heights%20%E2%80%93%20brochure%20%28EN%29.pdf`,
    );
    // Expires at 00:20 (rounded up to the window); asked at 00:00:10.
    expect(answer.headers.get('cache-control')).toBe('private, max-age=1190');
  });

  it('when an API key, a bad key or other credentials are sent along, then they play no part', async () => {
    setClock(10);
    const url = await brochureUrl();
    for (const authorization of [`Bearer ${key}`, 'Bearer svc_live_not-a-key', 'Basic dXNlcjpwYXNz']) {
      const answer = await download(url, { headers: { authorization, 'x-client-domain': 'elsewhere.example.com' } });
      expect(answer.status, authorization).toBe(200);
      expect(answer.body.equals(BROCHURE)).toBe(true);
    }
  });

  it('when the link is asked with HEAD, then the headers come without a body', async () => {
    setClock(10);
    const answer = await download(await brochureUrl(), { method: 'HEAD' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-length')).toBe(String(BROCHURE.length));
    expect(answer.headers.get('content-type')).toBe('application/pdf');
    expect(answer.body.length).toBe(0);
  });

  it('when the ETag is sent back, then 304 with no body', async () => {
    setClock(10);
    const url = await brochureUrl();
    const answer = await download(url, { headers: { 'if-none-match': `W/"${sha256(BROCHURE)}", "other"` } });
    expect(answer.status).toBe(304);
    expect(answer.body.length).toBe(0);
  });

  it('when a byte range is asked, then 206 carries exactly those bytes; one past the end is 416 in the error body', async () => {
    setClock(10);
    const url = await brochureUrl();
    const middle = await download(url, { headers: { range: 'bytes=100-199' } });
    expect(middle.status).toBe(206);
    expect(middle.headers.get('content-range')).toBe(`bytes 100-199/${BROCHURE.length}`);
    expect(middle.headers.get('content-length')).toBe('100');
    expect(middle.body.equals(BROCHURE.subarray(100, 200))).toBe(true);

    const suffix = await download(url, { headers: { range: 'bytes=-10' } });
    expect(suffix.status).toBe(206);
    expect(suffix.body.equals(BROCHURE.subarray(-10))).toBe(true);

    const open = await download(url, { headers: { range: `bytes=${BROCHURE.length - 3}-` } });
    expect(open.headers.get('content-range')).toBe(`bytes ${BROCHURE.length - 3}-${BROCHURE.length - 1}/${BROCHURE.length}`);

    const beyond = await download(url, { headers: { range: `bytes=${BROCHURE.length}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${BROCHURE.length}`);
    expect(beyond.json.error).toMatchObject({ code: 'RANGE_NOT_SATISFIABLE', details: { size_bytes: BROCHURE.length } });
    expect(beyond.headers.get('content-disposition')).toBeNull();
  });

  it('when several ranges, a malformed range or an If-Range of another version are sent, then the whole file comes', async () => {
    setClock(10);
    const url = await brochureUrl();
    const wholeFileAsked: Array<Record<string, string>> = [
      { range: 'bytes=0-1,10-11' },
      { range: 'bytes=abc' },
      { range: 'bytes=0-9', 'if-range': '"another-version"' },
    ];
    for (const headers of wholeFileAsked) {
      const answer = await download(url, { headers });
      expect(answer.status, JSON.stringify(headers)).toBe(200);
      expect(answer.body.equals(BROCHURE)).toBe(true);
    }
    const sameVersion = await download(url, { headers: { range: 'bytes=0-9', 'if-range': `"${sha256(BROCHURE)}"` } });
    expect(sameVersion.status).toBe(206);
  });

  it('when the video link is followed with ranges, then it streams as a player asks for it', async () => {
    setClock(10);
    const video = await api.get('/projects/1/video', key);
    expect(video.body.data.file_expires_at).toBe('2030-01-01T00:20:00.000Z');
    const url = video.body.data.file_url as string;
    expect(linkParts(url).path).toBe(`/v1/documents/video/${sha256(VIDEO)}/walkthrough.mp4`);
    const first = await download(url, { headers: { range: 'bytes=0-' } });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-type')).toBe('video/mp4');
    expect(first.body.equals(VIDEO)).toBe(true);
    const later = await download(url, { headers: { range: 'bytes=250000-260000' } });
    expect(later.body.equals(VIDEO.subarray(250_000, 260_001))).toBe(true);
  });

  it('when the master-plan link of /media or of the resource batch is followed, then it streams the document', async () => {
    setClock(10);
    const media = await api.get('/projects/1/media', key);
    const batch = await api.get('/projects/resources?ids=1&include=media', key);
    const urls = [media.body.data.master_plan_document.download_url, batch.body.data[0].resources.media.master_plan_document.download_url];
    expect(urls[0]).toBe(urls[1]);
    expect(linkParts(urls[0]).path).toBe(`/v1/documents/master-plan/${sha256(MASTER_PLAN)}/master-plan.pdf`);
    const answer = await download(urls[0]);
    expect(answer.status).toBe(200);
    expect(answer.body.equals(MASTER_PLAN)).toBe(true);
  });

  it('when the clock passes the expiry, then the genuine link is 403 LINK_EXPIRED, and it worked until then', async () => {
    setClock(10);
    const url = await brochureUrl();
    setClock(1199);
    expect((await download(url)).status).toBe(200);
    setClock(1200);
    const expired = await download(url);
    expect(expired.status).toBe(403);
    expect(expired.json.error).toMatchObject({ code: 'LINK_EXPIRED', details: { expired_at: '2030-01-01T00:20:00.000Z' } });
    setClock(100_000);
    expect((await download(url)).json.error.code).toBe('LINK_EXPIRED');
  });

  it('when the path, expiry or signature is altered, or parameters are missing or added, then 403 LINK_INVALID, expired or not', async () => {
    setClock(10);
    const parts = linkParts(await brochureUrl());
    const flipped = `${parts.signature.slice(0, -1)}${parts.signature.endsWith('0') ? '1' : '0'}`;
    const tampered = [
      linkUrl({ ...parts, path: parts.path.replace('/brochure/', '/master-plan/') }),
      linkUrl({ ...parts, path: parts.path.replace('/brochure/', '/video/') }),
      linkUrl({ ...parts, path: parts.path.replace('/brochure/', '/unknown/') }),
      linkUrl({ ...parts, path: parts.path.replace(sha256(BROCHURE), sha256(MASTER_PLAN)) }),
      linkUrl({ ...parts, path: parts.path.replace(/[^/]+$/, 'renamed.pdf') }),
      linkUrl({ ...parts, expires: String(Number(parts.expires) + 300) }),
      linkUrl({ ...parts, expires: String(Number(parts.expires) - 300) }),
      linkUrl({ ...parts, expires: `${parts.expires}.0` }),
      linkUrl({ ...parts, signature: flipped }),
      linkUrl({ ...parts, signature: parts.signature.toUpperCase() }),
      linkUrl(parts, `expires=${parts.expires}`),
      linkUrl(parts, `signature=${parts.signature}`),
      linkUrl(parts, ''),
      linkUrl(parts, `expires=${parts.expires}&signature=${parts.signature}&signature=${parts.signature}`),
      linkUrl(parts, `expires=${parts.expires}&signature=${parts.signature}&download=1`),
      `${parts.origin}/v1/documents/brochure`,
      `${parts.origin}/v1/documents/brochure/${sha256(BROCHURE)}/a/b?expires=${parts.expires}&signature=${parts.signature}`,
    ];
    for (const clock of [10, 5_000]) {
      setClock(clock);
      for (const url of tampered) {
        const answer = await download(url);
        expect(answer.status, url).toBe(403);
        expect(answer.json.error.code, url).toBe('LINK_INVALID');
      }
    }
    setClock(10);
    const extra = await download(linkUrl(parts, `expires=${parts.expires}&signature=${parts.signature}&download=1`));
    expect(extra.json.error.details).toEqual({ unexpected_parameters: ['download'] });
  });

  it('when a link names a file that cannot be located, then 404 DOCUMENT_UNAVAILABLE, or VIDEO_NOT_AVAILABLE for the video', async () => {
    setClock(10);
    const brochure = await download(await brochureUrl(2));
    expect(brochure.status).toBe(404);
    expect(brochure.json.error.code).toBe('DOCUMENT_UNAVAILABLE');

    const legacyKey = (await api.get('/projects/2/media', key)).body.data.master_plan_document.download_url as string;
    expect(linkParts(legacyKey).path).toBe('/v1/documents/master-plan/mp-legacy-key/old.pdf');
    const masterPlan = await download(legacyKey);
    expect(masterPlan.status).toBe(404);
    expect(masterPlan.json.error.code).toBe('DOCUMENT_UNAVAILABLE');

    const video = await download((await api.get('/projects/2/video', key)).body.data.file_url);
    expect(video.status).toBe(404);
    expect(video.json.error.code).toBe('VIDEO_NOT_AVAILABLE');
    expect((await download((await api.get('/projects/2/video', key)).body.data.file_url, { method: 'HEAD' })).status).toBe(404);
  });

  it('when legacy external documents are attached through the admin API, then their links answer 302 to the URL', async () => {
    setClock(10);
    const brochure = await api.admin('PUT', '/projects/3/brochure', {
      external_url: 'https://legacy.example.com/files/brochure 2019.pdf?lang=en',
      file_name: 'brochure-2019.pdf',
    });
    expect(brochure.status, JSON.stringify(brochure.body)).toBe(200);
    expect(brochure.body.data.brochure).toEqual({
      external_url: 'https://legacy.example.com/files/brochure 2019.pdf?lang=en',
      file_name: 'brochure-2019.pdf',
    });
    const masterPlan = await api.admin('PUT', '/projects/3/master-plan-document', {
      external_url: 'http://old-cdn.example.org/mp.pdf',
      file_name: 'mp.pdf',
    });
    expect(masterPlan.status, JSON.stringify(masterPlan.body)).toBe(200);
    await api.settle();

    const link = (await api.get('/projects/3/brochure', key)).body.data;
    expect(link).toMatchObject({ file_name: 'brochure-2019.pdf', size_bytes: null, expires_at: '2030-01-01T00:20:00.000Z' });
    const encoded = Buffer.from('https://legacy.example.com/files/brochure 2019.pdf?lang=en').toString('base64url');
    expect(linkParts(link.download_url).path).toBe(`/v1/documents/brochure/external/${encoded}/brochure-2019.pdf`);
    const redirect = await download(link.download_url, { headers: { authorization: `Bearer ${key}` } });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('https://legacy.example.com/files/brochure%202019.pdf?lang=en');
    expect(redirect.headers.get('cache-control')).toBe('private, max-age=1190');

    const masterPlanLink = (await api.get('/projects/3/media', key)).body.data.master_plan_document.download_url;
    expect((await download(masterPlanLink)).headers.get('location')).toBe('http://old-cdn.example.org/mp.pdf');

    const other = Buffer.from('https://attacker.example.net/').toString('base64url');
    const parts = linkParts(link.download_url);
    const retargeted = await download(linkUrl({ ...parts, path: parts.path.replace(encoded, other) }));
    expect(retargeted.json.error.code).toBe('LINK_INVALID');
    setClock(1200);
    expect((await download(link.download_url)).json.error.code).toBe('LINK_EXPIRED');
  });

  it('when an external document has no usable URL or mixes both shapes, then the admin API refuses it naming the field', async () => {
    for (const [body, field] of [
      [{ external_url: 'ftp://legacy.example.com/a.pdf', file_name: 'a.pdf' }, 'body.external_url'],
      [{ external_url: 'https://legacy.example.com/a.pdf', file_name: 'a.pdf', size_bytes: 10 }, 'body.size_bytes'],
      // Neither shape: the message names both.
      [{ external_url: 'https://legacy.example.com/a.pdf' }, 'body'],
    ] as const) {
      const answer = await api.admin('PUT', '/projects/3/brochure', body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(answer.body.error.details.fields), JSON.stringify(body)).toContain(field);
    }
  });

  it('when another method is used on a link, then 405 with Allow', async () => {
    setClock(10);
    const answer = await download(await brochureUrl(), { method: 'POST' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('when each answer is compared with /v1/openapi.yaml, then its status is documented and its error body validates', async () => {
    const contract = parse((await request(api.app.baseUrl, '/v1/openapi.yaml')).body as string);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(contract, 'openapi');
    const expectDocumented = (path: string, answer: Awaited<ReturnType<typeof download>>) => {
      const response = contract.paths[path].get.responses[String(answer.status)];
      expect(response, `${path} documents ${answer.status}`).toBeDefined();
      if (!answer.json) return;
      const validate = ajv.compile({ $ref: `openapi#${(response.$ref as string).slice(1)}/content/application~1json/schema` });
      expect(validate(answer.json), `${answer.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const stored = '/documents/{kind}/{key}/{file_name}';
    const external = '/documents/{kind}/external/{url}/{file_name}';

    setClock(10);
    const url = await brochureUrl();
    const parts = linkParts(url);
    expectDocumented(stored, await download(url));
    expectDocumented(stored, await download(url, { headers: { range: 'bytes=0-0' } }));
    expectDocumented(stored, await download(url, { headers: { range: 'bytes=99999999-' } }));
    expectDocumented(stored, await download(url, { headers: { 'if-none-match': `"${sha256(BROCHURE)}"` } }));
    expectDocumented(stored, await download(linkUrl({ ...parts, signature: '0'.repeat(64) })));
    expectDocumented(stored, await download(linkUrl(parts, `expires=${parts.expires}&signature=${parts.signature}&x=1`)));
    expectDocumented(stored, await download(await brochureUrl(2)));
    expectDocumented(stored, await download((await api.get('/projects/2/video', key)).body.data.file_url));
    // Project 3's legacy brochure was attached by the test above.
    const legacy = (await api.get('/projects/3/brochure', key)).body.data.download_url;
    expectDocumented(external, await download(legacy));
    setClock(1200);
    expectDocumented(stored, await download(url));
    expectDocumented(external, await download(legacy));
  });
});
