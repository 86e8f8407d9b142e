import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccessContext } from '../../src/access/accessContext.js';
import type { RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import { allProjections } from '../../projections/index.js';
import { projectsProjection } from '../../projections/projects.js';
import { listProjectChanges } from '../../queries/projectChanges.js';
import type { QueryDeps } from '../../queries/queryRoute.js';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue } from '../support/apiFixture.js';
import { projectInBatches, recorded } from '../support/projectionHarness.js';
import { parsedResult } from '../support/queryResults.js';

/*
 * Each projection runs on its own subscription, so the change feed may have projected an edit that the
 * projects' read model has not yet. A cursor page must not report that edit then: the project would come
 * with its older summary, and the cursor would move past the edit for good.
 */

const published = (id: number): StreamEvent[] => [projectCreated(id, {}, minute(id)), projectEvent('ProjectPublished', id, {}, minute(id))];
const revisions: StreamEvent[] = [
  projectEvent('ProjectRevised', 1, { changes: { name: 'One Revised' } }, minute(100)),
  projectEvent('ProjectRevised', 2, { changes: { name: 'Two Revised' } }, minute(101)),
];

/** The whole catalogue: only the restriction and sample matter to the feed, and there are none. */
const wholeCatalogue = { restriction: null, evaluation: null } as unknown as AccessContext;

let readStore: ReadStore;
let events: RecordedEvent[];

interface FeedPage {
  data: Array<{ project_id: number; project: { name: string } | null }>;
  meta: { cursor: string; has_more: boolean };
}

async function feedPage(cursor: string): Promise<FeedPage> {
  const result = await listProjectChanges.handle(
    { params: {}, query: listProjectChanges.query.parse({ cursor }), access: wholeCatalogue, baseUrl: 'http://127.0.0.1/v1' },
    { readStore } as QueryDeps,
  );
  return parsedResult(result) as unknown as FeedPage;
}

const namesOf = (page: FeedPage) => page.data.map((change) => [change.project_id, change.project?.name]);

beforeEach(async () => {
  readStore = createEmbeddedReadStore();
  events = await recorded([...publishedReferenceCatalogue(), ...published(1), ...published(2), ...revisions]);
  const beforeRevisions = events.slice(0, -revisions.length);
  for (const projection of allProjections) {
    await projectInBatches(readStore, projection, projection === projectsProjection ? beforeRevisions : events, 50);
  }
});

afterEach(async () => {
  await readStore.close();
});

describe('change feed cursor pages and a lagging projects read model', () => {
  it('when the projects read model is behind the change feed, then a page reports no change past it and its cursor stops there', async () => {
    const first = await feedPage('start');
    expect(namesOf(first)).toEqual([
      [1, 'Project 1'],
      [2, 'Project 2'],
    ]);
    expect(first.meta.has_more).toBe(false);
    expect((await feedPage(first.meta.cursor)).data).toEqual([]);

    await projectInBatches(readStore, projectsProjection, events.slice(-revisions.length), 50);

    const next = await feedPage(first.meta.cursor);
    expect(namesOf(next)).toEqual([
      [1, 'One Revised'],
      [2, 'Two Revised'],
    ]);
    expect(next.meta.has_more).toBe(false);
  });
});
