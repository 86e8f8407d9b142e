import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DuplicateKeyError,
  sequenceId,
  StaleFencingTokenError,
  type Doc,
  type DocId,
  type Filter,
  type FindOptions,
  type ReadStore,
  type WriteOp,
} from '../../src/readStore/readStore.js';

export interface ReadStoreCapabilities {
  /** The adapter applies a write's operations and checkpoints all together or not at all. */
  atomicWrites?: boolean;
}

/** Unique per test, so the suite can run against a server other runs share. */
const aCollectionName = (purpose = 'things'): string => `contract_${purpose}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
const aCheckpointName = (): string => `contract-${randomUUID()}`;

const put = (collection: string, doc: Doc): WriteOp => ({ op: 'put', collection, doc });
const remove = (collection: string, id: DocId): WriteOp => ({ op: 'delete', collection, id });

const idsOf = (docs: readonly Doc[]): DocId[] => docs.map((doc) => doc._id);

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** Listing documents: a filter section, nested objects, arrays of strings and of objects, null and missing. */
const listingDocs = (): Doc[] => [
  {
    _id: 1,
    name: 'Marina Heights',
    price: 500,
    status: 'published',
    developer: { id: 7, name: 'Emaar' },
    bedrooms: ['studio', '1br'],
    updatedAt: '2024-03-01T10:00:00.000Z',
    units: [
      { type: 'studio', size: 40 },
      { type: 'villa', size: 300 },
    ],
    handover: null,
  },
  {
    _id: 2,
    name: 'Palm Residences',
    price: 1500,
    status: 'draft',
    developer: { id: 8, name: 'Nakheel' },
    bedrooms: ['2br', '3br'],
    updatedAt: '2024-05-01T10:00:00.000Z',
    units: [{ type: 'apartment', size: 90 }],
  },
  {
    _id: 3,
    name: 'Creek Vista',
    price: 900,
    status: 'published',
    developer: { id: 7, name: 'Emaar' },
    bedrooms: [],
    updatedAt: '2023-12-31T23:59:59.000Z',
    handover: '2026-Q1',
  },
  { _id: 4, name: 'Desert Rose', status: 'published', bedrooms: ['1br'] },
];

const filterCases: Array<[description: string, filter: Filter, expected: DocId[]]> = [
  ['a scalar equals', { status: 'published' }, [1, 3, 4]],
  ['$eq', { status: { $eq: 'draft' } }, [2]],
  ['$ne', { status: { $ne: 'draft' } }, [1, 3, 4]],
  ['$in', { status: { $in: ['draft', 'archived'] } }, [2]],
  ['an empty $in', { status: { $in: [] } }, []],
  ['$gt on numbers', { price: { $gt: 900 } }, [2]],
  ['$gte on numbers', { price: { $gte: 900 } }, [2, 3]],
  ['$lt on numbers', { price: { $lt: 900 } }, [1]],
  ['$lte on numbers', { price: { $lte: 900 } }, [1, 3]],
  ['a closed range', { price: { $gte: 500, $lt: 1500 } }, [1, 3]],
  ['a range on ISO date strings', { updatedAt: { $gte: '2024-01-01T00:00:00.000Z' } }, [1, 2]],
  ['a dotted path into an object', { 'developer.id': 7 }, [1, 3]],
  ['$in on a dotted path', { 'developer.name': { $in: ['Nakheel'] } }, [2]],
  ['equality on an array (any element)', { bedrooms: '1br' }, [1, 4]],
  ['$in on an array (any element)', { bedrooms: { $in: ['3br', 'studio'] } }, [1, 2]],
  ['$ne on an array (no element)', { bedrooms: { $ne: '1br' } }, [2, 3]],
  ['a dotted path through an array of objects', { 'units.type': 'villa' }, [1]],
  ['a range through an array of objects', { 'units.size': { $gt: 100 } }, [1]],
  ['two range operators on an array, each met by any element (not $elemMatch)', { 'units.size': { $gt: 50, $lt: 100 } }, [1, 2]],
  ['null (null or missing)', { handover: null }, [1, 2, 4]],
  ['$eq null (null or missing)', { handover: { $eq: null } }, [1, 2, 4]],
  ['$ne null (present and not null)', { handover: { $ne: null } }, [3]],
  ['$in with null', { handover: { $in: [null, '2026-Q1'] } }, [1, 2, 3, 4]],
  ['$exists true (null counts as present)', { handover: { $exists: true } }, [1, 3]],
  ['$exists false', { handover: { $exists: false } }, [2, 4]],
  ['null on a dotted path whose parent is missing', { 'developer.id': null }, [4]],
  ['$exists false on a field absent from one document', { price: { $exists: false } }, [4]],
  ['several conditions (all must hold)', { status: 'published', 'developer.id': 7, price: { $lt: 600 } }, [1]],
  ['$in on _id', { _id: { $in: [3, 1, 99] } }, [1, 3]],
];

export function readStoreContract(name: string, create: () => Promise<ReadStore>, capabilities: ReadStoreCapabilities = {}): void {
  describe(`${name} read store (contract)`, () => {
    let store: ReadStore;

    beforeAll(async () => {
      store = await create();
    });

    afterAll(async () => {
      await store?.close();
    });

    async function aCollectionWith(docs: Doc[], purpose?: string): Promise<string> {
      const collection = aCollectionName(purpose);
      await store.write(docs.map((doc) => put(collection, doc)));
      return collection;
    }

    async function idsFound(collection: string, options: FindOptions): Promise<DocId[]> {
      return idsOf((await store.find(collection, options)).items);
    }

    describe('documents', () => {
      it('when a document is put, then get returns it with its nested values', async () => {
        const doc = { _id: 1, name: 'Marina Heights', developer: { id: 7, tags: ['a', 'b'] }, price: 1.5, featured: false, handover: null };
        const collection = await aCollectionWith([doc]);

        expect(await store.get(collection, 1)).toEqual(doc);
      });

      it('when a document is put again, then it is replaced as a whole', async () => {
        const collection = await aCollectionWith([{ _id: 'a', name: 'old', obsolete: true }]);

        await store.write([put(collection, { _id: 'a', name: 'new' })]);

        expect(await store.get(collection, 'a')).toEqual({ _id: 'a', name: 'new' });
      });

      it('when a document is deleted, then get answers null and find no longer lists it', async () => {
        const collection = await aCollectionWith([{ _id: 1 }, { _id: 2 }]);

        await store.write([remove(collection, 1), remove(collection, 42)]);

        expect(await store.get(collection, 1)).toBeNull();
        expect(await idsFound(collection, {})).toEqual([2]);
      });

      it('when one write puts and deletes the same id, then the operations apply in order', async () => {
        const collection = aCollectionName();

        await store.write([
          put(collection, { _id: 1, v: 1 }),
          remove(collection, 1),
          remove(collection, 2),
          put(collection, { _id: 2, v: 2 }),
        ]);

        expect(await store.get(collection, 1)).toBeNull();
        expect(await store.get(collection, 2)).toEqual({ _id: 2, v: 2 });
      });

      it('when ids 1 and "1" are both stored, then they are distinct documents', async () => {
        const collection = await aCollectionWith([
          { _id: 1, kind: 'number' },
          { _id: '1', kind: 'string' },
        ]);

        expect(await store.get(collection, 1)).toEqual({ _id: 1, kind: 'number' });
        expect(await store.get(collection, '1')).toEqual({ _id: '1', kind: 'string' });
        expect((await store.find(collection, { filter: { _id: '1' } })).items).toEqual([{ _id: '1', kind: 'string' }]);
      });

      it('when the written object is changed afterwards, then the stored document is not', async () => {
        const doc = { _id: 1, tags: ['a'] };
        const collection = await aCollectionWith([doc]);

        doc.tags.push('b');

        expect(await store.get(collection, 1)).toEqual({ _id: 1, tags: ['a'] });
      });

      it('when get asks for an unknown id or collection, then it answers null', async () => {
        const collection = await aCollectionWith([{ _id: 1 }]);

        expect(await store.get(collection, 2)).toBeNull();
        expect(await store.get(aCollectionName(), 1)).toBeNull();
      });

      it('when getMany asks for ids, then it answers the existing ones in the order asked', async () => {
        const collection = await aCollectionWith([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);

        expect(idsOf(await store.getMany(collection, [3, 1, 99, 2]))).toEqual([3, 1, 2]);
        expect(await store.getMany(collection, [])).toEqual([]);
      });

      it('when findOne matches several documents, then it answers the one with the smallest _id', async () => {
        const collection = await aCollectionWith([
          { _id: 5, status: 'published' },
          { _id: 2, status: 'published' },
          { _id: 9, status: 'draft' },
        ]);

        expect(await store.findOne(collection, { status: 'published' })).toEqual({ _id: 2, status: 'published' });
        expect(await store.findOne(collection, { status: 'archived' })).toBeNull();
      });
    });

    describe('filters', () => {
      for (const indexed of [false, true]) {
        describe(indexed ? 'on indexed fields' : 'without indexes', () => {
          let collection: string;

          beforeAll(async () => {
            collection = aCollectionName('listing');
            if (indexed) {
              await store.ensureIndexes(collection, [
                { keys: [['status', 1]] },
                {
                  keys: [
                    ['developer.id', 1],
                    ['price', -1],
                  ],
                },
                { keys: [['bedrooms', 1]] },
                { keys: [['units.type', 1]] },
                { keys: [['handover', 1]] },
              ]);
            }
            await store.write(listingDocs().map((doc) => put(collection, doc)));
          });

          for (const [description, filter, expected] of filterCases) {
            it(`when filtering with ${description}, then exactly the matching documents come back`, async () => {
              const result = await store.find(collection, { filter });

              expect(idsOf(result.items)).toEqual(expected);
              expect(result.total).toBe(expected.length);
            });
          }
        });
      }

      it('when values differ in type, then equality and ranges do not mix numbers and strings', async () => {
        const collection = await aCollectionWith([
          { _id: 1, code: 1 },
          { _id: 2, code: '1' },
          { _id: 3, code: 10 },
          { _id: 4, code: true },
        ]);

        expect(await idsFound(collection, { filter: { code: 1 } })).toEqual([1]);
        expect(await idsFound(collection, { filter: { code: '1' } })).toEqual([2]);
        expect(await idsFound(collection, { filter: { code: true } })).toEqual([4]);
        expect(await idsFound(collection, { filter: { code: { $gt: 0 } } })).toEqual([1, 3]);
        expect(await idsFound(collection, { filter: { code: { $gte: '0' } } })).toEqual([2]);
      });
    });

    describe('text search', () => {
      let collection: string;

      beforeAll(async () => {
        collection = await aCollectionWith(
          [
            { _id: 1, status: 'published', _search: 'marina heights dubai marina emaar' },
            { _id: 2, status: 'draft', _search: 'palm (jumeirah) residences a.c [x]' },
            { _id: 3, status: 'published', _search: 'abc creek marina' },
            { _id: 4, status: 'published' },
          ],
          'text',
        );
      });

      it('when the text differs in case, then it still matches', async () => {
        expect(await idsFound(collection, { text: 'MARINA' })).toEqual([1, 3]);
        expect(await idsFound(collection, { text: 'Marina Heights' })).toEqual([1]);
      });

      it('when the text holds regular expression metacharacters, then they match literally', async () => {
        expect(await idsFound(collection, { text: 'a.c' })).toEqual([2]);
        expect(await idsFound(collection, { text: '(jumeirah)' })).toEqual([2]);
        expect(await idsFound(collection, { text: '[x]' })).toEqual([2]);
        expect(await idsFound(collection, { text: '.*' })).toEqual([]);
        expect(await idsFound(collection, { text: 'a+' })).toEqual([]);
      });

      it('when text and a filter are both given, then both must hold and total counts them', async () => {
        const result = await store.find(collection, { text: 'marina', filter: { status: 'published', _id: { $ne: 1 } } });

        expect(idsOf(result.items)).toEqual([3]);
        expect(result.total).toBe(1);
      });

      it('when the text is empty, then it does not restrict the result', async () => {
        expect(await idsFound(collection, { text: '' })).toEqual([1, 2, 3, 4]);
      });
    });

    describe('sorting', () => {
      let collection: string;

      beforeAll(async () => {
        collection = await aCollectionWith(
          [
            { _id: 1, price: 300, name: 'b', updatedAt: '2024-02-01T00:00:00.000Z', rank: 2 },
            { _id: 2, price: 100, name: 'a', updatedAt: '2024-01-01T00:00:00.000Z', rank: 1 },
            { _id: 3, name: 'c', updatedAt: '2023-06-01T00:00:00.000Z', rank: 1 },
            { _id: 4, price: null, name: 'B', updatedAt: '2024-03-01T00:00:00.000Z', rank: 2 },
            { _id: 5, price: 200, name: 'aa', updatedAt: '2024-02-15T00:00:00.000Z', rank: 1 },
          ],
          'sort',
        );
      });

      it('when no sort is given, then documents come in _id order', async () => {
        expect(await idsFound(collection, {})).toEqual([1, 2, 3, 4, 5]);
      });

      it('when sorting numbers ascending, then missing and null come first', async () => {
        expect(await idsFound(collection, { sort: [['price', 1]] })).toEqual([3, 4, 2, 5, 1]);
      });

      it('when sorting numbers descending, then missing and null come last, still in _id order', async () => {
        expect(await idsFound(collection, { sort: [['price', -1]] })).toEqual([1, 5, 2, 3, 4]);
      });

      it('when sorting strings, then they compare by code point (upper case first)', async () => {
        expect(await idsFound(collection, { sort: [['name', 1]] })).toEqual([4, 2, 5, 1, 3]);
        expect(await idsFound(collection, { sort: [['name', -1]] })).toEqual([3, 1, 5, 2, 4]);
      });

      it('when sorting ISO timestamps, then they sort chronologically', async () => {
        expect(await idsFound(collection, { sort: [['updatedAt', -1]] })).toEqual([4, 5, 1, 2, 3]);
        expect(await idsFound(collection, { sort: [['updatedAt', 1]] })).toEqual([3, 2, 1, 5, 4]);
      });

      it('when sorting by several keys, then later keys break ties of earlier ones', async () => {
        expect(
          await idsFound(collection, {
            sort: [
              ['rank', 1],
              ['price', -1],
            ],
          }),
        ).toEqual([5, 2, 3, 1, 4]);
      });

      it('when sort keys tie, then _id ascending decides, whatever the direction', async () => {
        expect(await idsFound(collection, { sort: [['rank', -1]] })).toEqual([1, 4, 2, 3, 5]);
        expect(await idsFound(collection, { sort: [['rank', 1]] })).toEqual([2, 3, 5, 1, 4]);
      });

      it('when sorting by _id descending, then it is honoured instead of the tie-breaker', async () => {
        expect(await idsFound(collection, { sort: [['_id', -1]] })).toEqual([5, 4, 3, 2, 1]);
      });

      it('when sorting an array field, then ascending uses its smallest and descending its largest element', async () => {
        const arrays = await aCollectionWith([
          { _id: 1, sizes: [5, 50] },
          { _id: 2, sizes: [10, 20] },
          { _id: 3, sizes: 30 },
        ]);

        expect(await idsFound(arrays, { sort: [['sizes', 1]] })).toEqual([1, 2, 3]);
        expect(await idsFound(arrays, { sort: [['sizes', -1]] })).toEqual([1, 3, 2]);
      });

      it('when _ids mix numbers and strings, then numbers sort before strings', async () => {
        const mixed = await aCollectionWith([{ _id: 'b' }, { _id: 10 }, { _id: 'a' }, { _id: 2 }]);

        expect(await idsFound(mixed, {})).toEqual([2, 10, 'a', 'b']);
      });
    });

    describe('paging', () => {
      let collection: string;

      beforeAll(async () => {
        collection = await aCollectionWith(
          Array.from({ length: 25 }, (_, index) => ({ _id: `p${String(index).padStart(2, '0')}`, n: index, even: index % 2 === 0 })),
          'paging',
        );
      });

      it('when skip and limit are given, then that page comes back with the total of all matches', async () => {
        const firstPage = await store.find(collection, { sort: [['n', -1]], skip: 0, limit: 10 });
        const lastPage = await store.find(collection, { sort: [['n', -1]], skip: 20, limit: 10 });

        expect(firstPage.items.map((doc) => doc.n)).toEqual([24, 23, 22, 21, 20, 19, 18, 17, 16, 15]);
        expect(lastPage.items.map((doc) => doc.n)).toEqual([4, 3, 2, 1, 0]);
        expect([firstPage.total, lastPage.total]).toEqual([25, 25]);
      });

      it('when a filter is given, then total counts the matching documents only', async () => {
        const result = await store.find(collection, { filter: { even: true }, sort: [['n', 1]], skip: 2, limit: 3 });

        expect(result.items.map((doc) => doc.n)).toEqual([4, 6, 8]);
        expect(result.total).toBe(13);
      });

      it('when skip passes the end, then no items come back but total still counts', async () => {
        expect(await store.find(collection, { skip: 30, limit: 10 })).toEqual({ items: [], total: 25 });
      });

      it('when limit is 0, then no items come back but total still counts', async () => {
        expect(await store.find(collection, { limit: 0 })).toEqual({ items: [], total: 25 });
      });

      it('when the collection does not exist, then the result is empty', async () => {
        expect(await store.find(aCollectionName(), { limit: 10 })).toEqual({ items: [], total: 0 });
      });

      it('when find names the fields it reads, then each item holds _id and those, as stored, and the page and total are the same', async () => {
        const indexed = aCollectionName('fields');
        await store.ensureIndexes(indexed, [{ keys: [['n', 1]] }]);
        await store.write(
          Array.from({ length: 5 }, (_, index) =>
            put(indexed, { _id: index, n: index % 3, label: `l${index}`, nested: { deep: [index] } }),
          ),
        );
        const options: FindOptions = { filter: { n: { $gte: 1 } }, sort: [['n', -1]], skip: 1, limit: 2 };

        const whole = await store.find(indexed, options);
        const narrowed = await store.find(indexed, { ...options, fields: ['n'] });
        const idsOnly = await store.find(indexed, { ...options, fields: [] });

        expect(whole.items).toEqual([
          { _id: 1, n: 1, label: 'l1', nested: { deep: [1] } },
          { _id: 4, n: 1, label: 'l4', nested: { deep: [4] } },
        ]);
        expect(narrowed.items.map(({ _id, n }) => ({ _id, n }))).toEqual([
          { _id: 1, n: 1 },
          { _id: 4, n: 1 },
        ]);
        expect(idsOnly.items.map(({ _id }) => _id)).toEqual([1, 4]);
        expect([narrowed.total, idsOnly.total]).toEqual([whole.total, whole.total]);
      });
    });

    describe('sequence pages', () => {
      const positions = [1, 9, 10, 99, 100, 1000, 2 ** 40];
      const entryAt = (position: number): Doc => ({ _id: sequenceId(position), position });
      const positionsOf = (docs: readonly Doc[]) => docs.map((doc) => doc.position);

      it('when positions of different widths are stored, then a page walks them in position order within (after, until]', async () => {
        const collection = await aCollectionWith([...positions].reverse().map(entryAt), 'sequence');

        expect(positionsOf(await store.readSequence(collection, { after: 9, until: 1000, limit: 10 }))).toEqual([10, 99, 100, 1000]);
        expect(positionsOf(await store.readSequence(collection, { after: 9, until: 1000, limit: 2 }))).toEqual([10, 99]);
        expect(positionsOf(await store.readSequence(collection, { after: 0, until: 2 ** 53 - 1, limit: 100 }))).toEqual(positions);
      });

      it('when entries are put and deleted, then the next page reads them as they now are', async () => {
        const collection = await aCollectionWith(positions.map(entryAt), 'sequence');
        await store.write([put(collection, entryAt(50)), remove(collection, sequenceId(99))]);

        expect(positionsOf(await store.readSequence(collection, { after: 10, until: 100, limit: 10 }))).toEqual([50, 100]);
      });

      it('when the limit is 0, the range is empty or the collection does not exist, then no entries come back', async () => {
        const collection = await aCollectionWith(positions.map(entryAt), 'sequence');

        expect(await store.readSequence(collection, { after: 0, until: 1000, limit: 0 })).toEqual([]);
        expect(await store.readSequence(collection, { after: 100, until: 100, limit: 10 })).toEqual([]);
        expect(await store.readSequence(collection, { after: 1000, until: 10, limit: 10 })).toEqual([]);
        expect(await store.readSequence(aCollectionName(), { after: 0, until: 1000, limit: 10 })).toEqual([]);
      });

      it('when a position or the limit is not a non-negative safe integer, then the read is refused with a RangeError', async () => {
        const collection = await aCollectionWith(positions.map(entryAt), 'sequence');

        for (const range of [
          { after: -1, until: 10, limit: 1 },
          { after: 0, until: 2 ** 53, limit: 1 },
          { after: 0.5, until: 10, limit: 1 },
          { after: 0, until: 10, limit: -1 },
          { after: 0, until: 10, limit: 1.5 },
        ]) {
          await expect(store.readSequence(collection, range), JSON.stringify(range)).rejects.toThrow(RangeError);
        }
        expect(() => sequenceId(Number.NaN)).toThrow(RangeError);
      });

      it('when a generation writes a sequence, then it pages its own entries before the promote and the live store after', async () => {
        const collection = await aCollectionWith([entryAt(1)], 'sequence');
        const generation = await store.beginGeneration([collection]);
        await generation.write([put(collection, entryAt(7)), put(collection, entryAt(8))]);

        expect(positionsOf(await generation.readSequence(collection, { after: 0, until: 10, limit: 10 }))).toEqual([7, 8]);
        expect(positionsOf(await store.readSequence(collection, { after: 0, until: 10, limit: 10 }))).toEqual([1]);
        await generation.promote();
        expect(positionsOf(await store.readSequence(collection, { after: 0, until: 10, limit: 10 }))).toEqual([7, 8]);
      });
    });

    describe('checkpoints', () => {
      it('when no checkpoint was stored, then it is null', async () => {
        expect(await store.getCheckpoint(aCheckpointName())).toBeNull();
      });

      it('when positions beyond 2^53 are stored, then they come back exactly', async () => {
        const name = aCheckpointName();
        const beyondDoubles = 2n ** 53n + 1n;
        const largest = 2n ** 64n - 1n;

        await store.write([], [{ name, position: beyondDoubles }]);
        expect(await store.getCheckpoint(name)).toBe(beyondDoubles);

        await store.write([], [{ name, position: largest }]);
        expect(await store.getCheckpoint(name)).toBe(largest);
      });

      it('when a write carries documents and checkpoints, then both are stored', async () => {
        const collection = aCollectionName();
        const first = aCheckpointName();
        const second = aCheckpointName();

        await store.write(
          [put(collection, { _id: 1 })],
          [
            { name: first, position: 10n },
            { name: second, position: 0n },
          ],
        );

        expect(await store.get(collection, 1)).toEqual({ _id: 1 });
        expect(await store.getCheckpoint(first)).toBe(10n);
        expect(await store.getCheckpoint(second)).toBe(0n);
      });
    });

    describe('fencing tokens', () => {
      it('when a checkpoint was written with a token, then a write with a lower one is refused whole, naming the checkpoint', async () => {
        const collection = aCollectionName('fenced');
        const checkpoint = aCheckpointName();
        await store.write([put(collection, { _id: 1, by: 'new leader' })], [{ name: checkpoint, position: 20n, fencingToken: 7 }]);

        const error = await rejectionOf(
          store.write(
            [put(collection, { _id: 1, by: 'old leader' }), put(collection, { _id: 2 })],
            [{ name: checkpoint, position: 30n, fencingToken: 6 }],
          ),
        );

        expect(error).toBeInstanceOf(StaleFencingTokenError);
        expect(error).toMatchObject({ code: 'STALE_FENCING_TOKEN', checkpoint, fencingToken: 6, storedToken: 7 });
        expect(await store.getCheckpoint(checkpoint)).toBe(20n);
        expect((await store.find(collection)).items).toEqual([{ _id: 1, by: 'new leader' }]);
      });

      it('when the token is equal or greater, then the write is stored and the greater token is kept', async () => {
        const checkpoint = aCheckpointName();
        await store.write([], [{ name: checkpoint, position: 1n, fencingToken: 3 }]);

        await store.write([], [{ name: checkpoint, position: 2n, fencingToken: 3 }]);
        await store.write([], [{ name: checkpoint, position: 3n, fencingToken: 9 }]);

        expect(await store.getCheckpoint(checkpoint)).toBe(3n);
        expect(await rejectionOf(store.write([], [{ name: checkpoint, position: 4n, fencingToken: 8 }]))).toBeInstanceOf(
          StaleFencingTokenError,
        );
      });

      it('when a checkpoint is written without a token, then it is not checked and the stored token stays', async () => {
        const checkpoint = aCheckpointName();
        await store.write([], [{ name: checkpoint, position: 1n, fencingToken: 5 }]);

        await store.write([], [{ name: checkpoint, position: 2n }]);

        expect(await store.getCheckpoint(checkpoint)).toBe(2n);
        expect(await rejectionOf(store.write([], [{ name: checkpoint, position: 3n, fencingToken: 4 }]))).toBeInstanceOf(
          StaleFencingTokenError,
        );
      });

      it('when one of several checkpoints carries a stale token, then none of the write is stored', async () => {
        const [fresh, fenced] = [aCheckpointName(), aCheckpointName()];
        await store.write([], [{ name: fenced, position: 1n, fencingToken: 10 }]);

        const error = await rejectionOf(
          store.write(
            [],
            [
              { name: fresh, position: 5n, fencingToken: 2 },
              { name: fenced, position: 5n, fencingToken: 2 },
            ],
          ),
        );

        expect(error).toBeInstanceOf(StaleFencingTokenError);
        expect(await store.getCheckpoint(fresh)).toBeNull();
        expect(await store.getCheckpoint(fenced)).toBe(1n);
      });

      it('when a fencing token is not a positive whole number, then the write is refused', async () => {
        const checkpoint = aCheckpointName();

        for (const fencingToken of [0, -1, 1.5, Number.NaN]) {
          expect(await rejectionOf(store.write([], [{ name: checkpoint, position: 1n, fencingToken }]))).toBeInstanceOf(TypeError);
        }
        expect(await store.getCheckpoint(checkpoint)).toBeNull();
      });

      it('when a generation written with a token is promoted, then a live write with a lower token is refused', async () => {
        const collection = aCollectionName('fencedgen');
        const checkpoint = aCheckpointName();
        await store.write([put(collection, { _id: 1 })], [{ name: checkpoint, position: 10n, fencingToken: 4 }]);
        const generation = await store.beginGeneration([collection]);
        await generation.write([put(collection, { _id: 2 })], [{ name: checkpoint, position: 20n, fencingToken: 6 }]);

        await generation.promote();

        expect(await rejectionOf(store.write([], [{ name: checkpoint, position: 21n, fencingToken: 5 }]))).toBeInstanceOf(
          StaleFencingTokenError,
        );
        await store.write([], [{ name: checkpoint, position: 21n, fencingToken: 6 }]);
        expect(await store.getCheckpoint(checkpoint)).toBe(21n);
      });

      it('when a generation written without a token is promoted, then the live token stays', async () => {
        const collection = aCollectionName('fencedgen');
        const checkpoint = aCheckpointName();
        await store.write([put(collection, { _id: 1 })], [{ name: checkpoint, position: 10n, fencingToken: 8 }]);
        const generation = await store.beginGeneration([collection]);
        await generation.write([put(collection, { _id: 2 })], [{ name: checkpoint, position: 20n }]);

        await generation.promote();

        expect(await store.getCheckpoint(checkpoint)).toBe(20n);
        expect(await rejectionOf(store.write([], [{ name: checkpoint, position: 21n, fencingToken: 7 }]))).toBeInstanceOf(
          StaleFencingTokenError,
        );
      });
    });

    describe('unique indexes', () => {
      const bySlug = [{ keys: [['slug', 1]] as Array<[string, 1]>, unique: true }];

      async function aSluggedCollection(docs: Doc[]): Promise<string> {
        const collection = aCollectionName('unique');
        await store.ensureIndexes(collection, bySlug);
        await store.write(docs.map((doc) => put(collection, doc)));
        return collection;
      }

      it('when a second document takes a used key, then the write fails with DuplicateKeyError and stores no checkpoint', async () => {
        const collection = await aSluggedCollection([{ _id: 1, slug: 'marina-heights' }]);
        const checkpoint = aCheckpointName();

        const error = await rejectionOf(
          store.write([put(collection, { _id: 2, slug: 'marina-heights' })], [{ name: checkpoint, position: 5n }]),
        );

        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect(error).toMatchObject({ code: 'DUPLICATE_KEY', collection, index: 'slug_1' });
        expect(await store.get(collection, 2)).toBeNull();
        expect(await store.getCheckpoint(checkpoint)).toBeNull();
      });

      it('when a document is replaced keeping its key, then that is no conflict', async () => {
        const collection = await aSluggedCollection([{ _id: 1, slug: 'marina-heights', v: 1 }]);

        await store.write([put(collection, { _id: 1, slug: 'marina-heights', v: 2 })]);

        expect(await store.get(collection, 1)).toEqual({ _id: 1, slug: 'marina-heights', v: 2 });
      });

      it('when a document gives up its key, then another can take it, even later in the same write', async () => {
        const collection = await aSluggedCollection([
          { _id: 1, slug: 'a' },
          { _id: 2, slug: 'b' },
        ]);

        await store.write([put(collection, { _id: 1, slug: 'a-renamed' }), put(collection, { _id: 3, slug: 'a' }), remove(collection, 2)]);
        await store.write([put(collection, { _id: 4, slug: 'b' })]);

        expect(await idsFound(collection, { sort: [['slug', 1]] })).toEqual([3, 1, 4]);
      });

      it('when two documents both lack the key, then the second is rejected (missing counts as null)', async () => {
        const collection = await aSluggedCollection([{ _id: 1 }]);

        expect(await rejectionOf(store.write([put(collection, { _id: 2 })]))).toBeInstanceOf(DuplicateKeyError);
      });

      it('when the same indexes are declared again, then nothing changes', async () => {
        const collection = await aSluggedCollection([{ _id: 1, slug: 'a' }]);

        await store.ensureIndexes(collection, bySlug);

        expect(await rejectionOf(store.write([put(collection, { _id: 2, slug: 'a' })]))).toBeInstanceOf(DuplicateKeyError);
      });

      it('when a unique index is declared over documents that already share a key, then it is refused', async () => {
        const collection = await aCollectionWith([
          { _id: 1, slug: 'a' },
          { _id: 2, slug: 'a' },
        ]);

        expect(await rejectionOf(store.ensureIndexes(collection, bySlug))).toBeInstanceOf(DuplicateKeyError);
      });

      it('when a compound unique index is declared, then only the full combination must be unique', async () => {
        const collection = aCollectionName('compound');
        await store.ensureIndexes(collection, [
          {
            keys: [
              ['community', 1],
              ['slug', 1],
            ],
            unique: true,
          },
        ]);
        await store.write([
          put(collection, { _id: 1, community: 'c1', slug: 'a' }),
          put(collection, { _id: 2, community: 'c2', slug: 'a' }),
        ]);

        const error = await rejectionOf(store.write([put(collection, { _id: 3, community: 'c1', slug: 'a' })]));

        expect(error).toMatchObject({ code: 'DUPLICATE_KEY', index: 'community_1_slug_1' });
      });

      it.runIf(capabilities.atomicWrites)('when a later operation of a write fails, then none of the write is applied', async () => {
        const collection = await aSluggedCollection([{ _id: 1, slug: 'taken' }]);
        const checkpoint = aCheckpointName();

        const error = await rejectionOf(
          store.write(
            [put(collection, { _id: 2, slug: 'free' }), remove(collection, 1), put(collection, { _id: 3, slug: 'free' })],
            [{ name: checkpoint, position: 1n }],
          ),
        );

        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect(await idsFound(collection, {})).toEqual([1]);
        expect(await store.getCheckpoint(checkpoint)).toBeNull();
      });
    });

    describe('blue/green generations', () => {
      async function aLiveCollection(): Promise<{ collection: string; checkpoint: string }> {
        const collection = aCollectionName('bluegreen');
        const checkpoint = aCheckpointName();
        await store.write([put(collection, { _id: 1, generation: 'old' })], [{ name: checkpoint, position: 10n }]);
        return { collection, checkpoint };
      }

      it('when a generation begins, then its collections and checkpoints start empty', async () => {
        const { collection, checkpoint } = await aLiveCollection();

        const generation = await store.beginGeneration([collection]);

        expect(generation.generation).toEqual(expect.any(String));
        expect(await generation.find(collection)).toEqual({ items: [], total: 0 });
        expect(await generation.get(collection, 1)).toBeNull();
        expect(await generation.getCheckpoint(checkpoint)).toBeNull();
        await generation.discard();
      });

      it('when a generation is written, then the live store keeps serving the old documents and checkpoint', async () => {
        const { collection, checkpoint } = await aLiveCollection();
        const generation = await store.beginGeneration([collection]);

        await generation.write([put(collection, { _id: 2, generation: 'new' })], [{ name: checkpoint, position: 20n }]);

        expect(await generation.get(collection, 2)).toEqual({ _id: 2, generation: 'new' });
        expect(idsOf((await store.find(collection)).items)).toEqual([1]);
        expect(await store.get(collection, 2)).toBeNull();
        expect(await store.getCheckpoint(checkpoint)).toBe(10n);
        await generation.discard();
      });

      it('when a generation reads a collection outside it, then it sees the live documents', async () => {
        const { collection } = await aLiveCollection();
        const outside = await aCollectionWith([{ _id: 'shared' }]);

        const generation = await store.beginGeneration([collection]);

        expect(await generation.get(outside, 'shared')).toEqual({ _id: 'shared' });
        await generation.discard();
      });

      it('when a generation is promoted, then the live store serves its documents and checkpoints', async () => {
        const { collection, checkpoint } = await aLiveCollection();
        const untouchedCheckpoint = aCheckpointName();
        await store.write([], [{ name: untouchedCheckpoint, position: 7n }]);
        const generation = await store.beginGeneration([collection]);
        await generation.write([put(collection, { _id: 2, generation: 'new' })], [{ name: checkpoint, position: 20n }]);

        await generation.promote();

        expect((await store.find(collection)).items).toEqual([{ _id: 2, generation: 'new' }]);
        expect(await store.get(collection, 1)).toBeNull();
        expect(await store.getCheckpoint(checkpoint)).toBe(20n);
        expect(await store.getCheckpoint(untouchedCheckpoint)).toBe(7n);
      });

      it('when the live store writes after a promote, then it writes the promoted collection and checkpoint', async () => {
        const { collection, checkpoint } = await aLiveCollection();
        const generation = await store.beginGeneration([collection]);
        await generation.write([put(collection, { _id: 2 })], [{ name: checkpoint, position: 20n }]);
        await generation.promote();

        await store.write([put(collection, { _id: 3 })], [{ name: checkpoint, position: 21n }]);

        expect(idsOf((await store.find(collection)).items)).toEqual([2, 3]);
        expect(await store.getCheckpoint(checkpoint)).toBe(21n);
      });

      it('when a second generation is promoted, then it replaces the first', async () => {
        const { collection, checkpoint } = await aLiveCollection();
        const first = await store.beginGeneration([collection]);
        await first.write([put(collection, { _id: 2 })], [{ name: checkpoint, position: 20n }]);
        await first.promote();

        const second = await store.beginGeneration([collection]);
        expect(await second.find(collection)).toEqual({ items: [], total: 0 });
        await second.write([put(collection, { _id: 3 })], [{ name: checkpoint, position: 30n }]);
        await second.promote();

        expect(idsOf((await store.find(collection)).items)).toEqual([3]);
        expect(await store.getCheckpoint(checkpoint)).toBe(30n);
      });

      it('when a generation is discarded, then the live documents and checkpoints are untouched', async () => {
        const { collection, checkpoint } = await aLiveCollection();
        const generation = await store.beginGeneration([collection]);
        await generation.write([put(collection, { _id: 2 })], [{ name: checkpoint, position: 20n }]);

        await generation.discard();

        expect(idsOf((await store.find(collection)).items)).toEqual([1]);
        expect(await store.getCheckpoint(checkpoint)).toBe(10n);
        const next = await store.beginGeneration([collection]);
        expect(await next.find(collection)).toEqual({ items: [], total: 0 });
        await next.discard();
      });

      it('when unique indexes were declared on the live collection, then a generation enforces them too', async () => {
        const { collection } = await aLiveCollection();
        await store.ensureIndexes(collection, [{ keys: [['slug', 1]], unique: true }]);
        const generation = await store.beginGeneration([collection]);
        await generation.write([put(collection, { _id: 1, slug: 'a' })]);

        expect(await rejectionOf(generation.write([put(collection, { _id: 2, slug: 'a' })]))).toBeInstanceOf(DuplicateKeyError);
        await generation.discard();
      });

      it('when a generation spans several collections, then promote swaps them all', async () => {
        const first = await aCollectionWith([{ _id: 1 }]);
        const second = await aCollectionWith([{ _id: 1 }]);
        const generation = await store.beginGeneration([first, second]);
        await generation.write([put(first, { _id: 10 }), put(second, { _id: 20 })]);

        await generation.promote();

        expect(idsOf((await store.find(first)).items)).toEqual([10]);
        expect(idsOf((await store.find(second)).items)).toEqual([20]);
      });
    });

    it('when the store is up, then ping answers true', async () => {
      expect(await store.ping()).toBe(true);
    });
  });
}
