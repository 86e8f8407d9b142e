import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesCursorPosition } from '../../queries/changeFeedCursor.js';
import { PROJECT_CHANGES, type ProjectChangeDoc } from '../../projections/changeFeed.js';
import { randomSource } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

/*
 * Lossless sync over HTTP (issue 18): writers make thousands of edits through /admin/v1 (creates, revisions,
 * moves between communities, publications, unpublications, payment plans, amenities, deletions) across
 * many projects, stamped by clocks up to a minute apart (as replicas' clocks may be), while two readers pull
 * /v1/projects/changes with cursors, as fast as pages come, and apply each page to a map of their own. One
 * reader sees the whole catalogue, the other only Dubai Marina (community 1; Downtown Dubai, community 2, is
 * in the same state). Once the writers are done and the projector has caught up, each reader drains the
 * feed; its map must then be exactly what /v1/projects lists for it, and agree with the write side.
 */

const WRITERS = 4;
const EDITS_PER_WRITER = 750;
const CLOCK_SKEW_MS = 60_000;
const MARINA = 1;
const DOWNTOWN = 2;

interface Summary {
  id: number;
  updated_at: string;
  [field: string]: unknown;
}

interface Change {
  project_id: number;
  changed_at: string;
  changes: string[];
  removed: boolean;
  project: Summary | null;
}

interface ReadPage {
  after: string;
  cursor: string;
  items: Change[];
}

interface WrittenProject {
  id: number;
  published: boolean;
  deleted: boolean;
  communityId: number;
}

let api: ApiFixture;
let whole: string;
let restricted: string;
/** Set once the writers are done and the projector has projected the whole log. */
let caughtUp = false;

const skewed = randomSource(18);

beforeAll(async () => {
  api = await startApiFixture({
    env: { RATE_LIMITS: 'off' },
    clock: () => new Date(Date.now() + Math.round((skewed() * 2 - 1) * CLOCK_SKEW_MS)),
  });
  await api.given(publishedReferenceCatalogue());
  whole = await api.key({ scopes: ['projects:sync', 'projects:read'] });
  const client = await api.issue({ scopes: ['projects:sync', 'projects:read'] });
  restricted = client.key;
  const restriction = await api.admin('PUT', `/clients/${client.clientId}/restriction`, {
    restriction: { states: [{ state_id: 1, community_ids: [MARINA] }] },
  });
  expect(restriction.status).toBe(200);
  await api.settle();
});

afterAll(async () => {
  await api.close();
});

async function adminWrite(method: string, path: string, body?: unknown): Promise<{ id: number }> {
  const answer = await api.admin(method, path, body);
  if (answer.status !== 200 && answer.status !== 201)
    throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.data as { id: number };
}

/** One editor: `edits` admin writes on projects of its own, each chosen at random among those its project allows. */
async function writer(index: number, edits: number, projects: WrittenProject[]): Promise<void> {
  const random = randomSource(1000 + index);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  for (let edit = 0; edit < edits; edit++) {
    const live = projects.filter((project) => !project.deleted);
    if (live.length < 5 || random() < 0.08) {
      const communityId = pick([MARINA, DOWNTOWN]);
      const slug = `sync-${index}-${edit}`;
      const { id } = await adminWrite('POST', '/projects', {
        name: `Sync ${index}-${edit}`,
        slug,
        developer_id: pick([1, 2]),
        state_id: 1,
        community_id: communityId,
        nature: 'off_plan',
      });
      projects.push({ id, published: false, deleted: false, communityId });
      continue;
    }
    const project = pick(live);
    const path = `/projects/${project.id}`;
    const roll = random();
    if (roll < 0.25) {
      await adminWrite('PATCH', path, { name: `Renamed ${index}-${edit}` });
    } else if (roll < 0.5) {
      await adminWrite('POST', `${path}/${project.published ? 'unpublish' : 'publish'}`);
      project.published = !project.published;
    } else if (roll < 0.62) {
      project.communityId = project.communityId === MARINA ? DOWNTOWN : MARINA;
      await adminWrite('PATCH', path, { community_id: project.communityId });
    } else if (roll < 0.77) {
      await adminWrite('POST', `${path}/payment-plans`, {
        name: `Plan ${edit}`,
        milestones: [{ label: 'On booking', percent: 100, due: null }],
      });
    } else if (roll < 0.87) {
      await adminWrite('PUT', `${path}/amenities`, { items: [{ name: `Pool ${edit}`, icon: null }] });
    } else if (roll < 0.9) {
      await adminWrite('DELETE', path);
      project.deleted = true;
      project.published = false;
    } else {
      await adminWrite('PATCH', path, { starting_from: 900_000 + edit });
    }
  }
}

/** Pulls pages with cursors until, after everything was written and projected, a page says has_more false. */
async function syncReader(key: string, seed: number): Promise<{ state: Map<number, Summary>; pages: ReadPage[] }> {
  const random = randomSource(seed);
  const state = new Map<number, Summary>();
  const pages: ReadPage[] = [];
  let cursor = 'start';
  for (;;) {
    const final = caughtUp;
    // Small pages, so that many are cut before the changes run out and a reader often trails the writers.
    const perPage = 1 + Math.floor(random() * 12);
    const answer = await api.get(`/projects/changes?cursor=${encodeURIComponent(cursor)}&per_page=${perPage}`, key);
    if (answer.status !== 200) throw new Error(`the feed answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const items = answer.body.data as Change[];
    for (const change of items) {
      if (change.removed) state.delete(change.project_id);
      else state.set(change.project_id, change.project!);
    }
    pages.push({ after: cursor, cursor: answer.body.meta.cursor, items });
    cursor = answer.body.meta.cursor;
    if (!answer.body.meta.has_more) {
      if (final) return { state, pages };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** What /v1/projects lists for the key, every page. */
async function listed(key: string): Promise<Map<number, Summary>> {
  const projects = new Map<number, Summary>();
  for (let page = 1; ; page++) {
    const answer = await api.get(`/projects?per_page=100&page=${page}&sort=name`, key);
    expect(answer.status).toBe(200);
    for (const project of answer.body.data as Summary[]) projects.set(project.id, project);
    if (page >= answer.body.meta.pagination.total_pages) return projects;
  }
}

/**
 * Every page covers the change-feed entries between its cursors; each item must stand for entries of its
 * project in that range (no repeat of a change reported before), and a project shown as it is now must
 * carry exactly the kinds of those entries and the latest of their times (none left out).
 */
function expectPagesCoverTheirEntries(pages: readonly ReadPage[], entries: readonly ProjectChangeDoc[]): void {
  let previous = 0;
  for (const page of pages) {
    const after = changesCursorPosition(page.after)!;
    const upTo = changesCursorPosition(page.cursor)!;
    expect(after).toBe(previous);
    expect(upTo).toBeGreaterThanOrEqual(after);
    previous = upTo;
    const covered = entries.filter((entry) => entry.position > after && entry.position <= upTo);
    expect(new Set(page.items.map((item) => item.project_id)).size).toBe(page.items.length);
    for (const item of page.items) {
      const own = covered.filter((entry) => entry.project_id === item.project_id);
      expect(own.length, `project ${item.project_id} reported without a change in (${after}, ${upTo}]`).toBeGreaterThan(0);
      if (item.removed) {
        expect(own.some((entry) => entry.withdrawn_from_community_id !== null)).toBe(true);
        continue;
      }
      expect([...item.changes].sort()).toEqual([...new Set(own.map((entry) => entry.kind))].sort());
      expect(item.changed_at).toBe(
        own
          .map((entry) => entry.changed_at)
          .sort()
          .at(-1),
      );
    }
  }
  expect(previous).toBe(entries.at(-1)!.position);
}

describe('change feed sync with cursors under concurrent edits', () => {
  it('when writers make thousands of edits while readers sync with cursors, then each reader ends with exactly the projects the server lists for it', async () => {
    const written: WrittenProject[][] = Array.from({ length: WRITERS }, () => []);
    const readers = [syncReader(whole, 7), syncReader(restricted, 8)];
    const writers = written.map((projects, index) => writer(index, EDITS_PER_WRITER, projects));
    try {
      await Promise.all(writers);
      await api.settle();
    } finally {
      caughtUp = true;
    }
    const [wholeSync, restrictedSync] = await Promise.all(readers);

    const wholeListed = await listed(whole);
    const restrictedListed = await listed(restricted);
    expect(wholeSync!.state).toEqual(wholeListed);
    expect(restrictedSync!.state).toEqual(restrictedListed);

    // The write side agrees: every project published and not deleted, as of its last edit, and only those.
    const projects = written.flat();
    expect(projects.length).toBeGreaterThan(100);
    const visible = projects.filter((project) => project.published && !project.deleted);
    expect([...wholeListed.keys()].sort((a, b) => a - b)).toEqual(visible.map((project) => project.id).sort((a, b) => a - b));
    expect([...restrictedListed.keys()].sort((a, b) => a - b)).toEqual(
      visible
        .filter((project) => project.communityId === MARINA)
        .map((project) => project.id)
        .sort((a, b) => a - b),
    );
    for (const project of projects) {
      const { body } = await api.admin('GET', `/projects/${project.id}`);
      expect({ published: body.data.published, deleted: body.data.deleted }).toEqual({
        published: project.published,
        deleted: project.deleted,
      });
      if (project.published) expect(wholeSync!.state.get(project.id)?.updated_at).toBe(body.data.updated_at);
    }

    const { items: entries } = await api.app.readStore.find<ProjectChangeDoc>(PROJECT_CHANGES, { sort: [['position', 1]] });
    // Every admin write made one change the feed reports.
    expect(entries.length).toBe(WRITERS * EDITS_PER_WRITER);
    expectPagesCoverTheirEntries(wholeSync!.pages, entries);
    expectPagesCoverTheirEntries(restrictedSync!.pages, entries);
  }, 120_000);
});
