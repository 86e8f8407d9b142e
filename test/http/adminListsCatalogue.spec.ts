import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PROJECTS, adminCatalogueProjection } from '../../projections/adminCatalogue.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { leanReadCollections } from '../../src/service.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { adminClient, idsOf, type AdminClient } from './adminListsSupport.js';

/** One minute per command, so updated_at tells the commands apart. */
let now = Date.parse('2026-03-01T08:00:00.000Z');
const clock = () => new Date((now += 60_000));

describe('admin lists of the catalogue over HTTP', () => {
  let app: TestApp;
  let client: AdminClient;
  const world = {} as {
    dubai: number;
    abuDhabi: number;
    marina: number;
    yas: number;
    promenade: number;
    emaar: number;
    aldar: number;
    /** By name: Marina Heights (published), Marina Views (unpublished), Yas Acres (published, completed), Marina Gone (deleted). */
    heights: number;
    views: number;
    acres: number;
    gone: number;
    /** The time between creating Marina Views and Yas Acres. */
    beforeAcres: string;
  };

  beforeAll(async () => {
    app = await startTestApp({ clock });
    client = await adminClient(app);
    const { accepted } = client;
    world.dubai = (await accepted('POST', '/states', { name: 'Dubai', slug: 'dubai', country_code: 'AE' })).id;
    world.abuDhabi = (await accepted('POST', '/states', { name: 'Abu Dhabi', slug: 'abu-dhabi', country_code: 'AE' })).id;
    await accepted('POST', `/states/${world.dubai}/publish`);
    world.marina = (await accepted('POST', '/communities', { state_id: world.dubai, name: 'Dubai Marina', slug: 'dubai-marina' })).id;
    world.yas = (await accepted('POST', '/communities', { state_id: world.abuDhabi, name: 'Yas Island', slug: 'yas-island' })).id;
    world.promenade = (
      await accepted('POST', '/sub-communities', { community_id: world.marina, name: 'Marina Promenade', slug: 'marina-promenade' })
    ).id;
    await accepted('POST', '/sub-communities', { community_id: world.yas, name: 'Yas Bay', slug: 'yas-bay' });
    world.emaar = (await accepted('POST', '/developers', { name: 'Emaar', slug: 'emaar' })).id;
    world.aldar = (await accepted('POST', '/developers', { name: 'Aldar', slug: 'aldar' })).id;
    await accepted('POST', '/unit-types', { name: 'Studio', kind: 'studio', bedrooms: 0, sort_order: 10 });
    await accepted('POST', '/unit-types', { name: 'Office', kind: 'other', bedrooms: null, sort_order: 5 });

    const inMarina = { developer_id: world.emaar, state_id: world.dubai, community_id: world.marina, nature: 'off_plan' };
    world.heights = (await accepted('POST', '/projects', { name: 'Marina Heights', slug: 'marina-heights', ...inMarina })).id;
    world.views = (await accepted('POST', '/projects', { name: 'Marina Views', slug: 'marina-views', ...inMarina })).id;
    world.beforeAcres = new Date(now + 30_000).toISOString();
    world.acres = (
      await accepted('POST', '/projects', {
        name: 'Yas Acres',
        slug: 'yas-acres',
        developer_id: world.aldar,
        state_id: world.abuDhabi,
        community_id: world.yas,
        nature: 'ready',
      })
    ).id;
    world.gone = (await accepted('POST', '/projects', { name: 'Marina Gone', slug: 'marina-gone', ...inMarina })).id;
    await accepted('POST', `/projects/${world.heights}/publish`);
    await accepted('POST', `/projects/${world.acres}/publish`);
    await accepted('POST', `/projects/${world.acres}/status`, { status: 'completed' });
    await accepted('DELETE', `/projects/${world.gone}`);
    await client.projected();
  });
  afterAll(() => app.close());

  it('when projects are listed without parameters, then every project is, deleted and unpublished ones too, newest edit first, with revisions and pagination', async () => {
    const answer = await client.admin('/projects');
    expect(answer.status).toBe(200);
    client.expectDocumented('get', '/projects', answer);
    expect(idsOf(answer)).toEqual([world.gone, world.acres, world.heights, world.views]);
    expect(answer.body.meta.pagination).toEqual({ page: 1, per_page: 20, total: 4, total_pages: 1 });
    expect(answer.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    for (const item of answer.body.data as Array<{ id: number; revision: number }>) {
      const one = await client.admin(`/projects/${item.id}`);
      expect(one.headers.get('etag')).toBe(`"${item.revision}"`);
      expect(item).toMatchObject({ name: one.body.data.name, status: one.body.data.status, deleted: one.body.data.deleted });
    }
    expect(answer.body.data[0]).toMatchObject({ id: world.gone, deleted: true, published: false, revision: 1 });
    expect(answer.body.data[1]).toMatchObject({ id: world.acres, status: 'completed', published: true, revision: 2 });
  });

  it.each([
    ['q matching a developer name', 'q=ALDAR', ['acres']],
    ['q matching a slug part', 'q=marina-h', ['heights']],
    ['status', 'status=completed', ['acres']],
    ['published=true', 'published=true', ['acres', 'heights']],
    ['published=false', 'published=false', ['gone', 'views']],
    ['deleted=true', 'deleted=true', ['gone']],
    ['deleted=false', 'deleted=false', ['acres', 'heights', 'views']],
    ['a developer by slug', 'developer=emaar', ['gone', 'heights', 'views']],
    ['a state by slug', 'state=abu-dhabi', ['acres']],
    ['a community by slug', 'community=dubai-marina&deleted=false', ['heights', 'views']],
    ['a slug that names nothing', 'developer=nobody', []],
    ['updated_since', 'updated_since=BEFORE_ACRES', ['gone', 'acres', 'heights']],
  ] as const)('when projects are filtered by %s, then only the matching ones are listed', async (_label, parameters, names) => {
    const world2 = world as unknown as Record<string, number>;
    const answer = await client.admin(`/projects?${parameters.replace('BEFORE_ACRES', encodeURIComponent(world.beforeAcres))}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(idsOf(answer)).toEqual(names.map((name) => world2[name]));
    expect(answer.body.meta.pagination.total).toBe(names.length);
  });

  it('when a state is given by id instead of slug, then the same projects are listed', async () => {
    const bySlug = await client.admin('/projects?state=dubai&sort=id');
    const byId = await client.admin(`/projects?state=${world.dubai}&sort=id`);
    expect(idsOf(byId)).toEqual(idsOf(bySlug));
    expect(idsOf(byId)).toEqual([world.heights, world.views, world.gone]);
  });

  it('when projects are paged and sorted, then each page holds its slice of the one order and the totals', async () => {
    const byName = await client.admin('/projects?sort=name&per_page=3');
    expect(idsOf(byName)).toEqual([world.gone, world.heights, world.views]);
    expect(byName.body.meta.pagination).toEqual({ page: 1, per_page: 3, total: 4, total_pages: 2 });
    const second = await client.admin('/projects?sort=name&per_page=3&page=2');
    expect(idsOf(second)).toEqual([world.acres]);
    const descending = await client.admin('/projects?sort=-id&per_page=2&page=2');
    expect(idsOf(descending)).toEqual([world.views, world.heights]);
    const pastTheEnd = await client.admin('/projects?page=9');
    expect(pastTheEnd.body).toMatchObject({ data: [], meta: { pagination: { page: 9, total: 4, total_pages: 1 } } });
  });

  it('when projects are listed in each sort with every filter, then each list reads only fields the lean mirror holds', async () => {
    const filters =
      'q=marina&status=upcoming&published=true&deleted=false&developer=emaar&state=dubai&community=dubai-marina&updated_since=2000-01-01T00:00:00Z';
    const sorts = ['updated_at', 'edited_at', 'created_at', 'name', 'id'].flatMap((sort) => [sort, `-${sort}`]);
    for (const sort of sorts) expect(idsOf(await client.admin(`/projects?${filters}&sort=${sort}`))).toEqual([world.heights]);
    // The service's store is wrapped (metrics); a lean store of its own with the projection's declarations explains.
    const embedded = createEmbeddedReadStore({ leanCollections: leanReadCollections });
    await embedded.ensureIndexes(ADMIN_PROJECTS, adminCatalogueProjection.indexes![ADMIN_PROJECTS]!);
    await embedded.write([{ op: 'put', collection: ADMIN_PROJECTS, doc: { _id: 1, name: 'Marina Heights' } }]);
    const filter = {
      published: true,
      deleted: false,
      status: 'upcoming',
      developer_id: world.emaar,
      state_id: world.dubai,
      community_id: world.marina,
      updated_at: { $gt: '2000-01-01T00:00:00Z' },
    };

    const plans = await Promise.all(
      sorts.map((sort) =>
        embedded.explain({
          method: 'find',
          collection: ADMIN_PROJECTS,
          options: { filter, text: 'marina', sort: sort.startsWith('-') ? [[sort.slice(1), -1]] : [[sort, 1]], limit: 20 },
        }),
      ),
    );

    await embedded.close();

    expect(leanReadCollections).toContain(ADMIN_PROJECTS);
    expect(plans.filter((plan) => plan.source.startsWith('whole documents'))).toEqual([]);
  });

  it.each([
    ['an unknown parameter', '/projects?owner=me', { 'query.owner': 'is not a known field' }],
    ['per_page over 100', '/developers?per_page=101', { 'query.per_page': 'must be at most 100' }],
    ['a status that does not exist', '/projects?status=finished', { 'query.status': expect.stringContaining('must be one of') }],
    ['a sort field that is not offered', '/states?sort=country_code', { 'query.sort': expect.stringContaining('must be one of') }],
    ['published that is not a boolean', '/communities?published=yes', { 'query.published': 'must be true or false' }],
    ['updated_since without a time zone', '/sub-communities?updated_since=2026-01-01', { 'query.updated_since': expect.any(String) }],
    ['a kind that does not exist', '/unit-types?kind=loft', { 'query.kind': expect.stringContaining('must be one of') }],
  ])('when a list gets %s, then 422 VALIDATION_FAILED names the parameter', async (_label, path, fields) => {
    const answer = await client.admin(path);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { fields } });
  });

  it('when the reference data is listed, then every record is, published or not, with its revision and times, filtered as asked', async () => {
    const states = await client.admin('/states');
    client.expectDocumented('get', '/states', states);
    expect(states.body.data).toEqual([
      expect.objectContaining({ id: world.dubai, name: 'Dubai', published: true, revision: 1, created_at: expect.any(String) }),
      expect.objectContaining({ id: world.abuDhabi, published: false, revision: 0 }),
    ]);
    expect(idsOf(await client.admin('/states?published=false'))).toEqual([world.abuDhabi]);
    expect(idsOf(await client.admin('/states?q=abu'))).toEqual([world.abuDhabi]);

    const communities = await client.admin('/communities?state=abu-dhabi');
    client.expectDocumented('get', '/communities', communities);
    expect(idsOf(communities)).toEqual([world.yas]);
    expect(idsOf(await client.admin(`/communities?state=${world.dubai}`))).toEqual([world.marina]);

    const subCommunities = await client.admin('/sub-communities?community=dubai-marina');
    client.expectDocumented('get', '/sub-communities', subCommunities);
    expect(subCommunities.body.data).toEqual([expect.objectContaining({ id: world.promenade, community_id: world.marina, revision: 0 })]);

    const developers = await client.admin('/developers?sort=name');
    client.expectDocumented('get', '/developers', developers);
    expect(idsOf(developers)).toEqual([world.aldar, world.emaar]);
    expect(idsOf(await client.admin('/developers?q=EMA'))).toEqual([world.emaar]);

    const unitTypes = await client.admin('/unit-types');
    client.expectDocumented('get', '/unit-types', unitTypes);
    expect(unitTypes.body.data.map((item: { name: string }) => item.name)).toEqual(['Office', 'Studio']);
    expect((await client.admin('/unit-types?kind=studio')).body.data).toEqual([expect.objectContaining({ name: 'Studio', bedrooms: 0 })]);
  });

  it('when a list item is edited with the revision it shows as If-Match, then the edit succeeds; the revision before it is then stale', async () => {
    const [listed] = (await client.admin(`/developers?q=aldar`)).body.data as Array<{ id: number; revision: number }>;
    const revised = await client.admin(`/developers/${listed!.id}`, {
      method: 'PATCH',
      headers: { 'if-match': `"${listed!.revision}"` },
      body: { description: 'Abu Dhabi developer' },
    });
    expect(revised.status).toBe(200);
    const stale = await client.admin(`/developers/${listed!.id}`, {
      method: 'PATCH',
      headers: { 'if-match': `"${listed!.revision}"` },
      body: { description: 'Lost edit' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'CONFLICT', details: { expected_revision: listed!.revision } });
    await client.projected();
    expect((await client.admin(`/developers?q=aldar`)).body.data).toEqual([
      expect.objectContaining({ revision: listed!.revision + 1, description: 'Abu Dhabi developer' }),
    ]);
  });

  it('when a list is asked again with its ETag, then 304; once the list changes, the ETag does too', async () => {
    const first = await client.admin('/states');
    const etag = first.headers.get('etag')!;
    expect((await client.admin('/states', { headers: { 'if-none-match': etag } })).status).toBe(304);
    await client.accepted('POST', '/states', { name: 'Sharjah', slug: 'sharjah', country_code: 'AE' });
    await client.projected();
    const changed = await client.admin('/states', { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });
});
