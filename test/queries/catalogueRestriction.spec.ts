import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

/**
 * Reference catalogue: Dubai (state 1) with Dubai Marina (community 1, sub-community 1) and Downtown Dubai
 * (community 2, sub-community 2); Abu Dhabi (state 2) with Yas Island (community 3). Projects 1 and 2 are in
 * Dubai Marina, 3 in Downtown Dubai, 4 on Yas Island; project 1 names 2, 3 and 4 as related.
 */
let api: ApiFixture;
let restricted: { key: string; clientId: number };
let whole: string;

const published = (id: number, communityId: number, stateId: number): StreamEvent[] => [
  projectCreated(id, { community_id: communityId, state_id: stateId }, minute(id)),
  projectEvent('ProjectPublished', id, {}, minute(id)),
];

const restrict = async (clientId: number, restriction: unknown) => {
  const answer = await api.admin('PUT', `/clients/${clientId}/restriction`, { restriction });
  await api.settle();
  return answer;
};

const ids = (answer: { body: { data: Array<{ id?: number; project_id?: number }> } }) =>
  answer.body.data.map((item) => item.id ?? item.project_id).sort((a, b) => a! - b!);

beforeAll(async () => {
  api = await startApiFixture();
  await api.given([
    ...publishedReferenceCatalogue(),
    ...published(1, 1, 1),
    ...published(2, 1, 1),
    ...published(3, 2, 1),
    ...published(4, 3, 2),
    projectEvent('RelatedProjectsSet', 1, { project_ids: [2, 3, 4] }, minute(10)),
  ]);
  restricted = await api.issue();
  whole = await api.key();
  const answer = await restrict(restricted.clientId, {
    states: [
      { state_id: 1, community_ids: [1] },
      { state_id: 2, community_ids: [] },
    ],
  });
  expect(answer.status).toBe(200);
  expect(answer.body.data.restriction).toEqual({
    states: [
      { state_id: 1, community_ids: [1] },
      { state_id: 2, community_ids: [] },
    ],
  });
});

afterAll(async () => {
  await api.close();
});

describe('catalogue restriction', () => {
  it('when a restricted client lists projects, then it sees only its communities and the totals count only those', async () => {
    const answer = await api.get('/projects', restricted.key);
    expect(ids(answer)).toEqual([1, 2, 4]);
    expect(answer.body.meta.pagination.total).toBe(3);
    const outside = await api.get('/projects?community=downtown-dubai', restricted.key);
    expect(outside.body.data).toEqual([]);
    expect(outside.body.meta.pagination.total).toBe(0);
    expect(ids(await api.get('/projects?ids=3,4&view=detail', restricted.key))).toEqual([4]);
  });

  it('when an unrestricted client lists projects, then it sees all of them', async () => {
    expect(ids(await api.get('/projects', whole))).toEqual([1, 2, 3, 4]);
  });

  it('when a project outside the scope is asked for, then it and every sub-resource are the one 404', async () => {
    for (const path of [
      '/projects/3',
      '/projects/project-3',
      '/projects/3/payment-plans',
      '/projects/3/amenities',
      '/projects/3/related',
    ]) {
      const answer = await api.get(path, restricted.key);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
    }
    expect((await api.get('/projects/4/payment-plans', restricted.key)).status).toBe(200);
    expect((await api.get('/projects/3', whole)).status).toBe(200);
  });

  it('when related projects, the resource batch and the change feed are read, then projects outside the scope are left out', async () => {
    expect(ids(await api.get('/projects/1/related', restricted.key))).toEqual([2, 4]);
    const batch = await api.get('/projects/resources?ids=1,3,4&include=amenities', restricted.key);
    expect(batch.body.data.map((item: { project_id: number }) => item.project_id)).toEqual([1, 4]);
    expect(batch.body.meta.omitted_project_ids).toEqual([3]);
    const changes = await api.get(`/projects/changes?updated_since=${encodeURIComponent(minute(0))}`, restricted.key);
    expect(ids(changes)).toEqual([1, 2, 4]);
    expect(changes.body.meta.pagination.total).toBe(3);
  });

  it('when communities, sub-communities and states are read, then only those in the scope are available', async () => {
    expect(ids(await api.get('/communities', restricted.key))).toEqual([1, 3]);
    expect((await api.get('/communities/downtown-dubai', restricted.key)).status).toBe(404);
    expect((await api.get('/communities/yas-island', restricted.key)).status).toBe(200);
    expect(ids(await api.get('/sub-communities', restricted.key))).toEqual([1]);
    expect((await api.get('/sub-communities/opera-district', restricted.key)).status).toBe(404);
    expect((await api.get('/states/dubai', restricted.key)).status).toBe(200);
    expect((await api.get('/states/abu-dhabi', restricted.key)).status).toBe(200);
  });

  it('when a state is granted whole and the other not at all, then all its communities are in and the other state is 404', async () => {
    const { key, clientId } = await api.issue();
    await restrict(clientId, { states: [{ state_id: 1, community_ids: [] }] });
    expect(ids(await api.get('/projects', key))).toEqual([1, 2, 3]);
    expect(ids(await api.get('/communities', key))).toEqual([1, 2]);
    expect((await api.get('/states/abu-dhabi', key)).status).toBe(404);
    expect((await api.get('/projects/4', key)).status).toBe(404);

    await restrict(clientId, null);
    expect(ids(await api.get('/projects', key))).toEqual([1, 2, 3, 4]);
  });

  it('when the restriction names an unknown state or a community of another state, then 422 names each and nothing changes', async () => {
    const answer = await api.admin('PUT', `/clients/${restricted.clientId}/restriction`, {
      restriction: {
        states: [
          { state_id: 9, community_ids: [] },
          { state_id: 1, community_ids: [3, 99] },
        ],
      },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.details.fields).sort()).toEqual([
      'body.restriction.states.0.state_id',
      'body.restriction.states.1.community_ids.0',
      'body.restriction.states.1.community_ids.1',
    ]);
    expect((await api.admin('GET', `/clients/${restricted.clientId}`)).body.data.restriction.states).toHaveLength(2);
  });
});
