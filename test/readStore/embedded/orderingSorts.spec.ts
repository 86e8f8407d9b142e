/*
 * How often the embedded store sorts a collection from scratch: once per sort order, then never again for a
 * single write, only for a batch past the catch-up share (CATCH_UP_SHARE) of the collection.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEmbeddedReadStore, type EmbeddedReadStore } from '../../../src/readStore/embedded/index.js';
import { CATCH_UP_SHARE } from '../../../src/readStore/embedded/ordering.js';
import type { Doc, FindOptions, WriteOp } from '../../../src/readStore/readStore.js';
import type * as SortOrder from '../../../src/readStore/embedded/sortOrder.js';

/** The number of documents each sortDocs call sorted. */
const sortedSizes = vi.hoisted((): number[] => []);

vi.mock('../../../src/readStore/embedded/sortOrder.js', async (importOriginal) => {
  const original = await importOriginal<typeof SortOrder>();
  return {
    ...original,
    sortDocs: (docs: Iterable<Doc>, spec: Parameters<typeof original.sortDocs>[1]) => {
      const list = [...docs];
      sortedSizes.push(list.length);
      return original.sortDocs(list, spec);
    },
  };
});

const COLLECTION = 'projects';
const SIZE = 2_000;
const SORTS: Array<NonNullable<FindOptions['sort']>> = [[['updated_at', -1]], [['starting_from', 1]], [['name', 1]]];

const project = (id: number, version = 0): Doc => ({
  _id: id,
  name: `Project ${(id * 7919) % SIZE}`,
  starting_from: ((id * 104_729) % 5_000) * 1_000 + version,
  updated_at: new Date(Date.UTC(2024, 0, 1) + id * 60_000 + version).toISOString(),
});
const put = (doc: Doc): WriteOp => ({ op: 'put', collection: COLLECTION, doc });

let store: EmbeddedReadStore;

async function listEverySort(): Promise<void> {
  for (const sort of SORTS) await store.find(COLLECTION, { sort, limit: 20 });
}

/** The full sorts (of the whole collection) since the last call. */
function fullSortsSinceLastAsked(size: number): number {
  const full = sortedSizes.filter((sorted) => sorted >= size - 1).length;
  sortedSizes.length = 0;
  return full;
}

beforeEach(async () => {
  store = createEmbeddedReadStore();
  await store.write(Array.from({ length: SIZE }, (_, index) => put(project(index + 1))));
  await listEverySort();
  sortedSizes.length = 0;
});

afterEach(async () => {
  await store.close();
});

describe('embedded full sorts', () => {
  it('when one document changes its sort keys, is inserted or is deleted, then the next lists sort nothing afresh', async () => {
    await store.write([put(project(17, 999))]);
    await listEverySort();
    await store.write([put(project(SIZE + 1))]);
    await listEverySort();
    await store.write([{ op: 'delete', collection: COLLECTION, id: 3 }]);
    await listEverySort();

    expect(fullSortsSinceLastAsked(SIZE)).toBe(0);
  });

  it('when a batch changes more than the catch-up share of the collection, then each sort order is sorted afresh once', async () => {
    const batch = Array.from({ length: SIZE / CATCH_UP_SHARE + 1 }, (_, index) => put(project(index + 1, 999)));
    await store.write(batch);
    await listEverySort();
    await listEverySort();

    expect(fullSortsSinceLastAsked(SIZE)).toBe(SORTS.length);
  });

  it('when a batch stays within the catch-up share, then it is merged without sorting afresh', async () => {
    const batch = Array.from({ length: SIZE / CATCH_UP_SHARE }, (_, index) => put(project(index * 3 + 1, 999)));
    await store.write(batch);
    await listEverySort();

    expect(fullSortsSinceLastAsked(SIZE)).toBe(0);
  });
});
