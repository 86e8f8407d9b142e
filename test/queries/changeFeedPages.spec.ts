import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessContext } from '../../src/access/accessContext.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { allProjections } from '../../projections/index.js';
import { PROJECT_CHANGES, type ProjectChangeDoc } from '../../projections/changeFeed.js';
import { PROJECTS, type ProjectDoc } from '../../projections/projects.js';
import { catalogueScopeOf, projectInScope, projectVisibleIn } from '../../queries/catalogueScope.js';
import { listProjectChanges } from '../../queries/projectChanges.js';
import type { QueryDeps } from '../../queries/queryRoute.js';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue } from '../support/apiFixture.js';
import { projectInBatches, recorded } from '../support/projectionHarness.js';
import { parsedResult } from '../support/queryResults.js';

/*
 * The summaries' pages against the rule stated on the change entries themselves: for a random history of
 * publications, removals, moves and edits, every client's pages, read a few items at a time, are exactly
 * what reading all entries after the moment and judging each project says, in the documented order.
 */

const PROJECT_COUNT = 80;
const SINCE_MINUTE = 400;
const STATE_OF_COMMUNITY: Record<number, number> = { 1: 1, 2: 1, 3: 2 };

/** A deterministic pseudo-random sequence (mulberry32), so a failure can be replayed. */
function randomSequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Each project created, then taken through random steps; one clock, a minute a step, so SINCE cuts the history. */
function randomHistory(seed: number): StreamEvent[] {
  const random = randomSequence(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const events: StreamEvent[] = [...publishedReferenceCatalogue()];
  const projects = Array.from({ length: PROJECT_COUNT }, (_, index) => ({ id: index + 1, published: false, deleted: false }));
  let clock = 1;
  for (const project of projects) {
    const communityId = pick([1, 2, 3]);
    events.push(projectCreated(project.id, { community_id: communityId, state_id: STATE_OF_COMMUNITY[communityId]! }, minute(clock++)));
  }
  for (let step = 0; step < PROJECT_COUNT * 10; step++) {
    const project = pick(projects);
    if (project.deleted) continue;
    const at = minute(clock++);
    const move = pick([1, 2, 3]);
    const choices: StreamEvent[] = [
      projectEvent('ProjectRevised', project.id, { changes: { community_id: move, state_id: STATE_OF_COMMUNITY[move]! } }, at),
      projectEvent('ProjectRevised', project.id, { changes: { name: `Step ${step}` } }, at),
      projectEvent('AmenitiesSet', project.id, { items: [] }, at),
      projectEvent('FaqsSet', project.id, { items: [] }, at),
      projectEvent(project.published ? 'ProjectUnpublished' : 'ProjectPublished', project.id, {}, at),
      projectEvent(project.published ? 'ProjectUnpublished' : 'ProjectPublished', project.id, {}, at),
    ];
    const event = random() < 0.03 ? projectEvent('ProjectDeleted', project.id, {}, at) : pick(choices);
    if (event.event.type === 'ProjectPublished') project.published = true;
    if (event.event.type === 'ProjectUnpublished' || event.event.type === 'ProjectDeleted') project.published = false;
    if (event.event.type === 'ProjectDeleted') project.deleted = true;
    events.push(event);
  }
  return events;
}

type Change = { project_id: number; changed_at: string; changes: string[]; removed: boolean };

const KIND_ORDER = ['project', 'payment_plans', 'media', 'floor_plans', 'amenities', 'faqs'];

/**
 * The rule as the entries state it: the changes after `since` of each project; a project visible now is
 * reported with all of them, one not visible now with those up to its last removal from a community where
 * the client would see it, if one of them is; newest first, then the higher project_id.
 */
async function expectedChanges(readStore: ReadStore, access: AccessContext, since: string): Promise<Change[]> {
  const scope = await catalogueScopeOf(readStore, access);
  const { items: entries } = await readStore.find<ProjectChangeDoc>(PROJECT_CHANGES, {
    filter: { changed_at: { $gt: since } },
    sort: [['position', 1]],
  });
  const byProject = new Map<number, ProjectChangeDoc[]>();
  for (const entry of entries) byProject.set(entry.project_id, [...(byProject.get(entry.project_id) ?? []), entry]);
  const projects = new Map((await readStore.getMany<ProjectDoc>(PROJECTS, [...byProject.keys()])).map((project) => [project.id, project]));
  const changes: Change[] = [];
  for (const [projectId, changed] of byProject) {
    const project = projects.get(projectId);
    const visible = project?.published === true && projectInScope(scope, project);
    const lastSeenRemoval = changed.findLastIndex(
      (entry) => entry.withdrawn_from_community_id !== null && projectVisibleIn(scope, projectId, entry.withdrawn_from_community_id),
    );
    if (!visible && lastSeenRemoval === -1) continue;
    const reported = visible ? changed : changed.slice(0, lastSeenRemoval + 1);
    changes.push({
      project_id: projectId,
      changed_at: reported.at(-1)!.changed_at,
      changes: KIND_ORDER.filter((kind) => reported.some((entry) => entry.kind === kind)),
      removed: !visible,
    });
  }
  return changes.sort((left, right) => right.changed_at.localeCompare(left.changed_at) || right.project_id - left.project_id);
}

async function pagedChanges(readStore: ReadStore, access: AccessContext, since: string, perPage: number) {
  const changes: Change[] = [];
  let total = 0;
  for (let page = 1; page === 1 || (page - 1) * perPage < total; page++) {
    const query = listProjectChanges.query.parse({ updated_since: since, page: String(page), per_page: String(perPage) });
    const result = parsedResult(
      await listProjectChanges.handle({ params: {}, query, access, baseUrl: 'http://127.0.0.1/v1' }, {
        readStore,
      } as QueryDeps),
    ) as unknown as { data: Change[]; meta: { pagination: { total: number } } };
    total = result.meta.pagination.total;
    changes.push(
      ...result.data.map(({ project_id, changed_at, changes: kinds, removed }) => ({ project_id, changed_at, changes: kinds, removed })),
    );
  }
  return { changes, total };
}

const sample = new Set(Array.from({ length: 25 }, (_, index) => 3 * index + 1));
/** Only the restriction and the sample matter to the feed. */
const clients = {
  whole: { restriction: null, evaluation: null },
  'one community': { restriction: { states: [{ state_id: 1, community_ids: [1] }] }, evaluation: null },
  'one state': { restriction: { states: [{ state_id: 1, community_ids: [] }] }, evaluation: null },
  'two states, one community each': {
    restriction: {
      states: [
        { state_id: 1, community_ids: [2] },
        { state_id: 2, community_ids: [3] },
      ],
    },
    evaluation: null,
  },
  evaluation: { restriction: { states: [{ state_id: 1, community_ids: [] }] }, evaluation: { sample, startedAt: minute(0) } },
} as unknown as Record<string, AccessContext>;

const stores: ReadStore[] = [];

async function projectedHistory(seed: number): Promise<ReadStore> {
  const readStore = createEmbeddedReadStore();
  stores.push(readStore);
  const events = await recorded(randomHistory(seed));
  for (const projection of allProjections) await projectInBatches(readStore, projection, events, 97);
  return readStore;
}

let histories: Array<{ seed: number; readStore: ReadStore }>;

beforeAll(async () => {
  histories = [];
  for (const seed of [19, 2026, 77_777]) histories.push({ seed, readStore: await projectedHistory(seed) });
}, 120_000);

afterAll(async () => {
  for (const readStore of stores) await readStore.close();
});

describe('updated_since pages against the rule on the entries', () => {
  it('when random histories are read by every kind of client a few items a page, then the pages are the rule, in order, with its total', async () => {
    for (const { seed, readStore } of histories) {
      for (const [client, access] of Object.entries(clients)) {
        const expected = await expectedChanges(readStore, access, minute(SINCE_MINUTE));
        expect(expected.length, `seed ${seed}, ${client}: the history reports something`).toBeGreaterThan(3);
        for (const perPage of [1, 3, 7]) {
          const { changes, total } = await pagedChanges(readStore, access, minute(SINCE_MINUTE), perPage);
          expect(changes, `seed ${seed}, ${client}, per_page ${perPage}`).toEqual(expected);
          expect(total).toBe(expected.length);
        }
      }
    }
  });

  it('when the moment is after every change, then no client is told anything', async () => {
    for (const { readStore } of histories) {
      for (const access of Object.values(clients)) {
        const { changes, total } = await pagedChanges(readStore, access, minute(100_000), 5);
        expect(changes).toEqual([]);
        expect(total).toBe(0);
      }
    }
  });
});
