import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNIT, imageRef, minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

/** An acceptable embed in canonical form, so it is stored and served as it is. */
const MAP_EMBED = '<iframe src="https://www.openstreetmap.org/export/embed.html?bbox=55.13%2C25.07%2C55.15%2C25.09"></iframe>';

let api: ApiFixture;
let key: string;

/** A published project created at minute `id`. */
const publishedProject = (id: number, overrides: Parameters<typeof projectCreated>[1] = {}): StreamEvent[] => [
  projectCreated(id, overrides, minute(id)),
  projectEvent('ProjectPublished', id, {}, minute(id)),
];

/**
 * Projects 1-12 published (1-6 in Dubai Marina by Emaar, 7-12 on Yas Island by Aldar, ready from 9 on),
 * 13 unpublished, 14 deleted.
 */
beforeAll(async () => {
  api = await startApiFixture();
  const projects: StreamEvent[] = [];
  for (let id = 1; id <= 12; id++) {
    const abuDhabi = id > 6;
    projects.push(
      ...publishedProject(id, {
        name: `${String.fromCharCode(64 + id)} Tower`,
        ...(abuDhabi ? { developer_id: 2, state_id: 2, community_id: 3 } : {}),
        nature: id >= 9 ? 'ready' : 'off_plan',
        starting_from: id * 100_000,
      }),
    );
  }
  projects.push(projectCreated(13, {}, minute(13)));
  projects.push(...publishedProject(14), projectEvent('ProjectDeleted', 14, {}, minute(20)));
  await api.given([...publishedReferenceCatalogue(), ...projects]);
  key = await api.key();
});

afterAll(async () => {
  await api.close();
});

describe('GET /v1/projects', () => {
  it('when listed without parameters, then published projects come newest edit first, 20 per page, with pagination', async () => {
    const answer = await api.get('/projects', key);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((project: { id: number }) => project.id)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(answer.body.meta.pagination).toEqual({ page: 1, per_page: 20, total: 12, total_pages: 1 });
    expect(answer.body.meta.request_id).toBe(answer.headers.get('x-request-id'));
    expect(answer.body.meta.generated_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(answer.headers.get('etag')).toMatch(/^"[^"]+"$/);
  });

  it('when sorted by each field both ways, then the order follows', async () => {
    const ids = async (sort: string) =>
      (await api.get(`/projects?sort=${sort}`, key)).body.data.map((project: { id: number }) => project.id);
    expect(await ids('name')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await ids('-name')).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(await ids('starting_from')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await ids('-starting_from')).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(await ids('updated_at')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('when paged, then pages partition the list and totals count every page', async () => {
    const first = await api.get('/projects?sort=name&per_page=5&page=1', key);
    const third = await api.get('/projects?sort=name&per_page=5&page=3', key);
    expect(first.body.data.map((project: { id: number }) => project.id)).toEqual([1, 2, 3, 4, 5]);
    expect(third.body.data.map((project: { id: number }) => project.id)).toEqual([11, 12]);
    expect(third.body.meta.pagination).toEqual({ page: 3, per_page: 5, total: 12, total_pages: 3 });
  });

  it('when filtered by developer, community or state (id or slug), nature, price and text, then only matches are listed', async () => {
    const ids = async (query: string) =>
      (await api.get(`/projects?sort=name&${query}`, key)).body.data.map((project: { id: number }) => project.id);
    expect(await ids('developer=aldar')).toEqual([7, 8, 9, 10, 11, 12]);
    expect(await ids('developer=1')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await ids('community=yas-island&nature=ready')).toEqual([9, 10, 11, 12]);
    expect(await ids('state=dubai')).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await ids('min_price=300000&max_price=500000')).toEqual([3, 4, 5]);
    expect(await ids('q=c%20tow')).toEqual([3]);
    expect(await ids('q=YAS')).toEqual([7, 8, 9, 10, 11, 12]);
    expect(await ids('developer=no-such-developer')).toEqual([]);
  });

  it('when filtered by updated_since, then only projects whose own updated_at is later are listed', async () => {
    const answer = await api.get(`/projects?sort=name&updated_since=${encodeURIComponent(minute(10))}`, key);
    expect(answer.body.data.map((project: { id: number }) => project.id)).toEqual([11, 12]);
  });

  it('when ids are given, then those published projects come in the order given and the rest are omitted from the totals', async () => {
    const answer = await api.get('/projects?ids=5,13,2,14,999,9', key);
    expect(answer.body.data.map((project: { id: number }) => project.id)).toEqual([5, 2, 9]);
    expect(answer.body.meta.pagination.total).toBe(3);
    expect(answer.headers.get('x-quota-units')).toBeNull();
  });

  it('when view=detail with ids, then detail representations come, sized to the ids, costing one unit per 10 ids', async () => {
    const answer = await api.get('/projects?view=detail&ids=1,2,3', key);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(3);
    expect(answer.body.data[0]).toHaveProperty('overview', 'Overview');
    expect(answer.body.data[0]).toHaveProperty('map_embed_html', null);
    expect(answer.body.meta.pagination).toEqual({ page: 1, per_page: 3, total: 3, total_pages: 1 });
    expect(answer.body.meta.quota_units).toBe(1);
    expect(answer.headers.get('x-quota-units')).toBe('1');
  });

  it('when a detail batch names 1, 10, 11 or 100 ids, then it costs 1, 1, 2 or 10 units', async () => {
    const units = async (count: number) => {
      const ids = Array.from({ length: count }, (_, index) => index + 1).join(',');
      const answer = await api.get(`/projects?view=detail&ids=${ids}`, key);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-quota-units')).toBe(String(answer.body.meta.quota_units));
      return answer.body.meta.quota_units;
    };
    expect([await units(1), await units(10), await units(11), await units(100)]).toEqual([1, 1, 2, 10]);
  });

  it('when the summary is listed, then detail-only fields are absent and representation rules hold', async () => {
    const [project] = (await api.get('/projects?ids=1', key)).body.data;
    for (const field of [
      'overview',
      'description',
      'master_plan',
      'property_no',
      'license_no',
      'project_types',
      'video_description',
      'map_embed_html',
      'down_payment_percent',
      'service_charges',
    ]) {
      expect(project).not.toHaveProperty(field);
    }
    expect(project).toMatchObject({
      id: 1,
      slug: 'project-1',
      developer: { id: 1, name: 'Emaar Properties', slug: 'emaar' },
      state: { id: 1, name: 'Dubai', slug: 'dubai' },
      community: { id: 1, slug: 'dubai-marina' },
      sub_community: null,
      bedrooms: [String(UNIT.oneBedroom), String(UNIT.twoBedrooms)],
      bedroom_range: { min: 1, max: 2, max_or_more: false, label: '1 – 2 Bedrooms' },
      area_from: 650,
      area_to: '1,235 sq ft',
      location: { latitude: 25.08, longitude: 55.14 },
    });
  });

  it('when parameters are bad, then 422 VALIDATION_FAILED names each one and nothing is clamped', async () => {
    const answer = await api.get('/projects?per_page=101&page=0&sort=price&nature=villa&foo=1&min_price=abc&updated_since=yesterday', key);
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(answer.body.error.details.fields).sort()).toEqual(
      ['query.foo', 'query.min_price', 'query.nature', 'query.page', 'query.per_page', 'query.sort', 'query.updated_since'].sort(),
    );
  });

  it('when ids are duplicated, too many, or view=detail comes without ids, then 422 names ids', async () => {
    const tooMany = Array.from({ length: 101 }, (_, index) => index + 1).join(',');
    for (const query of ['ids=1,2,1', `ids=${tooMany}`, 'view=detail', 'view=detail&ids=1,1', 'ids=1,,2', 'ids=-1']) {
      const answer = await api.get(`/projects?${query}`, key);
      expect(answer.status, query).toBe(422);
      expect(answer.body.error.details.fields, query).toHaveProperty(['query.ids']);
    }
  });

  it('when a parameter is repeated, then 422 names it instead of picking one', async () => {
    const answer = await api.get('/projects?page=1&page=2', key);
    expect(answer.status).toBe(422);
    expect(answer.body.error.details.fields).toHaveProperty(['query.page']);
  });
});

describe('GET /v1/projects/{id-or-slug}', () => {
  it('when asked by id or slug, then the same detail representation comes back', async () => {
    const byId = await api.get('/projects/3', key);
    const bySlug = await api.get('/projects/project-3', key);
    expect(byId.status).toBe(200);
    expect(bySlug.body.data).toEqual(byId.body.data);
    expect(byId.body.data).toMatchObject({
      id: 3,
      overview: 'Overview',
      description: 'Description',
      property_no: 'P-3',
      project_types: ['Apartments'],
      down_payment_percent: 20,
    });
  });

  it('when the project is unpublished, deleted or unknown, then the one 404 NOT_FOUND answers', async () => {
    for (const path of ['/projects/13', '/projects/14', '/projects/999', '/projects/no-such-project']) {
      const answer = await api.get(path, key);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error).toEqual({ code: 'NOT_FOUND', message: expect.any(String), details: {} });
    }
  });

  it('when the id-or-slug is malformed, then 422 names params.project', async () => {
    const answer = await api.get('/projects/Not_A_Slug', key);
    expect(answer.status).toBe(422);
    expect(answer.body.error.details.fields).toHaveProperty(['params.project']);
  });
});

describe('representation rules', () => {
  beforeAll(async () => {
    await api.given([
      ...publishedProject(40, { unit_type_ids: [UNIT.studio, UNIT.threeBedrooms], location: null, map_embed_html: MAP_EMBED }),
      ...publishedProject(41, { unit_type_ids: [UNIT.office, UNIT.retail], area_from: 1000.5, area_to: null }),
      ...publishedProject(42, { unit_type_ids: [UNIT.oneBedroom, UNIT.sixPlus] }),
      ...publishedProject(43, { unit_type_ids: [UNIT.studio] }),
    ]);
  });

  it('when a project has a studio, then it counts 0 bedrooms (never 1) and the label prints Studio', async () => {
    const { data } = (await api.get('/projects/40', key)).body;
    expect(data.bedroom_types).toEqual([
      { id: UNIT.studio, name: 'Studio', bedrooms: 0, kind: 'studio' },
      { id: UNIT.threeBedrooms, name: '3 Bedrooms', bedrooms: 3, kind: 'bedrooms' },
    ]);
    expect(data.bedroom_range).toEqual({ min: 0, max: 3, max_or_more: false, label: 'Studio – 3 Bedrooms' });
    expect((await api.get('/projects/43', key)).body.data.bedroom_range).toEqual({ min: 0, max: 0, max_or_more: false, label: 'Studio' });
  });

  it('when coordinates are not populated, then both are null; a configured map embed is in the detail', async () => {
    const { data } = (await api.get('/projects/40', key)).body;
    expect(data.location).toEqual({ latitude: null, longitude: null });
    expect(data.map_embed_html).toBe(MAP_EMBED);
  });

  it('when a project has only non-residential types, then bedroom_range is null and kind other has null bedrooms', async () => {
    const { data } = (await api.get('/projects/41', key)).body;
    expect(data.bedrooms).toEqual([String(UNIT.office), String(UNIT.retail)]);
    expect(data.bedroom_types.map((type: { kind: string; bedrooms: unknown }) => [type.kind, type.bedrooms])).toEqual([
      ['other', null],
      ['other', null],
    ]);
    expect(data.bedroom_range).toBeNull();
    expect(data.area_from).toBe(1001);
    expect(data.area_to).toBeNull();
  });

  it('when a project has a 6+ type, then it is bedrooms_or_more with 6 and the label prints 6+', async () => {
    const { data } = (await api.get('/projects/42', key)).body;
    expect(data.bedroom_types.at(-1)).toEqual({ id: UNIT.sixPlus, name: '6+ Bedrooms', bedrooms: 6, kind: 'bedrooms_or_more' });
    expect(data.bedroom_range).toEqual({ min: 1, max: 6, max_or_more: true, label: '1 – 6+ Bedrooms' });
  });
});

describe('GET /v1/projects/changes', () => {
  let feedKey: string;
  const since = minute(1000);
  const changedIds = async (query = '') =>
    (await api.get(`/projects/changes?updated_since=${encodeURIComponent(since)}${query}`, feedKey)).body.data.map(
      (change: { project_id: number }) => change.project_id,
    );

  beforeAll(async () => {
    feedKey = await api.key({ scopes: ['projects:sync'] });
    await api.given([
      projectEvent('ProjectRevised', 5, { changes: { name: 'E Tower Revised' } }, minute(1001)),
      projectEvent(
        'PaymentPlanAdded',
        2,
        { payment_plan: { payment_plan_id: 1, name: 'Plan', milestones: [{ label: 'All', percent: 100, due: null }] } },
        minute(1002),
      ),
      projectEvent(
        'GalleryPictureAdded',
        3,
        { picture: { media_id: 1, caption: null, position: 0, image: imageRef('aa11') } },
        minute(1003),
      ),
      projectEvent('FloorPlanImageReplaced', 1, { floor_plan_id: 99, image: imageRef('bb22') }, minute(1004)),
      projectEvent('AmenitiesSet', 4, { items: [{ name: 'Pool', icon: null }] }, minute(1005)),
      projectEvent('FaqsSet', 5, { items: [{ question: 'Q?', answer: 'A.' }] }, minute(1006)),
      projectEvent('ProjectUnpublished', 6, {}, minute(1007)),
      projectEvent('ProjectRevised', 13, { changes: { name: 'Never shown' } }, minute(1008)),
    ]);
  });

  it('when related collections are edited, then the project is reported with its own older updated_at, newest first; image-only changes are not', async () => {
    const answer = await api.get(`/projects/changes?updated_since=${encodeURIComponent(since)}`, feedKey);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((change: { project_id: number }) => change.project_id)).toEqual([6, 5, 4, 3, 2]);
    const payment = answer.body.data.find((change: { project_id: number }) => change.project_id === 2);
    expect(payment).toMatchObject({ changes: ['payment_plans'], removed: false, changed_at: minute(1002) });
    expect(payment.project.updated_at).toBe(minute(2));
    expect(answer.body.data.find((change: { project_id: number }) => change.project_id === 5)).toMatchObject({
      changes: ['project', 'faqs'],
      changed_at: minute(1006),
      project: { name: 'E Tower Revised', updated_at: minute(1001) },
    });
  });

  it('when a project is unpublished in the window, then it is reported removed without its data; never-shown projects are not reported', async () => {
    const answer = await api.get(`/projects/changes?updated_since=${encodeURIComponent(since)}`, feedKey);
    expect(answer.body.data.find((change: { project_id: number }) => change.project_id === 6)).toEqual({
      project_id: 6,
      changed_at: minute(1007),
      changes: ['project'],
      removed: true,
      project: null,
    });
    expect(answer.body.data.some((change: { project_id: number }) => change.project_id === 13)).toBe(false);
  });

  it('when edits arrive while the pages are read, then no project is skipped, and the cursor of the first page reports the edited ones', async () => {
    const firstPage = await api.get(`/projects/changes?updated_since=${encodeURIComponent(since)}&per_page=2&page=1`, feedKey);
    const first = firstPage.body.data.map((change: { project_id: number }) => change.project_id);
    expect(first).toEqual([6, 5]);
    await api.given([
      projectEvent('ProjectRevised', 5, { changes: { name: 'E Tower Again' } }, minute(1100)),
      projectEvent('ProjectRevised', 2, { changes: { name: 'B Tower Again' } }, minute(1101)),
      projectEvent('AmenitiesSet', 7, { items: [] }, minute(1102)),
    ]);
    // 7, 2 and 5 moved to page 1: 6 and 5 are pushed on to page 2 (read twice), none back onto page 1.
    const rest = [...(await changedIds('&per_page=2&page=2')), ...(await changedIds('&per_page=2&page=3'))];
    expect(rest).toEqual([5, 6, 4, 3]);
    const readOn = await api.get(`/projects/changes?cursor=${encodeURIComponent(firstPage.body.meta.cursor)}`, feedKey);
    const edited = readOn.body.data.map((change: { project_id: number }) => change.project_id);
    expect(edited).toEqual([5, 2, 7]);
    expect(new Set([...first, ...rest, ...edited])).toEqual(new Set([2, 3, 4, 5, 6, 7]));
  });

  it('when projects changed at the same moment, then the higher project_id comes first', async () => {
    await api.given([
      projectEvent('AmenitiesSet', 3, { items: [] }, minute(1200)),
      projectEvent('AmenitiesSet', 4, { items: [] }, minute(1200)),
    ]);
    const answer = await api.get(`/projects/changes?updated_since=${encodeURIComponent(minute(1150))}`, feedKey);
    expect(answer.body.data.map((change: { project_id: number; changed_at: string }) => [change.project_id, change.changed_at])).toEqual([
      [4, minute(1200)],
      [3, minute(1200)],
    ]);
  });

  it('when updated_since is missing or malformed, then 422 names it', async () => {
    for (const query of ['', '?updated_since=2025-13-01', '?updated_since=2025-01-01']) {
      const answer = await api.get(`/projects/changes${query}`, feedKey);
      expect(answer.status, query).toBe(422);
      expect(answer.body.error.details.fields).toHaveProperty(['query.updated_since']);
    }
  });

  it('when the key lacks projects:sync, then 403 INSUFFICIENT_SCOPE names it', async () => {
    const answer = await api.get(
      `/projects/changes?updated_since=${encodeURIComponent(since)}`,
      await api.key({ scopes: ['projects:read'] }),
    );
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { missing_scopes: ['projects:sync'] } });
  });
});
