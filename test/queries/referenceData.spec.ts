import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  communityCreated,
  communityEvent,
  developerCreated,
  developerEvent,
  imageRef,
  minute,
  stateCreated,
  subCommunityCreated,
  unitTypeEvent,
  UNIT,
} from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

let api: ApiFixture;
let key: string;

const ids = (answer: { body: { data: Array<{ id: number }> } }) => answer.body.data.map((item) => item.id);

/** The published reference catalogue, plus developer 3 (with a logo, revised later), and unpublished state 3, community 4, sub-community 3, developer 4. */
beforeAll(async () => {
  api = await startApiFixture();
  await api.given([
    ...publishedReferenceCatalogue(),
    developerCreated(3, { name: 'Nakheel', slug: 'nakheel', logo: imageRef('logo3') }, minute(5)),
    developerEvent({ type: 'DeveloperPublished', data: { developer_id: 3, at: minute(6) } }),
    developerEvent({ type: 'DeveloperRevised', data: { developer_id: 3, changes: { description: 'Palm Jumeirah' }, at: minute(30) } }),
    stateCreated(3, { name: 'Sharjah', slug: 'sharjah' }),
    communityCreated(4, { state_id: 1, name: 'Hidden Hills', slug: 'hidden-hills' }),
    subCommunityCreated(3, { community_id: 1, name: 'Hidden Walk', slug: 'hidden-walk' }),
    developerCreated(4, { name: 'Hidden Developer', slug: 'hidden-developer' }),
    communityEvent({ type: 'CommunityRevised', data: { community_id: 3, changes: { description: 'Island' }, at: minute(40) } }),
  ]);
  key = await api.key();
});

afterAll(async () => {
  await api.close();
});

describe('developers', () => {
  it('when listed, then published developers come by name with pagination; sort and text work', async () => {
    const answer = await api.get('/developers', key);
    expect(ids(answer)).toEqual([2, 1, 3]);
    expect(answer.body.meta.pagination).toEqual({ page: 1, per_page: 20, total: 3, total_pages: 1 });
    expect(ids(await api.get('/developers?sort=-name', key))).toEqual([3, 1, 2]);
    expect(ids(await api.get('/developers?q=nakh', key))).toEqual([3]);
    expect(ids(await api.get(`/developers?updated_since=${encodeURIComponent(minute(20))}`, key))).toEqual([3]);
    expect(ids(await api.get('/developers?sort=-updated_at&per_page=1', key))).toEqual([3]);
  });

  it('when one is asked by id or slug, then it comes with its logo addresses; an unpublished one is 404', async () => {
    const answer = await api.get('/developers/nakheel', key);
    expect(answer.body.data).toMatchObject({
      id: 3,
      name: 'Nakheel',
      description: 'Palm Jumeirah',
      logo: { url: `${api.app.baseUrl}/v1/media/developer-3/logo3.webp` },
    });
    expect((await api.get('/developers/3', key)).body.data).toEqual(answer.body.data);
    expect((await api.get('/developers/hidden-developer', key)).status).toBe(404);
  });
});

describe('communities, states and sub-communities', () => {
  it('when communities are listed, filtered by state (id or slug), then only published ones in it come', async () => {
    expect(ids(await api.get('/communities', key))).toEqual([2, 1, 3]);
    expect(ids(await api.get('/communities?state=dubai', key))).toEqual([2, 1]);
    expect(ids(await api.get('/communities?state=2', key))).toEqual([3]);
    expect(ids(await api.get('/communities?state=sharjah', key))).toEqual([]);
    const yas = (await api.get('/communities/yas-island', key)).body.data;
    expect(yas).toMatchObject({
      id: 3,
      description: 'Island',
      state: { id: 2, name: 'Abu Dhabi', slug: 'abu-dhabi' },
      location: { latitude: null, longitude: null },
    });
    expect((await api.get('/communities/hidden-hills', key)).status).toBe(404);
  });

  it('when a state is asked, then a published one answers and an unpublished one is 404', async () => {
    expect((await api.get('/states/dubai', key)).body.data).toMatchObject({ id: 1, name: 'Dubai', slug: 'dubai', country_code: 'AE' });
    expect((await api.get('/states/sharjah', key)).status).toBe(404);
  });

  it('when sub-communities are listed, filtered by state or community, then only published matches come', async () => {
    expect(ids(await api.get('/sub-communities', key))).toEqual([1, 2]);
    expect(ids(await api.get('/sub-communities?community=dubai-marina', key))).toEqual([1]);
    expect(ids(await api.get('/sub-communities?state=dubai&community=downtown-dubai', key))).toEqual([2]);
    expect(ids(await api.get('/sub-communities?state=abu-dhabi', key))).toEqual([]);
    expect((await api.get('/sub-communities/marina-walk', key)).body.data).toMatchObject({
      id: 1,
      community: { id: 1, slug: 'dubai-marina' },
      state: { id: 1, slug: 'dubai' },
    });
    expect((await api.get('/sub-communities/hidden-walk', key)).status).toBe(404);
  });

  it('when list parameters are bad, then 422 names each', async () => {
    const answer = await api.get('/sub-communities?per_page=0&sort=size&state=Not%20A%20Slug&nature=ready', key);
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.details.fields).sort()).toEqual(['query.nature', 'query.per_page', 'query.sort', 'query.state']);
  });
});

describe('catalog metadata', () => {
  it('when asked, then unit types are listed with string ids in display order, with the nature values', async () => {
    await api.given([
      unitTypeEvent({ type: 'UnitTypeRevised', data: { unit_type_id: UNIT.retail, changes: { name: 'Retail unit' }, at: minute(50) } }),
    ]);
    const { data } = (await api.get('/catalog/metadata', key)).body;
    expect(data.unit_types.map((unitType: { id: string }) => unitType.id)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(data.unit_types[0]).toEqual({ id: '1', name: 'Studio', kind: 'studio', bedrooms: 0, sort_order: 0 });
    expect(data.unit_types.at(-1)).toMatchObject({ name: 'Retail unit', kind: 'other', bedrooms: null });
    expect(data.natures).toEqual(['off_plan', 'ready']);
  });

  it('when the key lacks catalog:read, then 403 INSUFFICIENT_SCOPE', async () => {
    const answer = await api.get('/catalog/metadata', await api.key({ scopes: ['projects:read'] }));
    expect(answer.status).toBe(403);
    expect(answer.body.error.details.missing_scopes).toEqual(['catalog:read']);
  });
});
