import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLinkSigner } from '../../src/http/signedLinks.js';
import { imageRef, minute, projectCreated, projectEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

const SECRET = 'link-signing-secret-for-tests-0123456789';
/** 2030-01-01T00:00:00Z: a multiple of the 300-second expiry window of the default 900-second TTL. */
const BOUNDARY = Date.parse('2030-01-01T00:00:00Z');
let now = BOUNDARY;
const setClock = (secondsAfterBoundary: number) => {
  now = BOUNDARY + secondsAfterBoundary * 1000;
};

let api: ApiFixture;
let key: string;

const pdf = (name: string) => ({ key: name, file_name: `${name}.pdf`, content_type: 'application/pdf' as const, size_bytes: 52_000 });

/** Project 1 has a gallery picture, a master-plan document, a video file and a brochure: a signed link in each document route. */
beforeAll(async () => {
  api = await startApiFixture({ clock: () => new Date(now), env: { LINK_SIGNING_SECRET: SECRET } });
  await api.given([
    ...publishedReferenceCatalogue(),
    projectCreated(1, {}, minute(1)),
    projectEvent('ProjectPublished', 1, {}, minute(1)),
    projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 31, caption: 'Front', position: 0, image: imageRef('g31') } }, minute(2)),
    projectEvent('MasterPlanDocumentAttached', 1, { document: pdf('mp1') }, minute(2)),
    projectEvent(
      'VideoSet',
      1,
      {
        video: {
          title: 'Walkthrough',
          description: null,
          external_url: null,
          file: { key: 'v1', file_name: 'v1.mp4', content_type: 'video/mp4', size_bytes: 9_000_000 },
          thumbnail: null,
        },
      },
      minute(2),
    ),
    projectEvent('BrochureAttached', 1, { brochure: pdf('br1') }, minute(2)),
  ]);
  key = await api.key();
});

afterAll(async () => {
  await api.close();
});

const linkOf = (url: string) => {
  const parsed = new URL(url);
  return {
    path: parsed.pathname.replace(/^\/v1/, ''),
    expires: parsed.searchParams.get('expires')!,
    signature: parsed.searchParams.get('signature')!,
  };
};

describe('conditional requests on routes with signed links', () => {
  it('when /media is polled within one expiry window, then the ETag holds and If-None-Match answers 304', async () => {
    setClock(10);
    const first = await api.get('/projects/1/media', key);
    expect(first.status).toBe(200);
    setClock(299);
    const revalidated = await api.get('/projects/1/media', key, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(first.headers.get('etag'));
    const second = await api.get('/projects/1/media', key);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(second.body.data).toEqual(first.body.data);
    expect(first.body.data.master_plan_document.expires_at).toBe('2030-01-01T00:20:00.000Z');
  });

  it('when the window passes, then the link and the ETag change, and the earlier link still verifies until its own expiry', async () => {
    setClock(10);
    const before = await api.get('/projects/1/media', key);
    setClock(301);
    const after = await api.get('/projects/1/media', key, { headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(after.body.data.master_plan_document.expires_at).toBe('2030-01-01T00:25:00.000Z');
    expect(after.body.data.master_plan_document.download_url).not.toBe(before.body.data.master_plan_document.download_url);

    const signer = createLinkSigner(SECRET, 900);
    const earlier = linkOf(before.body.data.master_plan_document.download_url);
    expect(earlier.path).toBe('/documents/master-plan/mp1/mp1.pdf');
    expect(signer.verify(earlier.path, earlier.expires, earlier.signature, new Date(now))).toBe('valid');
    expect(signer.verify(earlier.path, earlier.expires, earlier.signature, new Date(Date.parse('2030-01-01T00:19:59Z')))).toBe('valid');
    expect(signer.verify(earlier.path, earlier.expires, earlier.signature, new Date(Date.parse('2030-01-01T00:20:00Z')))).toBe('expired');
  });

  it('when the video, the brochure or the resource batch is polled within one window, then each ETag holds and 304 comes', async () => {
    for (const path of ['/projects/1/video', '/projects/1/brochure', '/projects/resources?ids=1&include=media']) {
      setClock(320);
      const first = await api.get(path, key);
      expect(first.status, path).toBe(200);
      setClock(599);
      const second = await api.get(path, key, { headers: { 'if-none-match': first.headers.get('etag')! } });
      expect(second.status, path).toBe(304);
      setClock(601);
      const later = await api.get(path, key, { headers: { 'if-none-match': first.headers.get('etag')! } });
      expect(later.status, path).toBe(200);
    }
  });
});
