import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommunityEvent } from '../../src/catalogue/community.js';
import type { DeveloperEvent } from '../../src/catalogue/developer.js';
import type { ImageRef } from '../../src/catalogue/imageRef.js';
import type { StateEvent } from '../../src/catalogue/state.js';
import type { SubCommunityEvent } from '../../src/catalogue/subCommunity.js';
import type { UnitTypeEvent } from '../../src/catalogue/unitType.js';
import type { DomainEvent, EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import type { AdminDeps, AdminRoute, AdminRouteResult } from '../../src/http/adminRoute.js';
import { projectRoutes } from '../../src/http/adminRoutes/projectRoutes.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { storedFilesHolding } from '../support/storedFiles.js';

/** These routes work on the write side only; any read-store access would be a bug. */
const readStoreNotUsed = new Proxy({} as ReadStore, {
  get(_target, property) {
    throw new Error(`project routes must not use the read store (touched ${String(property)})`);
  },
});

const at = '2024-05-01T10:00:00.000Z';
let eventStore: EventStore;
let deps: AdminDeps;

beforeEach(async () => {
  eventStore = createSqliteEventStore({ file: ':memory:' });
  deps = {
    eventStore,
    readStore: readStoreNotUsed,
    clock: () => new Date(at),
    storedFiles: storedFilesHolding(...['fp1', 'fp2', 'g1'].map(anImage)),
  };
  await givenReferenceData();
});

afterEach(async () => {
  await eventStore.close();
});

async function given(stream: string, events: DomainEvent[]): Promise<void> {
  await eventStore.appendToStream(stream, events, { expectedRevision: 'no_stream' });
}

/**
 * Dubai (state 1) with Dubai Marina (community 2) and its sub-community Marina Promenade (3), Abu Dhabi
 * (state 5) with Saadiyat (community 6), developer 4 and unit types 7 (studio) and 8 (1 bedroom).
 */
async function givenReferenceData(): Promise<void> {
  const state = (id: number, name: string, slug: string): StateEvent => ({
    type: 'StateCreated',
    data: { state_id: id, name, slug, country_code: 'AE', at },
  });
  const community = (id: number, stateId: number, name: string, slug: string): CommunityEvent => ({
    type: 'CommunityCreated',
    data: { community_id: id, state_id: stateId, name, slug, description: '', banner: null, location: null, at },
  });
  const subCommunity: SubCommunityEvent = {
    type: 'SubCommunityCreated',
    data: { sub_community_id: 3, community_id: 2, name: 'Marina Promenade', slug: 'marina-promenade', description: '', at },
  };
  const developer: DeveloperEvent = {
    type: 'DeveloperCreated',
    data: { developer_id: 4, name: 'Emaar', slug: 'emaar', description: '', website: null, logo: null, established_year: null, at },
  };
  const unitType = (id: number, name: string, kind: 'studio' | 'bedrooms', bedrooms: number): UnitTypeEvent => ({
    type: 'UnitTypeCreated',
    data: { unit_type_id: id, name, kind, bedrooms, sort_order: bedrooms, at },
  });
  await given('state-1', [state(1, 'Dubai', 'dubai')]);
  await given('community-2', [community(2, 1, 'Dubai Marina', 'dubai-marina')]);
  await given('subCommunity-3', [subCommunity]);
  await given('state-5', [state(5, 'Abu Dhabi', 'abu-dhabi')]);
  await given('community-6', [community(6, 5, 'Saadiyat', 'saadiyat')]);
  await given('developer-4', [developer]);
  await given('unitType-7', [unitType(7, 'Studio', 'studio', 0)]);
  await given('unitType-8', [unitType(8, '1 Bedroom', 'bedrooms', 1)]);
}

function routeFor(method: AdminRoute['method'], path: string): AdminRoute {
  const route = projectRoutes.find((candidate) => candidate.method === method && candidate.path === path);
  if (!route) throw new Error(`No route ${method.toUpperCase()} ${path}`);
  return route;
}

type Answer = AdminRouteResult & { data: Record<string, unknown> & { revision: number } };

/** Parses params and body with the route's own schemas, as the admin router does, then handles. */
async function call(
  method: AdminRoute['method'],
  path: string,
  input: { params?: Record<string, string>; body?: unknown; expectedRevision?: number } = {},
): Promise<Answer> {
  const route = routeFor(method, path);
  const result = await route.handle(
    {
      params: route.params.parse(input.params ?? {}),
      body: route.body?.parse(input.body),
      ...(input.expectedRevision === undefined ? {} : { expectedRevision: input.expectedRevision }),
      actor: 'editor@test',
    },
    deps,
  );
  route.response.parse(result.data);
  return result as Answer;
}

const aProject = (overrides: Record<string, unknown> = {}) => ({
  name: 'Marina Heights',
  slug: 'marina-heights',
  developer_id: 4,
  state_id: 1,
  community_id: 2,
  nature: 'off_plan',
  ...overrides,
});

const createProject = (overrides: Record<string, unknown> = {}) => call('post', '/projects', { body: aProject(overrides) });
const reviseProject = (projectId: string, body: unknown, expectedRevision?: number) =>
  call('patch', '/projects/:projectId', { params: { projectId }, body, ...(expectedRevision === undefined ? {} : { expectedRevision }) });

const anImage = (key: string): ImageRef => ({
  key,
  file_name: `${key}.jpg`,
  content_type: 'image/jpeg',
  width: 800,
  height: 600,
  size_bytes: 90_000,
});

describe('project routes', () => {
  it('when projects are created, then the service allocates ids 1, 2, ... and answers the new project with revision 0', async () => {
    const first = await createProject({ sub_community_id: 3, unit_type_ids: [7, 8] });
    const second = await createProject({ slug: 'saadiyat-grove', name: 'Saadiyat Grove', state_id: 5, community_id: 6 });

    expect(routeFor('post', '/projects').successStatus).toBe(201);
    expect(first.revision).toBe(0);
    expect(first.data).toMatchObject({
      id: 1,
      revision: 0,
      slug: 'marina-heights',
      sub_community_id: 3,
      unit_type_ids: [7, 8],
      status: 'upcoming',
      currency: 'AED',
      published: false,
      deleted: false,
      created_at: at,
      updated_at: at,
      floor_plans: [],
      gallery: [],
      video: null,
      related_project_ids: [],
    });
    expect(second.data).toMatchObject({ id: 2, slug: 'saadiyat-grove' });
  });

  it('when floor plans, payment plans and pictures are added, then each gets an id the service allocates', async () => {
    await createProject();
    const params = { projectId: '1' };
    await call('post', '/projects/:projectId/floor-plans', { params, body: { title: 'Type A', unit_type_id: 8, image: anImage('fp1') } });
    await call('post', '/projects/:projectId/floor-plans', { params, body: { title: 'Type B', image: anImage('fp2') } });
    await call('post', '/projects/:projectId/payment-plans', {
      params,
      body: {
        name: '50/50',
        milestones: [
          { label: 'Booking', percent: 50, due: null },
          { label: 'Handover', percent: 50, due: null },
        ],
      },
    });
    const answer = await call('post', '/projects/:projectId/gallery', { params, body: { caption: 'Lobby', image: anImage('g1') } });

    expect(answer.revision).toBe(4);
    expect(answer.data.floor_plans).toEqual([
      { floor_plan_id: 1, title: 'Type A', unit_type_id: 8, area: null, price: null, image: anImage('fp1') },
      { floor_plan_id: 2, title: 'Type B', unit_type_id: null, area: null, price: null, image: anImage('fp2') },
    ]);
    expect(answer.data.payment_plans).toMatchObject([{ payment_plan_id: 1, name: '50/50' }]);
    expect(answer.data.gallery).toEqual([{ media_id: 1, caption: 'Lobby', position: 0, image: anImage('g1') }]);
  });

  it('when a second project claims a taken slug, then 409 SLUG_TAKEN and nothing is appended to its stream', async () => {
    await createProject();

    await expect(createProject({ name: 'Marina Heights II' })).rejects.toMatchObject({ status: 409, code: 'SLUG_TAKEN' });
    expect(await eventStore.readStream('project-2')).toEqual([]);
    await expect(call('get', '/projects/:projectId', { params: { projectId: '1' } })).resolves.toMatchObject({ revision: 0 });
  });

  it('when a revision renames the slug to one another project holds, then 409 SLUG_TAKEN and the stream is unchanged', async () => {
    await createProject();
    await createProject({ slug: 'marina-views' });

    await expect(reviseProject('2', { slug: 'marina-heights' })).rejects.toMatchObject({ status: 409, code: 'SLUG_TAKEN' });
    expect(await eventStore.readStream('project-2')).toHaveLength(1);
  });

  it('when a revision names a stale expected revision, then 409 CONFLICT and nothing is appended', async () => {
    await createProject();
    await reviseProject('1', { name: 'Marina Heights Tower' }, 0);

    await expect(reviseProject('1', { name: 'Marina Heights Residence' }, 0)).rejects.toMatchObject({
      status: 409,
      code: 'CONFLICT',
      details: { expected_revision: 0, current_revision: 1 },
    });
    expect(await eventStore.readStream('project-1')).toHaveLength(2);
  });

  it('when a collection edit names a stale expected revision, then 409 CONFLICT and nothing is appended', async () => {
    await createProject();
    await call('post', '/projects/:projectId/publish', { params: { projectId: '1' } });

    await expect(
      call('put', '/projects/:projectId/amenities', {
        params: { projectId: '1' },
        body: { items: [{ name: 'Pool', icon: null }] },
        expectedRevision: 0,
      }),
    ).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(await eventStore.readStream('project-1')).toHaveLength(2);
  });

  it('when the developer does not exist, then 422 names body.developer_id and no project id is used up', async () => {
    await expect(createProject({ developer_id: 99 })).rejects.toMatchObject({
      status: 422,
      code: 'VALIDATION_FAILED',
      details: { fields: { 'body.developer_id': 'developer 99 does not exist' } },
    });
    expect(await eventStore.readStream('project-1')).toEqual([]);

    await expect(createProject()).resolves.toMatchObject({ data: { id: 1 } });
  });

  it('when several references are missing, then one 422 lists each of them', async () => {
    await expect(createProject({ developer_id: 99, state_id: 98, sub_community_id: 97, unit_type_ids: [7, 96] })).rejects.toMatchObject({
      status: 422,
      details: {
        fields: {
          'body.developer_id': 'developer 99 does not exist',
          'body.state_id': 'state 98 does not exist',
          'body.community_id': 'community 2 lies in state 1, not in state 98',
          'body.sub_community_id': 'sub-community 97 does not exist',
          'body.unit_type_ids.1': 'unit type 96 does not exist',
        },
      },
    });
  });

  it('when the community lies in another state or the sub-community in another community, then 422 names the field', async () => {
    await expect(createProject({ community_id: 6 })).rejects.toMatchObject({
      status: 422,
      details: { fields: { 'body.community_id': 'community 6 lies in state 5, not in state 1' } },
    });
    await expect(createProject({ state_id: 5, community_id: 6, sub_community_id: 3 })).rejects.toMatchObject({
      status: 422,
      details: { fields: { 'body.sub_community_id': 'sub-community 3 lies in community 2, not in community 6' } },
    });
  });

  it('when a revision moves the project to another state but keeps its community, then 422 names body.community_id', async () => {
    await createProject();

    await expect(reviseProject('1', { state_id: 5 })).rejects.toMatchObject({
      status: 422,
      details: { fields: { 'body.community_id': 'community 2 lies in state 1, not in state 5' } },
    });
    await expect(reviseProject('1', { state_id: 5, community_id: 6 })).resolves.toMatchObject({
      revision: 1,
      data: { state_id: 5, community_id: 6 },
    });
  });

  it('when related projects are set, then each must be an existing project', async () => {
    await createProject();
    await createProject({ slug: 'marina-views' });
    const setRelated = (projectIds: number[]) =>
      call('put', '/projects/:projectId/related-projects', { params: { projectId: '1' }, body: { project_ids: projectIds } });

    await expect(setRelated([2, 3])).rejects.toMatchObject({
      status: 422,
      details: { fields: { 'body.project_ids.1': 'project 3 does not exist' } },
    });
    await expect(setRelated([2])).resolves.toMatchObject({ revision: 1, data: { related_project_ids: [2] } });
  });

  it('when a floor plan names an unknown unit type or an unknown floor plan is revised, then 422 and 404', async () => {
    await createProject();
    const params = { projectId: '1' };

    await expect(
      call('post', '/projects/:projectId/floor-plans', { params, body: { title: 'Type A', unit_type_id: 50, image: anImage('fp1') } }),
    ).rejects.toMatchObject({ status: 422, details: { fields: { 'body.unit_type_id': 'unit type 50 does not exist' } } });
    await expect(
      call('patch', '/projects/:projectId/floor-plans/:floorPlanId', { params: { ...params, floorPlanId: '9' }, body: { title: 'x' } }),
    ).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND', message: expect.stringContaining('Floor plan 9') });
  });

  it('when a project is deleted, then it still reads as deleted and further commands are 409 PROJECT_DELETED', async () => {
    await createProject();
    await call('delete', '/projects/:projectId', { params: { projectId: '1' } });

    await expect(call('get', '/projects/:projectId', { params: { projectId: '1' } })).resolves.toMatchObject({
      revision: 1,
      data: { deleted: true, published: false },
    });
    await expect(reviseProject('1', { developer_id: 99 })).rejects.toMatchObject({ status: 409, code: 'PROJECT_DELETED' });
    await expect(call('post', '/projects/:projectId/publish', { params: { projectId: '1' } })).rejects.toMatchObject({
      status: 409,
      code: 'PROJECT_DELETED',
    });
  });

  it('when a project is published twice, then the second publish answers the same revision without a new event', async () => {
    await createProject();
    const publish = () => call('post', '/projects/:projectId/publish', { params: { projectId: '1' } });

    const first = await publish();
    const second = await publish();

    expect(first).toMatchObject({ revision: 1, data: { published: true } });
    expect(second).toEqual(first);
    expect(await eventStore.readStream('project-1')).toHaveLength(2);
  });

  it('when a missing project is read or changed, then 404 NOT_FOUND', async () => {
    await expect(call('get', '/projects/:projectId', { params: { projectId: '12' } })).rejects.toMatchObject({ status: 404 });
    await expect(reviseProject('12', { name: 'x' })).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(call('put', '/projects/:projectId/faqs', { params: { projectId: '12' }, body: { items: [] } })).rejects.toMatchObject({
      status: 404,
    });
  });

  it('when the route table is listed, then every method and path is declared once', () => {
    const keys = projectRoutes.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(projectRoutes.map((route) => route.operationId)).size).toBe(projectRoutes.length);
  });
});
