import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/access/accessContext.js';
import { imageRef, minute, projectCreated, projectEvent, UNIT, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

let api: ApiFixture;
let key: string;

const pdf = (key: string) => ({ key, file_name: `${key}.pdf`, content_type: 'application/pdf' as const, size_bytes: 52_000 });

const published = (id: number): StreamEvent[] => [projectCreated(id, {}, minute(id)), projectEvent('ProjectPublished', id, {}, minute(id))];

/** Project 1 has every related collection; 2 has none; 3 is unpublished; 4-30 are bare published projects. */
beforeAll(async () => {
  api = await startApiFixture();
  const events: StreamEvent[] = [...publishedReferenceCatalogue(), ...published(1), ...published(2), projectCreated(3, {}, minute(3))];
  for (let id = 4; id <= 30; id++) events.push(...published(id));
  events.push(
    projectEvent('FloorPlanAdded', 1, {
      floor_plan: {
        floor_plan_id: 11,
        title: 'Type A',
        unit_type_id: UNIT.oneBedroom,
        area: 812.6,
        price: 1_200_000,
        image: imageRef('fp11'),
      },
    }),
    projectEvent('PaymentPlanAdded', 1, {
      payment_plan: {
        payment_plan_id: 21,
        name: '60/40',
        milestones: [
          { label: 'Booking', percent: 60, due: null },
          { label: 'Handover', percent: 40, due: 'On handover' },
        ],
      },
    }),
    projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 31, caption: 'Front', position: 0, image: imageRef('g31') } }),
    projectEvent('MasterPlanDocumentAttached', 1, { document: pdf('mp1') }),
    projectEvent('VideoSet', 1, {
      video: {
        title: 'Walkthrough',
        description: null,
        external_url: 'https://video.example.com/1',
        file: null,
        thumbnail: imageRef('v1'),
      },
    }),
    projectEvent('AmenitiesSet', 1, { items: [{ name: 'Pool', icon: 'pool' }] }),
    projectEvent('NearbyPlacesSet', 1, { items: [{ name: 'Metro', category: 'transport', distance_km: 0.4 }] }),
    projectEvent('PaymentMethodsSet', 1, { items: [{ name: 'Bank transfer', description: null }] }),
    projectEvent('FaqsSet', 1, { items: [{ question: 'Handover?', answer: 'Q4 2027.' }] }),
    projectEvent('VirtualToursSet', 1, { items: [{ title: '360', url: 'https://tour.example.com/1' }] }),
    projectEvent('FloorPlatesSet', 1, { items: [{ title: 'Typical floor', floors: '5-12', image: imageRef('fl1') }] }),
    projectEvent('BrochureAttached', 1, { brochure: pdf('br1') }),
    projectEvent('RelatedProjectsSet', 1, { project_ids: [2, 3, 999] }),
  );
  await api.given(events);
  key = await api.key();
});

afterAll(async () => {
  await api.close();
});

describe('project sub-resources', () => {
  it("when each collection is asked, then it answers with the project's items", async () => {
    const data = async (path: string) => {
      const answer = await api.get(`/projects/1/${path}`, key);
      expect(answer.status, path).toBe(200);
      return answer.body.data;
    };
    const floorPlans = await data('floor-plans');
    expect(floorPlans).toEqual([
      {
        id: 11,
        title: 'Type A',
        unit_type_id: UNIT.oneBedroom,
        area: 813,
        price: 1_200_000,
        image: {
          url: `${api.app.baseUrl}/v1/media/floor-plan-11/fp11.webp`,
          url_1600: `${api.app.baseUrl}/v1/media/floor-plan-11/fp11-1600.webp`,
          url_800: `${api.app.baseUrl}/v1/media/floor-plan-11/fp11-800.webp`,
          url_400: `${api.app.baseUrl}/v1/media/floor-plan-11/fp11-400.webp`,
          original_url: `${api.app.baseUrl}/v1/media/floor-plan-11/fp11-original.jpg`,
        },
      },
    ]);
    expect(await data('payment-plans')).toEqual([
      {
        id: 21,
        name: '60/40',
        milestones: [
          { label: 'Booking', percent: 60, due: null },
          { label: 'Handover', percent: 40, due: 'On handover' },
        ],
      },
    ]);
    const media = await data('media');
    expect(media.items).toEqual([expect.objectContaining({ id: 31, caption: 'Front', position: 0 })]);
    expect(media.items[0].image.url).toBe(`${api.app.baseUrl}/v1/media/31/g31.webp`);
    expect(media.master_plan_document).toMatchObject({ file_name: 'mp1.pdf', size_bytes: 52_000 });
    expect(media.master_plan_document.download_url).toMatch(
      /\/v1\/documents\/master-plan\/mp1\/mp1\.pdf\?expires=\d+&signature=[0-9a-f]{64}$/,
    );
    expect(await data('amenities')).toEqual([{ name: 'Pool', icon: 'pool' }]);
    expect(await data('nearby')).toEqual([{ name: 'Metro', category: 'transport', distance_km: 0.4 }]);
    expect(await data('payment-methods')).toEqual([{ name: 'Bank transfer', description: null }]);
    expect(await data('faqs')).toEqual([{ question: 'Handover?', answer: 'Q4 2027.' }]);
    expect(await data('virtual-tours')).toEqual([{ title: '360', url: 'https://tour.example.com/1' }]);
    expect((await data('floor-plates'))[0]).toMatchObject({
      title: 'Typical floor',
      floors: '5-12',
      image: { url: `${api.app.baseUrl}/v1/media/floor-plate-1/fl1.webp` },
    });
  });

  it('when the video is asked, then the video object comes with at most one of external_url and file_url', async () => {
    const answer = await api.get('/projects/project-1/video', key);
    expect(answer.body.data).toEqual({
      title: 'Walkthrough',
      description: null,
      external_url: 'https://video.example.com/1',
      file_url: null,
      file_expires_at: null,
      thumbnail_url: `${api.app.baseUrl}/v1/media/video-1/v1.webp`,
    });
  });

  it('when the project has no video, then 404 VIDEO_NOT_AVAILABLE', async () => {
    const answer = await api.get('/projects/2/video', key);
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('VIDEO_NOT_AVAILABLE');
  });

  it('when the brochure is asked, then a short-lived signed link comes; without one, 404 DOCUMENT_UNAVAILABLE', async () => {
    const answer = await api.get('/projects/1/brochure', key);
    expect(answer.status).toBe(200);
    expect(answer.body.data.download_url).toMatch(/\/v1\/documents\/brochure\/br1\/br1\.pdf\?expires=\d+&signature=[0-9a-f]{64}$/);
    const expiresIn = Date.parse(answer.body.data.expires_at) - Date.now();
    // The 15-minute TTL, rounded up to the 5-minute expiry window.
    expect(expiresIn).toBeGreaterThan(14 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(20 * 60_000);
    expect((await api.get('/projects/2/brochure', key)).body.error.code).toBe('DOCUMENT_UNAVAILABLE');
  });

  it('when related projects are asked, then only accessible ones are listed', async () => {
    const answer = await api.get('/projects/1/related', key);
    expect(answer.body.data.map((project: { id: number }) => project.id)).toEqual([2]);
  });

  it('when the project is unpublished or unknown, then every sub-resource answers 404 NOT_FOUND', async () => {
    for (const path of [
      'floor-plans',
      'payment-plans',
      'media',
      'video',
      'amenities',
      'nearby',
      'payment-methods',
      'faqs',
      'virtual-tours',
      'floor-plates',
      'brochure',
      'related',
    ]) {
      for (const project of ['3', '999']) {
        const answer = await api.get(`/projects/${project}/${path}`, key);
        expect(answer.status, `${project}/${path}`).toBe(404);
        expect(answer.body.error.code).toBe('NOT_FOUND');
      }
    }
  });

  it('when the key lacks a premium entitlement, then 403 ENTITLEMENT_REQUIRED names it; a missing scope gives INSUFFICIENT_SCOPE', async () => {
    const noEntitlements = await api.key({ entitlements: [] });
    const cases: Array<[string, string]> = [
      ['floor-plans', 'floorplans'],
      ['media', 'images'],
      ['video', 'images'],
      ['virtual-tours', 'virtual_tours'],
      ['floor-plates', 'floorplates'],
      ['brochure', 'brochures'],
    ];
    for (const [path, entitlement] of cases) {
      const answer = await api.get(`/projects/1/${path}`, noEntitlements);
      expect(answer.status, path).toBe(403);
      expect(answer.body.error).toMatchObject({ code: 'ENTITLEMENT_REQUIRED', details: { missing_entitlements: [entitlement] } });
    }
    expect((await api.get('/projects/1/amenities', noEntitlements)).status).toBe(200);
    const noAmenities = await api.key({ scopes: ['projects:read'] });
    const refused = await api.get('/projects/1/amenities', noAmenities);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { missing_scopes: ['amenities:read'] } });
  });
});

describe('GET /v1/projects/resources', () => {
  it("when ids and includes are given, then each accessible project's collections come, the rest are listed as omitted", async () => {
    const answer = await api.get('/projects/resources?ids=1,3,2,999&include=payment_plans,floor-plans,media', key);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((item: { project_id: number }) => item.project_id)).toEqual([1, 2]);
    const [first, second] = answer.body.data;
    expect(Object.keys(first.resources).sort()).toEqual(['floor_plans', 'media', 'payment_plans']);
    expect(first.resources.payment_plans.items).toHaveLength(1);
    expect(first.resources.floor_plans.items[0].id).toBe(11);
    expect(first.resources.media).toMatchObject({
      items: [expect.objectContaining({ id: 31 })],
      master_plan_document: expect.objectContaining({ file_name: 'mp1.pdf' }),
    });
    expect(second.resources).toEqual({
      payment_plans: { items: [] },
      floor_plans: { items: [] },
      media: { items: [], master_plan_document: null },
    });
    expect(answer.body.meta).toMatchObject({
      representation: 'related_resources',
      requested_project_count: 4,
      returned_project_count: 2,
      omitted_project_ids: [3, 999],
      included_resources: ['payment_plans', 'floor_plans', 'media'],
      quota_units: 3,
    });
    expect(answer.headers.get('x-quota-units')).toBe('3');
  });

  it('when 25 projects x 1 resource or 25 x 5 are asked, then they cost 5 and 25 units', async () => {
    const ids = Array.from({ length: 25 }, (_, index) => index + 4).join(',');
    const one = await api.get(`/projects/resources?ids=${ids}&include=amenities`, key);
    const five = await api.get(`/projects/resources?ids=${ids}&include=media,floor_plans,amenities,payment_plans,payment_methods`, key);
    expect([one.status, five.status]).toEqual([200, 200]);
    expect([one.body.meta.quota_units, five.body.meta.quota_units]).toEqual([5, 25]);
    expect([one.headers.get('x-quota-units'), five.headers.get('x-quota-units')]).toEqual(['5', '25']);
  });

  it("when the key lacks a requested resource's scope or entitlement, then the whole request is 403 naming what is missing, with no data", async () => {
    const narrow = await api.key({ scopes: ['amenities:read', 'media:read'] satisfies Scope[], entitlements: [] });
    const answer = await api.get('/projects/resources?ids=1&include=amenities,floor_plans,media', narrow);
    expect(answer.status).toBe(403);
    expect(answer.body).not.toHaveProperty('data');
    expect(answer.body.error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      details: { missing_scopes: ['floorplans:read'], missing_entitlements: ['floorplans', 'images'] },
    });
    const entitlementsOnly = await api.get('/projects/resources?ids=1&include=media', narrow);
    expect(entitlementsOnly.body.error).toMatchObject({
      code: 'ENTITLEMENT_REQUIRED',
      details: { missing_scopes: [], missing_entitlements: ['images'] },
    });
  });

  it('when ids or include break the rules, then 422 names the parameter', async () => {
    const twentySix = Array.from({ length: 26 }, (_, index) => index + 1).join(',');
    const cases: Array<[string, string]> = [
      [`ids=${twentySix}&include=media`, 'query.ids'],
      ['ids=1,1&include=media', 'query.ids'],
      ['ids=1&include=media,videos', 'query.include'],
      ['ids=1&include=floor_plans,floor-plans', 'query.include'],
      ['include=media', 'query.ids'],
      ['ids=1', 'query.include'],
      ['ids=1&include=media&view=detail', 'query.view'],
    ];
    for (const [query, field] of cases) {
      const answer = await api.get(`/projects/resources?${query}`, key);
      expect(answer.status, query).toBe(422);
      expect(answer.body.error.details.fields, query).toHaveProperty([field]);
    }
  });
});
