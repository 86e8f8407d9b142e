import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import type { AdminDeps, AdminRoute, AdminRouteResult } from '../../src/http/adminRoute.js';
import { referenceDataRoutes } from '../../src/http/adminRoutes/referenceDataRoutes.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { storedFilesHolding } from '../support/storedFiles.js';

/** These routes work on the write side only; any read-store access would be a bug. */
const readStoreNotUsed = new Proxy({} as ReadStore, {
  get(_target, property) {
    throw new Error(`reference-data routes must not use the read store (touched ${String(property)})`);
  },
});

let eventStore: EventStore;
let deps: AdminDeps;

beforeEach(() => {
  eventStore = createSqliteEventStore({ file: ':memory:' });
  deps = { eventStore, readStore: readStoreNotUsed, clock: () => new Date('2024-05-01T10:00:00.000Z'), storedFiles: storedFilesHolding() };
});

afterEach(async () => {
  await eventStore.close();
});

function routeFor(method: AdminRoute['method'], path: string): AdminRoute {
  const route = referenceDataRoutes.find((candidate) => candidate.method === method && candidate.path === path);
  if (!route) throw new Error(`No route ${method.toUpperCase()} ${path}`);
  return route;
}

/** Parses params and body with the route's own schemas, as the admin router does, then handles. */
async function call(
  method: AdminRoute['method'],
  path: string,
  input: { params?: Record<string, string>; body?: unknown; expectedRevision?: number } = {},
): Promise<AdminRouteResult & { data: Record<string, unknown> }> {
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
  return result as AdminRouteResult & { data: Record<string, unknown> };
}

const aState = (slug: string, name = 'Dubai') => ({ name, slug, country_code: 'AE' });
const createState = (slug: string, name?: string) => call('post', '/states', { body: aState(slug, name) });

describe('reference-data routes', () => {
  it('when states are created, then the service allocates ids 1, 2, ... and answers the new state', async () => {
    const first = await createState('dubai');
    const second = await createState('abu-dhabi', 'Abu Dhabi');

    expect(first).toEqual({
      data: { id: 1, revision: 0, name: 'Dubai', slug: 'dubai', country_code: 'AE', published: false },
      revision: 0,
    });
    expect(second.data).toMatchObject({ id: 2, slug: 'abu-dhabi' });
    expect(routeFor('post', '/states').successStatus).toBe(201);
  });

  it('when a second state claims a taken slug, then 409 SLUG_TAKEN and nothing is appended to its stream', async () => {
    await createState('dubai');

    await expect(createState('dubai', 'Dubai again')).rejects.toMatchObject({ status: 409, code: 'SLUG_TAKEN' });
    expect(await eventStore.readStream('state-2')).toEqual([]);
  });

  it('when a revision renames the slug to one another state holds, then 409 SLUG_TAKEN and the stream is unchanged', async () => {
    await createState('dubai');
    await createState('sharjah', 'Sharjah');

    await expect(call('patch', '/states/:stateId', { params: { stateId: '2' }, body: { slug: 'dubai' } })).rejects.toMatchObject({
      status: 409,
      code: 'SLUG_TAKEN',
    });
    expect(await eventStore.readStream('state-2')).toHaveLength(1);
  });

  it('when a revision names a stale expected revision, then 409 CONFLICT and nothing is appended', async () => {
    await createState('dubai');
    await call('patch', '/states/:stateId', { params: { stateId: '1' }, body: { name: 'Dubai Emirate' }, expectedRevision: 0 });

    await expect(
      call('patch', '/states/:stateId', { params: { stateId: '1' }, body: { name: 'Emirate of Dubai' }, expectedRevision: 0 }),
    ).rejects.toMatchObject({ status: 409, code: 'CONFLICT', details: { expected_revision: 0, current_revision: 1 } });
    expect(await eventStore.readStream('state-1')).toHaveLength(2);
  });

  it('when a community names a state that does not exist, then 422 names body.state_id and no id is used up', async () => {
    await expect(
      call('post', '/communities', { body: { state_id: 41, name: 'Dubai Marina', slug: 'dubai-marina' } }),
    ).rejects.toMatchObject({ status: 422, code: 'VALIDATION_FAILED', details: { fields: { 'body.state_id': 'no such state' } } });

    await createState('dubai');
    const community = await call('post', '/communities', { body: { state_id: 1, name: 'Dubai Marina', slug: 'dubai-marina' } });
    expect(community.data).toMatchObject({ id: 1, state_id: 1, description: '', banner: null, location: null, published: false });
  });

  it('when a sub-community names a community that does not exist, then 422 names body.community_id', async () => {
    await expect(
      call('post', '/sub-communities', { body: { community_id: 3, name: 'Promenade', slug: 'promenade' } }),
    ).rejects.toMatchObject({ status: 422, details: { fields: { 'body.community_id': 'no such community' } } });
  });

  it('when a state is published twice, then the second publish answers the same revision without a new event', async () => {
    await createState('dubai');
    const publish = () => call('post', '/states/:stateId/publish', { params: { stateId: '1' } });

    const first = await publish();
    const second = await publish();

    expect(first).toMatchObject({ revision: 1, data: { published: true } });
    expect(second).toEqual(first);
    expect(await eventStore.readStream('state-1')).toHaveLength(2);
  });

  it('when a state is read, then its folded write-side state comes with its revision; an unknown id is 404', async () => {
    await createState('dubai');
    await call('patch', '/states/:stateId', { params: { stateId: '1' }, body: { country_code: 'OM' } });

    await expect(call('get', '/states/:stateId', { params: { stateId: '1' } })).resolves.toEqual({
      data: { id: 1, revision: 1, name: 'Dubai', slug: 'dubai', country_code: 'OM', published: false },
      revision: 1,
    });
    await expect(call('get', '/states/:stateId', { params: { stateId: '2' } })).rejects.toMatchObject({ status: 404 });
  });

  it('when unit types are created and revised, then the kind and bedrooms pair is enforced', async () => {
    const studio = await call('post', '/unit-types', { body: { name: 'Studio', kind: 'studio', bedrooms: 0, sort_order: 0 } });
    expect(studio.data).toEqual({ id: 1, revision: 0, name: 'Studio', kind: 'studio', bedrooms: 0, sort_order: 0 });

    await expect(call('patch', '/unit-types/:unitTypeId', { params: { unitTypeId: '1' }, body: { bedrooms: 1 } })).rejects.toMatchObject({
      status: 422,
      details: { fields: { 'body.bedrooms': 'must be 0 for a studio' } },
    });
  });
});
