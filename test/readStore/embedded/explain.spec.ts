import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedReadStore, type EmbeddedReadStore } from '../../../src/readStore/embedded/index.js';

/** Fifty projects in five communities of ten (a fifth of the collection each), ids 1 to 50. */
const projects = Array.from({ length: 50 }, (_, index) => ({
  _id: index + 1,
  slug: `project-${index + 1}`,
  community_id: Math.floor(index / 10) + 1,
  published: true,
  name: `Project ${index + 1}`,
}));

let store: EmbeddedReadStore;

beforeEach(async () => {
  store = createEmbeddedReadStore();
  await store.ensureIndexes('projects', [
    { keys: [['slug', 1]], unique: true },
    { keys: [['community_id', 1]] },
    { keys: [['published', 1]] },
  ]);
  await store.write(projects.map((doc) => ({ op: 'put', collection: 'projects', doc })));
});

afterEach(async () => {
  await store.close();
});

describe('embedded read store explain', () => {
  it('when an equality on a declared index matches under a quarter of the collection, then the find starts from that lookup, ranked in its sort', async () => {
    const plan = await store.explain({
      method: 'find',
      collection: 'projects',
      options: { filter: { published: true, community_id: { $in: [2] } }, sort: [['name', -1]], limit: 5 },
    });
    expect(plan).toEqual({ source: 'lookup community_id', ordering: 'name_-1__id_1' });
  });

  it('when the narrowest lookup matches a quarter or more of the collection, then the find walks every document of its ordering', async () => {
    const plan = await store.explain({
      method: 'find',
      collection: 'projects',
      options: { filter: { published: true, community_id: { $in: [1, 2] } }, sort: [['name', 1]] },
    });
    expect(plan).toEqual({ source: 'ordering', ordering: 'name_1__id_1' });
  });

  it('when a filter names a field without a declared index, then no lookup serves it and the find walks the ordering by _id', async () => {
    expect(await store.explain({ method: 'find', collection: 'projects', options: { filter: { name: 'Project 3' } } })).toEqual({
      source: 'ordering',
      ordering: '_id_1',
    });
  });

  it('when a findOne has one plain equality on a declared path or _id, then it is answered from that lookup alone', async () => {
    expect(await store.explain({ method: 'findOne', collection: 'projects', filter: { slug: 'project-7' } })).toEqual({
      source: 'lookup slug',
      ordering: null,
    });
    expect(await store.explain({ method: 'findOne', collection: 'projects', filter: { _id: 7 } })).toEqual({
      source: 'lookup _id',
      ordering: null,
    });
  });

  it('when a read is by id, then it is answered by _id', async () => {
    expect(await store.explain({ method: 'get', collection: 'projects', id: 3 })).toEqual({ source: '_id', ordering: null });
    expect(await store.explain({ method: 'getMany', collection: 'projects', ids: [3, 4] })).toEqual({ source: '_id', ordering: null });
  });
});
