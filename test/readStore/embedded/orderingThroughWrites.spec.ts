/*
 * The embedded store keeps each sorted ordering through writes instead of sorting afresh. Random sequences of
 * inserts, sort key changes, unchanged rewrites and deletes, alone and in batches, are checked after every
 * write against a naive model: the model's documents filtered naively and sorted from scratch.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedReadStore, type EmbeddedReadStore } from '../../../src/readStore/embedded/index.js';
import { normalizeSort, sortDocs } from '../../../src/readStore/embedded/sortOrder.js';
import type { Doc, DocId, FindOptions, WriteOp } from '../../../src/readStore/readStore.js';

const COLLECTION = 'listings';

/** A small deterministic generator (mulberry32), so a failing sequence replays from its seed. */
function randomSource(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

type Range = Partial<Record<'$gt' | '$gte' | '$lt' | '$lte', number | string>>;

/** MongoDB's range semantics, written plainly: each bound met by some value (or array element) of its type. */
function inRange(value: unknown, range: Range): boolean {
  const values = Array.isArray(value) ? value : [value];
  return Object.entries(range).every(([operator, bound]) =>
    values.some((candidate) => {
      if (typeof candidate !== typeof bound) return false;
      const [left, right] = [candidate as number | string, bound];
      return operator === '$gt' ? left > right : operator === '$gte' ? left >= right : operator === '$lt' ? left < right : left <= right;
    }),
  );
}

const SORTS: Array<NonNullable<FindOptions['sort']>> = [
  [['price', 1]],
  [['price', -1]],
  [
    ['name', 1],
    ['price', -1],
  ],
  [['sizes', 1]],
  [['sizes', -1]],
  [['info.rank', 1]],
  [['updated_at', -1]],
  [['_id', -1]],
];

/** Range filters on each sort's leading key and on others, with the plain field each one reads. */
const RANGES: Array<{ field: string; range: Range }> = [
  { field: 'price', range: { $gte: 300 } },
  { field: 'price', range: { $gt: 200, $lte: 700 } },
  { field: 'price', range: { $lt: 'm' } },
  { field: 'sizes', range: { $gte: 50 } },
  { field: 'name', range: { $gte: 'name-3' } },
  { field: 'updated_at', range: { $gt: '2024-06' } },
  { field: '_id', range: { $lte: 120 } },
];

function randomDoc(random: () => number, id: DocId): Doc {
  const pick = <T>(choices: readonly T[]): T => choices[Math.floor(random() * choices.length)]!;
  const roll = random();
  // Mostly numbers, sometimes null, missing, a string, and rarely an array (which turns off binary search).
  const price =
    roll < 0.7
      ? Math.floor(random() * 1000)
      : roll < 0.8
        ? null
        : roll < 0.88
          ? undefined
          : roll < 0.96
            ? pick(['a', 'm', 'z'])
            : [3, Math.floor(random() * 1000)];
  const doc: Doc = {
    _id: id,
    group: pick(['g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7', 'g8', 'g9', 'g10']),
    sizes: random() < 0.15 ? [] : Array.from({ length: 1 + Math.floor(random() * 3) }, () => Math.floor(random() * 100)),
    updated_at: `2024-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}-01`,
    info:
      random() < 0.3
        ? [{ rank: Math.floor(random() * 5) }, { rank: Math.floor(random() * 5) }]
        : { rank: random() < 0.1 ? null : Math.floor(random() * 5) },
    _search: `Listing ${String(id)} ${pick(['Marina', 'Palm', 'Creek'])}`,
  };
  if (price !== undefined) doc.price = price;
  // Few distinct names, so `_id` breaks many ties.
  if (random() < 0.9) doc.name = `name-${Math.floor(random() * 6)}`;
  return doc;
}

let store: EmbeddedReadStore;

beforeEach(async () => {
  store = createEmbeddedReadStore();
  await store.ensureIndexes(COLLECTION, [{ keys: [['group', 1]] }]);
});

afterEach(async () => {
  await store.close();
});

/** Every query checked after each write: every sort, with and without ranges, a lookup, text, a page. */
async function expectAnswersOfAFreshSort(model: ReadonlyMap<DocId, Doc>): Promise<void> {
  for (const sort of SORTS) {
    const fresh = (keep: (doc: Doc) => boolean) => sortDocs([...model.values()].filter(keep), normalizeSort(sort)).map((doc) => doc._id);
    const idsOf = async (options: FindOptions) => (await store.find(COLLECTION, { ...options, sort })).items.map((doc) => doc._id);

    expect(await idsOf({}), JSON.stringify(sort)).toEqual(fresh(() => true));
    for (const { field, range } of RANGES) {
      expect(await idsOf({ filter: { [field]: range } }), JSON.stringify([sort, field, range])).toEqual(
        fresh((doc) => inRange(doc[field], range)),
      );
    }
    expect(await idsOf({ filter: { group: 'g3' } })).toEqual(fresh((doc) => doc.group === 'g3'));
    expect(await idsOf({ filter: { group: { $in: ['g1', 'g2'] }, price: { $gte: 100 } } })).toEqual(
      fresh((doc) => (doc.group === 'g1' || doc.group === 'g2') && inRange(doc.price, { $gte: 100 })),
    );
    expect(await idsOf({ text: 'palm' })).toEqual(fresh((doc) => String(doc._search).includes('Palm')));
    const page = await store.find(COLLECTION, { sort, skip: 10, limit: 7 });
    expect(page.items.map((doc) => doc._id)).toEqual(fresh(() => true).slice(10, 17));
    expect(page.total).toBe(model.size);
  }
}

interface Sequence {
  seed: number;
  initialSize: number;
  writes: number;
  largestBatch: number;
  /** Lists are checked after every this many writes. */
  readEvery: number;
}

async function runSequence({ seed, initialSize, writes, largestBatch, readEvery }: Sequence): Promise<void> {
  const random = randomSource(seed);
  const model = new Map<DocId, Doc>();
  let nextId = 1;
  const initial: WriteOp[] = [];
  for (; nextId <= initialSize; nextId++) {
    // Numbers and strings among the ids: numbers sort first.
    const id = nextId % 7 === 0 ? `id-${nextId}` : nextId;
    const doc = randomDoc(random, id);
    model.set(id, doc);
    initial.push({ op: 'put', collection: COLLECTION, doc });
  }
  await store.write(initial);
  await expectAnswersOfAFreshSort(model);

  for (let write = 0; write < writes; write++) {
    const batch: WriteOp[] = [];
    const size = random() < 0.6 ? 1 : 1 + Math.floor(random() * largestBatch);
    for (let op = 0; op < size; op++) {
      const ids = [...model.keys()];
      const roll = random();
      if (roll < 0.25 || ids.length === 0) {
        const doc = randomDoc(random, nextId++);
        model.set(doc._id, doc);
        batch.push({ op: 'put', collection: COLLECTION, doc });
      } else if (roll < 0.45) {
        const id = ids[Math.floor(random() * ids.length)]!;
        model.delete(id);
        batch.push({ op: 'delete', collection: COLLECTION, id });
      } else if (roll < 0.55) {
        // The same sort keys in a new document object.
        const id = ids[Math.floor(random() * ids.length)]!;
        const doc = { ...model.get(id)!, note: random() };
        model.set(id, doc);
        batch.push({ op: 'put', collection: COLLECTION, doc });
      } else {
        const id = ids[Math.floor(random() * ids.length)]!;
        const doc = randomDoc(random, id);
        model.set(id, doc);
        batch.push({ op: 'put', collection: COLLECTION, doc });
      }
    }
    await store.write(batch);
    if ((write + 1) % readEvery === 0) await expectAnswersOfAFreshSort(model);
  }
}

describe('embedded orderings through writes', () => {
  it('when single documents are inserted, change their sort keys or are deleted, then every list equals a fresh sort', async () => {
    await runSequence({ seed: 1, initialSize: 150, writes: 60, largestBatch: 1, readEvery: 1 });
  });

  it('when writes come in batches, some merged in one pass and some past the catch-up share, then every list equals a fresh sort', async () => {
    await runSequence({ seed: 2, initialSize: 300, writes: 40, largestBatch: 40, readEvery: 1 });
  });

  it('when the collection starts empty and grows, then every list equals a fresh sort', async () => {
    await runSequence({ seed: 3, initialSize: 0, writes: 80, largestBatch: 3, readEvery: 1 });
  });

  it('when several writes, some to the same documents, come between two reads, then a later read sees every change', async () => {
    await runSequence({ seed: 4, initialSize: 200, writes: 60, largestBatch: 4, readEvery: 4 });
  });
});

describe('embedded range filters on the leading sort key', () => {
  const priced = (id: number, price: unknown): WriteOp => ({ op: 'put', collection: COLLECTION, doc: { _id: id, price } });
  const pricedFrom400 = async () =>
    (await store.find(COLLECTION, { filter: { price: { $gte: 400 } }, sort: [['price', 1]] })).items.map((doc) => doc._id);

  it('when a sort key becomes an array after the ordering was read, then a range still finds it by any element, and loses it once scalar again', async () => {
    await store.write(Array.from({ length: 50 }, (_, index) => priced(index + 1, (index + 1) * 10)));
    expect(await pricedFrom400()).toEqual(Array.from({ length: 11 }, (_, index) => index + 40));

    await store.write([priced(1, [5, 900])]);
    expect(await pricedFrom400()).toEqual([1, ...Array.from({ length: 11 }, (_, index) => index + 40)]);

    await store.write([priced(1, 10)]);
    expect(await pricedFrom400()).toEqual(Array.from({ length: 11 }, (_, index) => index + 40));
  });
});
