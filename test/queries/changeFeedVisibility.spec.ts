import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

/**
 * Reference catalogue: Dubai (state 1) with Dubai Marina (community 1) and Downtown Dubai (community 2);
 * Abu Dhabi (state 2) with Yas Island (community 3). The restricted client sees Dubai Marina only.
 *
 * Before SINCE: projects 1-60 and 64-65 published in Dubai Marina, 61 published in Downtown Dubai, 62
 * published in Dubai Marina and unpublished, 63 published in Downtown Dubai, unpublished, then moved to
 * Dubai Marina without being published there. Evaluation starts on that catalogue.
 *
 * After SINCE: 70 created and deleted without ever being published, 71 created and revised unpublished,
 * 61 deleted, 62 and 63 deleted, 64 unpublished and then given amenities, 65 moved to Downtown Dubai while
 * published, and one project of 1-60 inside the evaluation sample and one outside it unpublished. Another
 * project of the sample is unpublished before SINCE (once evaluation started) and deleted after it.
 */
const SINCE = minute(1000);
let api: ApiFixture;
let whole: string;
let restricted: string;
let evaluation: string;
let sample: Set<number>;
let unpublishedInSample: number;
let unpublishedOutsideSample: number;
let removedBeforeSinceInSample: number;

const published = (id: number, communityId: number, stateId: number): StreamEvent[] => [
  projectCreated(id, { community_id: communityId, state_id: stateId }, minute(id)),
  projectEvent('ProjectPublished', id, {}, minute(id)),
];

interface Change {
  project_id: number;
  changed_at: string;
  changes: string[];
  removed: boolean;
  project: { id: number } | null;
}

async function feed(key: string): Promise<{ entries: Map<number, Change>; total: number }> {
  const answer = await api.get<{ data: Change[]; meta: { pagination: { total: number } } }>(
    `/projects/changes?updated_since=${encodeURIComponent(SINCE)}&per_page=100`,
    key,
  );
  expect(answer.status).toBe(200);
  return { entries: new Map(answer.body.data.map((change) => [change.project_id, change])), total: answer.body.meta.pagination.total };
}

const removedIds = (entries: Map<number, Change>) =>
  [...entries.values()]
    .filter((change) => change.removed)
    .map((change) => change.project_id)
    .sort((a, b) => a - b);
const presentIds = (entries: Map<number, Change>) =>
  [...entries.values()]
    .filter((change) => !change.removed)
    .map((change) => change.project_id)
    .sort((a, b) => a - b);

beforeAll(async () => {
  api = await startApiFixture();
  const before: StreamEvent[] = [...publishedReferenceCatalogue()];
  for (let id = 1; id <= 60; id++) before.push(...published(id, 1, 1));
  before.push(
    ...published(61, 2, 1),
    ...published(62, 1, 1),
    projectEvent('ProjectUnpublished', 62, {}, minute(100)),
    ...published(63, 2, 1),
    projectEvent('ProjectUnpublished', 63, {}, minute(101)),
    projectEvent('ProjectRevised', 63, { changes: { community_id: 1 } }, minute(102)),
    ...published(64, 1, 1),
    ...published(65, 1, 1),
  );
  await api.given(before);

  whole = await api.key({ scopes: ['projects:sync'] });
  const restrictedClient = await api.issue({ scopes: ['projects:sync'] });
  restricted = restrictedClient.key;
  expect(
    (
      await api.admin('PUT', `/clients/${restrictedClient.clientId}/restriction`, {
        restriction: { states: [{ state_id: 1, community_ids: [1] }] },
      })
    ).status,
  ).toBe(200);
  const evaluated = await api.issue({ scopes: ['projects:sync'] });
  evaluation = (await api.admin('POST', `/clients/${evaluated.clientId}/keys`, { environment: 'test' })).body.data.key;
  const started = await api.admin('POST', `/clients/${evaluated.clientId}/evaluation`, { sample_size: 50 });
  expect(started.status).toBe(200);
  sample = new Set(started.body.data.access_mode.sample_project_ids);
  await api.settle();

  const firstSixty = Array.from({ length: 60 }, (_, index) => index + 1);
  unpublishedInSample = firstSixty.find((id) => sample.has(id))!;
  unpublishedOutsideSample = firstSixty.find((id) => !sample.has(id))!;
  removedBeforeSinceInSample = firstSixty.findLast((id) => sample.has(id))!;
  await api.given([
    projectEvent('ProjectUnpublished', removedBeforeSinceInSample, {}, minute(500)),
    projectCreated(70, {}, minute(1001)),
    projectEvent('ProjectDeleted', 70, {}, minute(1002)),
    projectCreated(71, {}, minute(1003)),
    projectEvent('ProjectRevised', 71, { changes: { name: 'Still a draft' } }, minute(1004)),
    projectEvent('ProjectDeleted', 61, {}, minute(1005)),
    projectEvent('ProjectDeleted', 62, {}, minute(1006)),
    projectEvent('ProjectDeleted', 63, {}, minute(1007)),
    projectEvent('ProjectUnpublished', 64, {}, minute(1008)),
    projectEvent('AmenitiesSet', 64, { items: [{ name: 'Pool', icon: null }] }, minute(1009)),
    projectEvent('ProjectRevised', 65, { changes: { community_id: 2 } }, minute(1010)),
    projectEvent('ProjectUnpublished', unpublishedInSample, {}, minute(1011)),
    projectEvent('ProjectUnpublished', unpublishedOutsideSample, {}, minute(1012)),
    projectEvent('ProjectDeleted', removedBeforeSinceInSample, {}, minute(1013)),
  ]);
});

afterAll(async () => {
  await api.close();
});

describe('change feed: only what the client could have seen', () => {
  it('when a project that was never published is deleted or edited after updated_since, then no client is told of it', async () => {
    for (const key of [whole, restricted, evaluation]) {
      const { entries } = await feed(key);
      expect(entries.has(70)).toBe(false);
      expect(entries.has(71)).toBe(false);
    }
  });

  it('when a published project is unpublished or deleted after updated_since, then it is reported removed; one removed before is not', async () => {
    const { entries, total } = await feed(whole);
    expect(removedIds(entries)).toEqual([61, 64, unpublishedInSample, unpublishedOutsideSample].sort((a, b) => a - b));
    expect(presentIds(entries)).toEqual([65]);
    expect(total).toBe(5);
    // 62 and 63 were unpublished before updated_since: their deletion after it tells nothing new.
    expect(entries.has(62)).toBe(false);
    expect(entries.has(63)).toBe(false);
  });

  it('when a removed project changed again while no longer visible, then its changes and changed_at stop at the removal', async () => {
    const { entries } = await feed(whole);
    expect(entries.get(64)).toEqual({ project_id: 64, changed_at: minute(1008), changes: ['project'], removed: true, project: null });
  });

  it('when a restricted client reads the feed, then only removals from its communities are reported, a move out of them included', async () => {
    const { entries, total } = await feed(restricted);
    // 61 was published only outside the client's communities; 63 was never published inside them.
    expect(removedIds(entries)).toEqual([64, 65, unpublishedInSample, unpublishedOutsideSample].sort((a, b) => a - b));
    expect(presentIds(entries)).toEqual([]);
    expect(total).toBe(4);
    expect(entries.get(65)).toEqual({ project_id: 65, changed_at: minute(1010), changes: ['project'], removed: true, project: null });
  });

  it('when an evaluation client reads the feed, then only removals of projects in its sample after updated_since are reported', async () => {
    const { entries } = await feed(evaluation);
    expect(entries.has(removedBeforeSinceInSample)).toBe(false);
    const expectedRemoved = [61, 64, unpublishedInSample].filter((id) => sample.has(id)).sort((a, b) => a - b);
    expect(removedIds(entries)).toEqual(expectedRemoved);
    expect(presentIds(entries)).toEqual(sample.has(65) ? [65] : []);
    expect(entries.has(unpublishedOutsideSample)).toBe(false);
    expect(entries.has(unpublishedInSample)).toBe(true);
  });

  it('when a client reads every page with per_page=1, then the pages are its one-page answer, newest first, each project once', async () => {
    for (const key of [whole, restricted, evaluation]) {
      const answer = await api.get<{ data: Change[]; meta: { pagination: { total: number } } }>(
        `/projects/changes?updated_since=${encodeURIComponent(SINCE)}&per_page=100`,
        key,
      );
      const onePage = answer.body.data;
      const paged: Change[] = [];
      for (let page = 1; page <= onePage.length + 1; page++) {
        const next = await api.get<{ data: Change[]; meta: { pagination: { total: number } } }>(
          `/projects/changes?updated_since=${encodeURIComponent(SINCE)}&per_page=1&page=${page}`,
          key,
        );
        expect(next.body.meta.pagination.total).toBe(onePage.length);
        paged.push(...next.body.data);
      }
      expect(paged).toEqual(onePage);
      const order = onePage.map((change) => [change.changed_at, change.project_id] as const);
      expect(order).toEqual(order.toSorted(([leftAt, leftId], [rightAt, rightId]) => rightAt.localeCompare(leftAt) || rightId - leftId));
    }
  });

  it("when a restricted client's removals come from its community and from moves out of it, then they are ordered together by changed_at", async () => {
    const { body } = await api.get<{ data: Change[] }>(`/projects/changes?updated_since=${encodeURIComponent(SINCE)}`, restricted);
    // 65 left community 1 for community 2 while published; the others were unpublished in community 1.
    expect(body.data.map((change) => [change.project_id, change.changed_at])).toEqual([
      [unpublishedOutsideSample, minute(1012)],
      [unpublishedInSample, minute(1011)],
      [65, minute(1010)],
      [64, minute(1008)],
    ]);
  });
});
