import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageRef, minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

/**
 * 70 published projects: 1 to 69 by developer 1 in Dubai Marina (state 1), 70 by developer 2 on Yas Island
 * (state 2). Project 1 has a gallery picture, a master-plan document, a video and a brochure, and names 2, 3
 * and 70 as related. An evaluation sample of 50 spread over ids 1 to 70 never takes 70.
 */
const PROJECTS = 70;
let api: ApiFixture;
let clientId: number;
let testKey: string;
let liveKey: string;
let sample: number[];

const pdf = (key: string) => ({ key, file_name: `${key}.pdf`, content_type: 'application/pdf' as const, size_bytes: 52_000 });

const published = (id: number): StreamEvent[] => [
  projectCreated(id, id === PROJECTS ? { developer_id: 2, state_id: 2, community_id: 3 } : {}, minute(id)),
  projectEvent('ProjectPublished', id, {}, minute(id)),
];

const ids = (answer: { body: { data: Array<{ id?: number; project_id?: number }> } }) =>
  answer.body.data.map((item) => item.id ?? item.project_id).sort((a, b) => a! - b!);

beforeAll(async () => {
  api = await startApiFixture();
  const projects: StreamEvent[] = [];
  for (let id = 1; id <= PROJECTS; id++) projects.push(...published(id));
  await api.given([
    ...publishedReferenceCatalogue(),
    ...projects,
    projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 11, caption: null, position: 0, image: imageRef('g11') } }, minute(100)),
    projectEvent('MasterPlanDocumentAttached', 1, { document: pdf('mp1') }, minute(100)),
    projectEvent(
      'VideoSet',
      1,
      { video: { title: 'Walkthrough', description: null, external_url: 'https://video.example.com/1', file: null, thumbnail: null } },
      minute(100),
    ),
    projectEvent('BrochureAttached', 1, { brochure: pdf('br1') }, minute(100)),
    projectEvent('RelatedProjectsSet', 1, { project_ids: [2, 3, PROJECTS] }, minute(100)),
  ]);
  const issued = await api.issue();
  clientId = issued.clientId;
  liveKey = issued.key;
  testKey = (await api.admin('POST', `/clients/${clientId}/keys`, { environment: 'test' })).body.data.key;
  const started = await api.admin('POST', `/clients/${clientId}/evaluation`, { sample_size: 50 });
  expect(started.status).toBe(200);
  expect(started.body.data.access_mode).toMatchObject({ mode: 'evaluation', paused: false });
  sample = started.body.data.access_mode.sample_project_ids;
  await api.settle();
});

afterAll(async () => {
  await api.close();
});

describe('Evaluation Mode', () => {
  it('when evaluation starts, then the sample holds 50 distinct published projects spread over the catalogue', () => {
    expect(new Set(sample).size).toBe(50);
    expect(sample).toContain(1);
    expect(sample).not.toContain(PROJECTS);
  });

  it('when a live key is used, then 403 EVALUATION_TEST_ONLY; a test key is served with the evaluation headers', async () => {
    const live = await api.get('/projects', liveKey);
    expect(live.status).toBe(403);
    expect(live.body.error).toEqual({ code: 'EVALUATION_TEST_ONLY', message: expect.any(String), details: {} });
    const test = await api.get('/projects?per_page=100', testKey);
    expect(test.status).toBe(200);
    expect(test.headers.get('x-access-mode')).toBe('evaluation');
    expect(test.headers.get('x-sandbox')).toBe('true');
    expect(ids(test)).toEqual([...sample].sort((a, b) => a - b));
    expect(test.body.meta.pagination.total).toBe(50);
  });

  it('when a project outside the sample is asked for anywhere, then it is unavailable', async () => {
    const outside = Array.from({ length: PROJECTS }, (_, index) => index + 1).find((id) => !sample.includes(id))!;
    expect((await api.get(`/projects/${outside}`, testKey)).status).toBe(404);
    expect((await api.get(`/projects/${outside}/amenities`, testKey)).status).toBe(404);
    expect(ids(await api.get(`/projects?ids=1,${outside}`, testKey))).toEqual([1]);
    const batch = await api.get(`/projects/resources?ids=1,${outside}&include=amenities`, testKey);
    expect(batch.body.meta.omitted_project_ids).toEqual([outside]);
    expect(ids(await api.get('/projects/1/related', testKey))).toEqual([2, 3].filter((id) => sample.includes(id)));
    const changes = await api.get(`/projects/changes?updated_since=${encodeURIComponent(minute(0))}&per_page=100`, testKey);
    expect(ids(changes)).toEqual([...sample].sort((a, b) => a - b));
  });

  it('when developers, states and communities are read, then only those the sample names are available', async () => {
    expect(ids(await api.get('/developers', testKey))).toEqual([1]);
    expect((await api.get('/developers/aldar', testKey)).status).toBe(404);
    expect(ids(await api.get('/communities', testKey))).toEqual([1]);
    expect((await api.get('/communities/yas-island', testKey)).status).toBe(404);
    expect((await api.get('/states/abu-dhabi', testKey)).status).toBe(404);
    expect((await api.get('/states/dubai', testKey)).status).toBe(200);
  });

  it('when media, video and brochure are asked for, then media holds previews only and the others are EVALUATION_PREVIEW_ONLY', async () => {
    const media = await api.get('/projects/1/media', testKey);
    expect(media.status).toBe(200);
    const image = media.body.data.items[0].image;
    expect(new Set([image.url, image.url_1600, image.url_800, image.url_400]).size).toBe(1);
    expect(image.url).toMatch(/-400\.webp$/);
    expect(image).not.toHaveProperty('original_url');
    expect(media.body.data.master_plan_document).toBeNull();
    for (const path of ['/projects/1/video', '/projects/1/brochure']) {
      const answer = await api.get(path, testKey);
      expect(answer.status, path).toBe(403);
      expect(answer.body.error.code).toBe('EVALUATION_PREVIEW_ONLY');
    }
  });

  it('when the catalogue changes after evaluation started, then the sample stays as it was', async () => {
    await api.given([...published(PROJECTS + 1)]);
    const answer = await api.get('/projects?per_page=100', testKey);
    expect(answer.body.meta.pagination.total).toBe(50);
    expect(ids(answer)).not.toContain(PROJECTS + 1);
  });

  it('when evaluation is paused, then EVALUATION_ACCESS_PAUSED; after commercial activation live keys see the whole catalogue', async () => {
    const other = await api.issue();
    const otherTest = (await api.admin('POST', `/clients/${other.clientId}/keys`, { environment: 'test' })).body.data.key;
    await api.admin('POST', `/clients/${other.clientId}/evaluation`, {});
    expect((await api.admin('POST', `/clients/${other.clientId}/evaluation`, {})).status).toBe(409);
    expect((await api.admin('POST', `/clients/${other.clientId}/evaluation/pause`, {})).body.data.access_mode.paused).toBe(true);
    await api.settle();
    const paused = await api.get('/projects', otherTest);
    expect(paused.status).toBe(403);
    expect(paused.body.error.code).toBe('EVALUATION_ACCESS_PAUSED');

    const activated = await api.admin('POST', `/clients/${other.clientId}/commercial-activation`, { reason: 'staff_authorisation' });
    expect(activated.body.data.access_mode).toEqual({ mode: 'commercial' });
    await api.settle();
    const live = await api.get('/projects', other.key);
    expect(live.status).toBe(200);
    expect(live.headers.get('x-access-mode')).toBe('commercial');
    expect(live.headers.get('x-sandbox')).toBe('false');
    expect(live.body.meta.pagination.total).toBe(PROJECTS + 1);
    expect((await api.admin('POST', `/clients/${other.clientId}/evaluation/pause`, {})).status).toBe(409);
  });
});
