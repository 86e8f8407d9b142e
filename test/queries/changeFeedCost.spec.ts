import { beforeAll, describe, expect, it } from 'vitest';
import type { AccessContext } from '../../src/access/accessContext.js';
import { forwardReadStore } from '../../src/metrics/forwardingStores.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { Doc, DocId, Filter, FindOptions, ReadStore } from '../../src/readStore/readStore.js';
import { changeFeedProjection } from '../../projections/changeFeed.js';
import { communitiesProjection } from '../../projections/communities.js';
import { developersProjection } from '../../projections/developers.js';
import { projectsProjection } from '../../projections/projects.js';
import { statesProjection } from '../../projections/states.js';
import { subCommunitiesProjection } from '../../projections/subCommunities.js';
import { listProjectChanges } from '../../queries/projectChanges.js';
import type { QueryDeps } from '../../queries/queryRoute.js';
import { minute, projectCreated, projectEvent, type StreamEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue } from '../support/apiFixture.js';
import { projectInBatches, recorded } from '../support/projectionHarness.js';
import { parsedResult } from '../support/queryResults.js';

/*
 * What an updated_since page costs, counted as the documents the query reads from the store, at two
 * catalogue sizes ten times apart: the same at both, for the first page and for a page near the end.
 */

const SINCE = minute(1000);
const PER_PAGE = 20;
/** Projects that leave the restricted client's community while published: as many at both sizes. */
const MOVED_OUT = [3, 6, 9, 12, 15, 18];
const SAMPLE = new Set(Array.from({ length: 60 }, (_, index) => index + 1));

/**
 * Community 1 or 2 (Dubai) or 3 (Abu Dhabi) by id; after SINCE, half the projects edited and a tenth
 * unpublished, at times that follow their ids, then MOVED_OUT moved away. Sizes that are multiples of 30
 * give the newest and the oldest pages the same make-up at every size.
 */
function catalogue(size: number): StreamEvent[] {
  const events: StreamEvent[] = [...publishedReferenceCatalogue()];
  for (let id = 1; id <= size; id++) {
    const communityId = (id % 3) + 1;
    events.push(
      projectCreated(id, { community_id: communityId, state_id: communityId === 3 ? 2 : 1 }, minute(1)),
      projectEvent('ProjectPublished', id, {}, minute(1)),
    );
  }
  for (let id = 2; id <= size; id += 2)
    events.push(projectEvent('ProjectRevised', id, { changes: { name: `Edited ${id}` } }, minute(1000 + id)));
  for (let id = 5; id <= size; id += 10) events.push(projectEvent('ProjectUnpublished', id, {}, minute(1000 + id)));
  for (const id of MOVED_OUT) events.push(projectEvent('ProjectRevised', id, { changes: { community_id: 2 } }, minute(100_000 + id)));
  return events;
}

/** The store, counting the documents every read hands out. */
function countingReads(inner: ReadStore): { readStore: ReadStore; documents: () => number } {
  let documents = 0;
  const readStore: ReadStore = {
    ...forwardReadStore(inner),
    find: async <T extends Doc = Doc>(collection: string, options?: FindOptions) => {
      const found = await inner.find<T>(collection, options);
      documents += found.items.length;
      return found;
    },
    get: async <T extends Doc = Doc>(collection: string, id: DocId) => {
      const found = await inner.get<T>(collection, id);
      if (found) documents += 1;
      return found;
    },
    getMany: async <T extends Doc = Doc>(collection: string, ids: DocId[]) => {
      const found = await inner.getMany<T>(collection, ids);
      documents += found.length;
      return found;
    },
    findOne: async <T extends Doc = Doc>(collection: string, filter: Filter) => {
      const found = await inner.findOne<T>(collection, filter);
      if (found) documents += 1;
      return found;
    },
  };
  return { readStore, documents: () => documents };
}

/** Only the restriction and the sample matter to the feed. */
type ScopeName = 'whole' | 'restricted' | 'evaluation';

const scopes = {
  whole: { restriction: null, evaluation: null },
  restricted: { restriction: { states: [{ state_id: 1, community_ids: [1] }] }, evaluation: null },
  evaluation: { restriction: null, evaluation: { sample: SAMPLE, startedAt: minute(0) } },
} as unknown as Record<ScopeName, AccessContext>;

interface FeedPage {
  data: Array<{ project_id: number }>;
  meta: { pagination: { total: number } };
}

interface PageCost {
  page: number;
  items: number;
  documents: number;
}

async function pageCost(store: ReadStore, access: AccessContext, page: number): Promise<{ cost: PageCost; total: number }> {
  const counting = countingReads(store);
  const query = listProjectChanges.query.parse({ updated_since: SINCE, page: String(page), per_page: String(PER_PAGE) });
  const result = parsedResult(
    await listProjectChanges.handle({ params: {}, query, access, baseUrl: 'http://127.0.0.1/v1' }, {
      readStore: counting.readStore,
    } as QueryDeps),
  ) as unknown as FeedPage;
  return { cost: { page, items: result.data.length, documents: counting.documents() }, total: result.meta.pagination.total };
}

/** The first page and the last full one of each client, with what each read. */
async function costsAt(size: number) {
  const store = createEmbeddedReadStore();
  const events = await recorded(catalogue(size));
  for (const projection of [
    projectsProjection,
    changeFeedProjection,
    developersProjection,
    communitiesProjection,
    subCommunitiesProjection,
    statesProjection,
  ]) {
    await projectInBatches(store, projection, events, 2_000);
  }
  const costs = {} as Record<ScopeName, { first: PageCost; deep: PageCost }>;
  for (const name of Object.keys(scopes) as ScopeName[]) {
    const access = scopes[name];
    const first = await pageCost(store, access, 1);
    const deep = await pageCost(store, access, Math.max(1, Math.floor(first.total / PER_PAGE)));
    costs[name] = { first: first.cost, deep: deep.cost };
  }
  await store.close();
  return costs;
}

let small: Awaited<ReturnType<typeof costsAt>>;
let large: Awaited<ReturnType<typeof costsAt>>;

beforeAll(async () => {
  small = await costsAt(300);
  large = await costsAt(3_000);
}, 180_000);

describe('updated_since pages at two catalogue sizes', () => {
  it('when the catalogue is ten times larger, then the first and a deep page read as many documents as before', () => {
    for (const scope of ['whole', 'restricted', 'evaluation'] as const) {
      expect(large[scope].first.documents, scope).toBe(small[scope].first.documents);
      expect(large[scope].deep.documents, scope).toBe(small[scope].deep.documents);
      expect(large[scope].first.items, scope).toBe(PER_PAGE);
      expect(large[scope].deep.items, scope).toBe(PER_PAGE);
    }
    expect(large.whole.deep.page).toBeGreaterThanOrEqual(10 * small.whole.deep.page);
    expect(large.restricted.deep.page).toBeGreaterThanOrEqual(10 * small.restricted.deep.page);
  });

  it("when a page is read, then it reads at most two documents per item (summary, project) plus the sample, the moved-out projects and the page's references", () => {
    // The entry meta.cursor names, and the developer, state, community and sub-community the projects name.
    const overhead = 1 + 6;
    for (const costs of [small, large]) {
      for (const page of [costs.whole.first, costs.whole.deep]) expect(page.documents).toBeLessThanOrEqual(2 * PER_PAGE + overhead);
      for (const page of [costs.restricted.first, costs.restricted.deep]) {
        expect(page.documents).toBeLessThanOrEqual(2 * PER_PAGE + MOVED_OUT.length + overhead);
      }
      // The sample's projects (its scope) and their summaries.
      for (const page of [costs.evaluation.first, costs.evaluation.deep]) {
        expect(page.documents).toBeLessThanOrEqual(PER_PAGE + 2 * SAMPLE.size + overhead);
      }
    }
  });
});
