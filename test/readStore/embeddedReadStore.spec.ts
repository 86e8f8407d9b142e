import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { sequenceId, StaleFencingTokenError, type Doc, type Filter, type ReadStore, type WriteOp } from '../../src/readStore/readStore.js';
import { readStoreContract } from './readStoreContract.js';

const tempDir = mkdtempSync(join(tmpdir(), 'embedded-read-store-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

const aDatabaseFile = (): string => join(tempDir, `${randomUUID()}.sqlite`);

readStoreContract('embedded, in memory', async () => createEmbeddedReadStore(), { atomicWrites: true });
readStoreContract('embedded, SQLite file', async () => createEmbeddedReadStore({ file: aDatabaseFile() }), { atomicWrites: true });
readStoreContract(
  'embedded, SQLite file, lean mirrors',
  async () => createEmbeddedReadStore({ file: aDatabaseFile(), leanCollections: 'all' }),
  { atomicWrites: true },
);

const put = (collection: string, doc: Doc): WriteOp => ({ op: 'put', collection, doc });

describe('embedded read store', () => {
  const opened: ReadStore[] = [];
  const open = (file?: string): ReadStore => {
    const store = createEmbeddedReadStore(file === undefined ? {} : { file });
    opened.push(store);
    return store;
  };

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  describe('durability', () => {
    it('when the store is closed and reopened, then documents, checkpoints, indexes and promotions are still there', async () => {
      const file = aDatabaseFile();
      const first = open(file);
      await first.ensureIndexes('projects', [{ keys: [['slug', 1]], unique: true }]);
      await first.write(
        [put('projects', { _id: 1, slug: 'a' }), put('developers', { _id: 7 })],
        [{ name: 'projects', position: 2n ** 60n }],
      );
      const generation = await first.beginGeneration(['developers']);
      await generation.write([put('developers', { _id: 8 })]);
      await generation.promote();
      await first.close();

      const reopened = open(file);

      expect(await reopened.get('projects', 1)).toEqual({ _id: 1, slug: 'a' });
      expect((await reopened.find('developers')).items).toEqual([{ _id: 8 }]);
      expect(await reopened.getCheckpoint('projects')).toBe(2n ** 60n);
      await expect(reopened.write([put('projects', { _id: 2, slug: 'a' })])).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
    });

    it('when a generation was left unfinished, then beginning a new one for its collections clears it away', async () => {
      const file = aDatabaseFile();
      const first = open(file);
      const abandoned = await first.beginGeneration(['projects']);
      await abandoned.write([put('projects', { _id: 1 })], [{ name: 'projects', position: 5n }]);
      await first.close();

      const reopened = open(file);
      const fresh = await reopened.beginGeneration(['projects']);

      expect(await fresh.find('projects')).toEqual({ items: [], total: 0 });
      expect(await fresh.getCheckpoint('projects')).toBeNull();
      await expect(abandoned.promote()).rejects.toThrow();
    });

    it('when a generation was replaced by a newer one, then promoting the older one is refused', async () => {
      const store = open();
      const older = await store.beginGeneration(['projects']);
      const newer = await store.beginGeneration(['projects']);
      await newer.write([put('projects', { _id: 1 })]);

      await expect(older.promote()).rejects.toThrow(/no longer pending/);
      await newer.promote();
      expect(await store.get('projects', 1)).toEqual({ _id: 1 });
    });
  });

  describe('two instances on one file (an API and a projector process)', () => {
    it('when the other instance puts, replaces and deletes documents, then the next query sees it', async () => {
      const file = aDatabaseFile();
      const projector = open(file);
      const api = open(file);
      await projector.write([
        put('projects', { _id: 1, price: 10 }),
        put('projects', { _id: 2, price: 20 }),
        put('projects', { _id: 3, price: 30 }),
      ]);
      expect((await api.find('projects', { sort: [['price', -1]] })).items.map((doc) => doc._id)).toEqual([3, 2, 1]);

      await projector.write([
        put('projects', { _id: 1, price: 99 }),
        { op: 'delete', collection: 'projects', id: 3 },
        put('projects', { _id: 4, price: 5 }),
      ]);

      expect(await api.find('projects', { sort: [['price', -1]] })).toEqual({
        items: [
          { _id: 1, price: 99 },
          { _id: 2, price: 20 },
          { _id: 4, price: 5 },
        ],
        total: 3,
      });
      expect(await api.get('projects', 3)).toBeNull();
    });

    it('when the other instance stores a checkpoint, then this one reads it', async () => {
      const file = aDatabaseFile();
      const projector = open(file);
      const api = open(file);

      await projector.write([], [{ name: 'projects', position: 42n }]);

      expect(await api.getCheckpoint('projects')).toBe(42n);
    });

    it('when the other instance promotes a generation, then this one serves the promoted collection', async () => {
      const file = aDatabaseFile();
      const projector = open(file);
      const api = open(file);
      await projector.write([put('projects', { _id: 1 })], [{ name: 'projects', position: 1n }]);
      expect((await api.find('projects')).total).toBe(1);

      const generation = await projector.beginGeneration(['projects']);
      await generation.write([put('projects', { _id: 2 }), put('projects', { _id: 3 })], [{ name: 'projects', position: 9n }]);
      expect((await api.find('projects')).total).toBe(1);
      await generation.promote();

      expect((await api.find('projects')).items).toEqual([{ _id: 2 }, { _id: 3 }]);
      expect(await api.getCheckpoint('projects')).toBe(9n);
    });

    it('when the other instance declares a unique index, then this one enforces it', async () => {
      const file = aDatabaseFile();
      const api = open(file);
      const projector = open(file);
      await projector.write([put('projects', { _id: 1, slug: 'a' })]);
      expect(await projector.get('projects', 1)).not.toBeNull();

      await api.ensureIndexes('projects', [{ keys: [['slug', 1]], unique: true }]);

      await expect(projector.write([put('projects', { _id: 2, slug: 'a' })])).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
    });

    it('when both instances write in turns, then each sees the sum of both', async () => {
      const file = aDatabaseFile();
      const left = open(file);
      const right = open(file);

      for (let index = 0; index < 10; index++) {
        await (index % 2 === 0 ? left : right).write([put('counters', { _id: index })]);
        expect((await left.find('counters')).total).toBe(index + 1);
        expect((await right.find('counters')).total).toBe(index + 1);
      }
    });
  });

  describe('fencing tokens across processes', () => {
    it('when a new leader wrote on another connection, then the paused old leader cannot write its batch, and its mirror shows none of it', async () => {
      const file = aDatabaseFile();
      const oldLeader = open(file);
      const newLeader = open(file);
      await oldLeader.write([put('projects', { _id: 1, name: 'v1' })], [{ name: 'projects', position: 1n, fencingToken: 100 }]);
      await newLeader.write([put('projects', { _id: 1, name: 'v2' })], [{ name: 'projects', position: 2n, fencingToken: 101 }]);

      const refused = oldLeader.write(
        [put('projects', { _id: 1, name: 'stale' })],
        [{ name: 'projects', position: 2n, fencingToken: 100 }],
      );

      await expect(refused).rejects.toBeInstanceOf(StaleFencingTokenError);
      expect(await oldLeader.get('projects', 1)).toEqual({ _id: 1, name: 'v2' });
      expect(await newLeader.getCheckpoint('projects')).toBe(2n);
    });

    it('when a file written before fencing tokens existed is opened, then its checkpoints are kept and gain the token column', async () => {
      const file = aDatabaseFile();
      const before = new Database(file);
      before.exec(`
        CREATE TABLE checkpoints (scope TEXT NOT NULL, name TEXT NOT NULL, position TEXT NOT NULL, PRIMARY KEY (scope, name)) WITHOUT ROWID;
        INSERT INTO checkpoints (scope, name, position) VALUES ('', 'projects', '42');
      `);
      before.close();

      const store = open(file);

      expect(await store.getCheckpoint('projects')).toBe(42n);
      await store.write([], [{ name: 'projects', position: 43n, fencingToken: 5 }]);
      await expect(store.write([], [{ name: 'projects', position: 44n, fencingToken: 4 }])).rejects.toBeInstanceOf(StaleFencingTokenError);
      expect(await open(file).getCheckpoint('projects')).toBe(43n);
    });
  });

  describe('unique keys of collections that are written but not read', () => {
    const bySlug = [{ keys: [['slug', 1]] as Array<[string, 1]>, unique: true }];

    it('when such a collection is read at last, then its loaded documents keep enforcing the same keys', async () => {
      const store = open();
      await store.ensureIndexes('projects', bySlug);
      await store.write([put('projects', { _id: 1, slug: 'a' }), put('projects', { _id: 2, slug: 'b' })]);

      expect(await store.get('projects', 1)).toEqual({ _id: 1, slug: 'a' });
      await expect(store.write([put('projects', { _id: 3, slug: 'b' })])).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
      await store.write([put('projects', { _id: 2, slug: 'b-renamed' }), put('projects', { _id: 3, slug: 'b' })]);
      expect((await store.find('projects', { sort: [['slug', 1]] })).items.map((doc) => doc._id)).toEqual([1, 3, 2]);
    });

    it('when the other instance changes keys of such a collection, then this one checks against the stored keys', async () => {
      const file = aDatabaseFile();
      const left = open(file);
      const right = open(file);
      await left.ensureIndexes('projects', bySlug);
      await left.write([put('projects', { _id: 1, slug: 'a' })]);

      await right.write([put('projects', { _id: 1, slug: 'b' })]);

      await left.write([put('projects', { _id: 2, slug: 'a' })]);
      await expect(left.write([put('projects', { _id: 3, slug: 'b' })])).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
    });

    it('when the other instance declares another unique index, then this one enforces it on a collection it has only written', async () => {
      const file = aDatabaseFile();
      const projector = open(file);
      const api = open(file);
      await projector.ensureIndexes('projects', bySlug);
      await projector.write([put('projects', { _id: 1, slug: 'a', code: 'x' })]);

      await api.ensureIndexes('projects', [{ keys: [['code', 1]], unique: true }]);

      await expect(projector.write([put('projects', { _id: 2, slug: 'b', code: 'x' })])).rejects.toMatchObject({
        code: 'DUPLICATE_KEY',
        index: 'code_1',
      });
    });

    it('when a generation is written but not read, then promoting it serves its documents and keeps its keys unique', async () => {
      const store = open();
      await store.ensureIndexes('projects', bySlug);
      await store.write([put('projects', { _id: 1, slug: 'old' })]);
      const generation = await store.beginGeneration(['projects']);
      await generation.write([put('projects', { _id: 2, slug: 'a' })]);
      await expect(generation.write([put('projects', { _id: 3, slug: 'a' })])).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });

      await generation.promote();

      expect((await store.find('projects')).items).toEqual([{ _id: 2, slug: 'a' }]);
      await expect(store.write([put('projects', { _id: 4, slug: 'a' })])).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
    });
  });

  describe('generations of a file-backed store (writes committed by the writer thread)', () => {
    it('when a generation is written and read back, then every write is there in order, with its checkpoint', async () => {
      const store = open(aDatabaseFile());
      const generation = await store.beginGeneration(['projects']);
      for (let batch = 1; batch <= 20; batch++) {
        await generation.write(
          [put('projects', { _id: batch, v: 1 }), put('projects', { _id: batch - 1, v: 2 })],
          [{ name: 'projects', position: BigInt(batch) }],
        );
      }

      expect(await generation.getCheckpoint('projects')).toBe(20n);
      expect(await generation.get('projects', 20)).toEqual({ _id: 20, v: 1 });
      expect((await generation.find('projects', { filter: { v: 2 } })).total).toBe(20);
      await generation.promote();
      expect((await store.find('projects')).total).toBe(21);
      expect(await store.getCheckpoint('projects')).toBe(20n);
    });

    it('when another connection holds the write lock, then reads by id answer at once from what is committed, and one of a queued document waits for its commit', async () => {
      const file = aDatabaseFile();
      const store = open(file);
      const generation = await store.beginGeneration(['projects']);
      await generation.write([put('projects', { _id: 1, v: 1 }), put('projects', { _id: 2, v: 1 }), put('projects', { _id: 3, v: 1 })]);
      // Waits for the commit of that write only: its ids are in flight.
      expect(await generation.get('projects', 1)).toEqual({ _id: 1, v: 1 });
      const other = new Database(file);
      try {
        other.exec('BEGIN IMMEDIATE');
        // Queued on the writer thread, which now waits for the lock.
        await generation.write([put('projects', { _id: 4, v: 1 }), put('projects', { _id: 2, v: 2 })]);
        let queuedRead: unknown;
        const reading = generation.get('projects', 4).then((doc) => (queuedRead = doc));

        const started = performance.now();
        expect(await generation.get('projects', 3)).toEqual({ _id: 3, v: 1 });
        expect(await generation.get('projects', 99)).toBeNull();
        expect(await generation.getMany('projects', [3, 99, 1])).toEqual([
          { _id: 3, v: 1 },
          { _id: 1, v: 1 },
        ]);
        expect(performance.now() - started).toBeLessThan(1000);

        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(queuedRead).toBeUndefined();
        other.exec('COMMIT');
        await reading;
        expect(queuedRead).toEqual({ _id: 4, v: 1 });
        expect(await generation.get('projects', 2)).toEqual({ _id: 2, v: 2 });
      } finally {
        other.close();
      }
      await generation.promote();
      expect((await store.find('projects')).total).toBe(4);
    });

    it('when a queued write fails to commit, then a read by id of the generation fails as its promotion does', async () => {
      const file = aDatabaseFile();
      const store = open(file);
      const saboteur = new Database(file);
      saboteur.exec(
        `CREATE TRIGGER refuse_broken BEFORE INSERT ON documents WHEN NEW.doc LIKE '%broken%' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
      );
      saboteur.close();
      const generation = await store.beginGeneration(['projects']);

      await generation.write([put('projects', { _id: 1, v: 'broken' })]);

      await expect(generation.get('projects', 1)).rejects.toThrow('refused');
      await expect(generation.getMany('projects', [2])).rejects.toThrow('refused');
      await generation.discard();
    });

    it('when a queued write would break a unique key, then it is refused at once and nothing of it is stored', async () => {
      const store = open(aDatabaseFile());
      await store.ensureIndexes('projects', [{ keys: [['slug', 1]], unique: true }]);
      const generation = await store.beginGeneration(['projects']);
      await generation.write([put('projects', { _id: 1, slug: 'a' })], [{ name: 'projects', position: 1n }]);

      await expect(
        generation.write(
          [put('projects', { _id: 2, slug: 'b' }), put('projects', { _id: 3, slug: 'a' })],
          [{ name: 'projects', position: 2n }],
        ),
      ).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
      await generation.write(
        [put('projects', { _id: 1, slug: 'c' }), put('projects', { _id: 3, slug: 'a' })],
        [{ name: 'projects', position: 3n }],
      );

      expect((await generation.find('projects', { sort: [['slug', 1]] })).items).toEqual([
        { _id: 3, slug: 'a' },
        { _id: 1, slug: 'c' },
      ]);
      expect(await generation.getCheckpoint('projects')).toBe(3n);
    });

    it('when a queued write fails to commit, then nothing after it is committed, the generation refuses to promote and the live store is untouched', async () => {
      const file = aDatabaseFile();
      const store = open(file);
      await store.write([put('projects', { _id: 1, v: 'live' })], [{ name: 'projects', position: 1n }]);
      const saboteur = new Database(file);
      saboteur.exec(
        `CREATE TRIGGER refuse_broken BEFORE INSERT ON documents WHEN NEW.doc LIKE '%broken%' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
      );
      saboteur.close();
      const generation = await store.beginGeneration(['projects']);

      await generation.write([put('projects', { _id: 1, v: 'broken' })], [{ name: 'projects', position: 2n }]);
      await generation.write([put('projects', { _id: 2, v: 'fine' })], [{ name: 'projects', position: 3n }]).catch(() => undefined);

      await expect(generation.promote()).rejects.toThrow('refused');
      await expect(generation.write([put('projects', { _id: 3, v: 'fine' })])).rejects.toThrow('refused');
      await generation.discard();
      expect((await store.find('projects')).items).toEqual([{ _id: 1, v: 'live' }]);
      expect(await store.getCheckpoint('projects')).toBe(1n);
      const fresh = await store.beginGeneration(['projects']);
      await fresh.write([put('projects', { _id: 4, v: 'fine' })], [{ name: 'projects', position: 4n }]);
      await fresh.promote();
      expect((await store.find('projects')).items).toEqual([{ _id: 4, v: 'fine' }]);
    });

    it("when a queued write fails to commit next to other generations' writes, then only its own generation fails", async () => {
      const file = aDatabaseFile();
      const store = open(file);
      const saboteur = new Database(file);
      saboteur.exec(
        `CREATE TRIGGER refuse_broken BEFORE INSERT ON documents WHEN NEW.doc LIKE '%broken%' BEGIN SELECT RAISE(ABORT, 'refused'); END`,
      );
      saboteur.close();
      const failing = await store.beginGeneration(['projects']);
      const healthy = await store.beginGeneration(['developers']);

      // Queued in one turn, so that the writer thread most likely commits them together.
      await Promise.all([
        healthy.write([put('developers', { _id: 1, v: 'before' })], [{ name: 'developers', position: 1n }]),
        failing.write([put('projects', { _id: 1, v: 'broken' })], [{ name: 'projects', position: 1n }]),
        healthy.write([put('developers', { _id: 2, v: 'after' })], [{ name: 'developers', position: 2n }]),
        failing.write([put('projects', { _id: 2, v: 'fine' })], [{ name: 'projects', position: 2n }]).catch(() => undefined),
      ]);

      await expect(failing.promote()).rejects.toThrow('refused');
      await failing.discard();
      await healthy.promote();
      expect((await store.find('developers')).items).toEqual([
        { _id: 1, v: 'before' },
        { _id: 2, v: 'after' },
      ]);
      expect(await store.getCheckpoint('developers')).toBe(2n);
      expect((await store.find('projects')).total).toBe(0);
    });

    it("when a generation's documents hold characters beyond ASCII, then they are stored byte for byte as the live store stores them", async () => {
      const file = aDatabaseFile();
      const store = open(file);
      const docs: Doc[] = [
        { _id: 1, label: 'Studio – 1 Bedroom', city: 'Düsseldorf', note: '🏙️ skyline, 日本語' },
        { _id: 'é-2', text: 'x'.repeat(5_000) + '–'.repeat(3_000) + '😀'.repeat(1_000) },
        { _id: 3, lone: 'a\ud800b', plain: 'ascii only' },
      ];
      await store.write(docs.map((doc) => put('live', doc)));
      const generation = await store.beginGeneration(['rebuilt']);
      await generation.write(
        docs.map((doc) => put('rebuilt', doc)),
        [{ name: 'rebuilt', position: 1n }],
      );
      await generation.promote();

      expect((await store.find('rebuilt')).items).toEqual((await store.find('live')).items);
      const inspector = new Database(file, { readonly: true });
      const stored = (collection: string) =>
        inspector
          .prepare<[string], [string, string, string]>('SELECT id, typeof(doc), doc FROM documents WHERE collection = ? ORDER BY id')
          .raw()
          .all(collection);
      const live = stored('live');
      const rebuilt = stored(`rebuilt@${generation.generation}`);
      inspector.close();
      expect(rebuilt).toEqual(live);
      expect(live.map(([, type]) => type)).toEqual(['text', 'text', 'text']);
    });

    it('when the store is closed with generation writes in flight, then they are committed first', async () => {
      const file = aDatabaseFile();
      const store = open(file);
      const generation = await store.beginGeneration(['projects']);
      for (let id = 1; id <= 50; id++) await generation.write([put('projects', { _id: id })], [{ name: 'projects', position: BigInt(id) }]);
      await store.close();

      const reopened = open(file);
      const inspector = new Database(file, { readonly: true });
      const stored = inspector
        .prepare('SELECT COUNT(*) FROM documents WHERE collection = ?')
        .pluck()
        .get(`projects@${generation.generation}`);
      inspector.close();
      expect(stored).toBe(50);
      expect(await reopened.find('projects')).toEqual({ items: [], total: 0 });
    });
  });

  describe('query caches', () => {
    it('when a write changes a document after a query, then the same query answers the change', async () => {
      const store = open();
      const query = { filter: { status: 'published' }, sort: [['price', 1]] as Array<[string, 1]>, limit: 2 };
      await store.write([
        put('projects', { _id: 1, status: 'published', price: 30 }),
        put('projects', { _id: 2, status: 'published', price: 20 }),
      ]);
      expect((await store.find('projects', query)).items.map((doc) => doc._id)).toEqual([2, 1]);

      await store.write([
        put('projects', { _id: 1, status: 'published', price: 10 }),
        put('projects', { _id: 3, status: 'published', price: 15 }),
      ]);
      expect(await store.find('projects', query)).toEqual({
        items: [
          { _id: 1, status: 'published', price: 10 },
          { _id: 3, status: 'published', price: 15 },
        ],
        total: 3,
      });

      await store.write([{ op: 'delete', collection: 'projects', id: 1 }, put('projects', { _id: 3, status: 'draft', price: 15 })]);
      expect(await store.find('projects', query)).toEqual({ items: [{ _id: 2, status: 'published', price: 20 }], total: 1 });
    });

    it('when indexes are declared after a query, then the same query still answers the same', async () => {
      const store = open();
      await store.write([put('projects', { _id: 1, developer: 7 }), put('projects', { _id: 2, developer: 8 })]);
      const before = await store.find('projects', { filter: { developer: 7 } });

      await store.ensureIndexes('projects', [{ keys: [['developer', 1]] }]);

      expect(await store.find('projects', { filter: { developer: 7 } })).toEqual(before);
    });
  });

  describe('equality indexes', () => {
    /** Deterministic pseudo-random documents, so a failure can be replayed. */
    function someProjects(count: number): Doc[] {
      let seed = 7;
      const next = (modulo: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % modulo;
      };
      return Array.from({ length: count }, (_, index) => {
        const doc: Doc = { _id: index, developer: { id: next(20) }, price: next(1000) * 1000 };
        if (next(3) > 0) doc.status = ['published', 'draft', 'archived'][next(3)];
        if (next(4) === 0) doc.community = null;
        else if (next(4) > 0) doc.community = `c${next(10)}`;
        doc.tags = Array.from({ length: next(4) }, () => `t${next(6)}`);
        return doc;
      });
    }

    const filters: Filter[] = [
      { status: 'published' },
      { status: null },
      { status: { $in: ['draft', 'archived'] } },
      { status: { $in: ['draft', null] } },
      { 'developer.id': 3 },
      { 'developer.id': { $eq: 3 }, price: { $lt: 500_000 } },
      { community: null },
      { community: 'c4', status: 'published' },
      { tags: 't2' },
      { tags: { $in: ['t1', 't5'] }, 'developer.id': { $in: [1, 2, 3, 4] } },
      { _id: { $in: [5, 50, 500, 5000] }, status: { $ne: 'draft' } },
    ];

    it('when filters are answered from equality indexes, then they match exactly what a scan matches', async () => {
      const store = open();
      const docs = someProjects(600);
      await store.ensureIndexes('indexed', [
        { keys: [['status', 1]] },
        { keys: [['developer.id', 1]] },
        { keys: [['community', 1]] },
        { keys: [['tags', 1]] },
      ]);
      await store.write(docs.flatMap((doc) => [put('indexed', doc), put('scanned', doc)]));

      for (const filter of filters) {
        for (const sort of [undefined, [['price', -1]] as Array<[string, -1]>]) {
          const indexed = await store.find('indexed', { filter, sort, limit: 20 });
          const scanned = await store.find('scanned', { filter, sort, limit: 20 });
          expect(indexed, JSON.stringify(filter)).toEqual(scanned);
          expect(await store.findOne('indexed', filter)).toEqual(await store.findOne('scanned', filter));
        }
      }
    });
  });

  describe('reads by id of a collection nothing has searched', () => {
    it('when a collection is only read by id, then each read parses the stored document afresh: no mirror holds it', async () => {
      const store = open(aDatabaseFile());
      await store.write([put('resources', { _id: 1, plans: ['a'] }), put('resources', { _id: 2, plans: [] })]);

      const [first, again] = [await store.get('resources', 1), await store.get('resources', 1)];
      expect(first).toEqual({ _id: 1, plans: ['a'] });
      expect(again).toEqual(first);
      expect(again).not.toBe(first);
      expect(Object.isFrozen(first) && Object.isFrozen(first!.plans)).toBe(true);
      expect(await store.getMany('resources', [2, 3, 1])).toEqual([{ _id: 2, plans: [] }, first]);
    });

    it("when the collection has been searched, then reads by id answer the mirror's own documents", async () => {
      const store = open(aDatabaseFile());
      await store.write([put('resources', { _id: 1 })]);
      const [found] = (await store.find('resources')).items;

      expect(await store.get('resources', 1)).toBe(found);
      expect((await store.getMany('resources', [1]))[0]).toBe(found);
    });

    it('when a read by id is explained, then the explanation loads no mirror either', async () => {
      const store = createEmbeddedReadStore({ file: aDatabaseFile() });
      opened.push(store);
      await store.write([put('resources', { _id: 1 })]);

      expect(await store.explain({ method: 'getMany', collection: 'resources', ids: [1] })).toEqual({ source: '_id', ordering: null });

      expect(await store.get('resources', 1)).not.toBe(await store.get('resources', 1));
    });

    it('when another instance writes and deletes while neither has searched, then reads by id see each change at once', async () => {
      const file = aDatabaseFile();
      const projector = open(file);
      const api = open(file);
      await projector.write([put('resources', { _id: 1, v: 1 }), put('resources', { _id: 2, v: 1 })]);
      expect(await api.getMany('resources', [1, 2])).toEqual([
        { _id: 1, v: 1 },
        { _id: 2, v: 1 },
      ]);

      await projector.write([put('resources', { _id: 1, v: 2 }), { op: 'delete', collection: 'resources', id: 2 }]);

      expect(await api.get('resources', 1)).toEqual({ _id: 1, v: 2 });
      expect(await api.get('resources', 2)).toBeNull();
      expect(await api.getMany('resources', [1, 2])).toEqual([{ _id: 1, v: 2 }]);
    });

    it('when a generation of the collection is promoted, then reads by id answer from the promoted one', async () => {
      const store = open(aDatabaseFile());
      await store.write([put('resources', { _id: 1, v: 'old' })]);
      const generation = await store.beginGeneration(['resources']);
      await generation.write([put('resources', { _id: 1, v: 'new' })]);
      expect(await store.get('resources', 1)).toEqual({ _id: 1, v: 'old' });

      await generation.promote();

      expect(await store.get('resources', 1)).toEqual({ _id: 1, v: 'new' });
    });
  });

  describe('sequence pages of a collection nothing has searched', () => {
    const entryAt = (position: number): Doc => ({ _id: sequenceId(position), position, tags: ['t'] });
    const page = { after: 1, until: 30, limit: 10 };

    it('when a page is read before any search, then it walks the table, parses afresh, freezes, and loads no mirror', async () => {
      const store = createEmbeddedReadStore({ file: aDatabaseFile() });
      opened.push(store);
      await store.write([30, 2, 20, 1, 31].map((position) => put('entries', entryAt(position))));

      const [first, again] = [await store.readSequence('entries', page), await store.readSequence('entries', page)];

      expect(first.map((entry) => entry.position)).toEqual([2, 20, 30]);
      expect(again).toEqual(first);
      expect(again[0]).not.toBe(first[0]);
      expect(Object.isFrozen(first[0]) && Object.isFrozen(first[0]!.tags)).toBe(true);
      expect(await store.explain({ method: 'readSequence', collection: 'entries', range: page })).toEqual({
        source: '_id range',
        ordering: null,
      });
    });

    it("when the collection has been searched, then a page answers the mirror's own documents in the same order", async () => {
      const store = createEmbeddedReadStore({ file: aDatabaseFile() });
      opened.push(store);
      await store.write([30, 2, 20].map((position) => put('entries', entryAt(position))));
      const { items } = await store.find('entries', { sort: [['position', 1]] });

      const fromMirror = await store.readSequence('entries', page);

      expect(fromMirror).toEqual(items);
      fromMirror.forEach((entry, index) => expect(entry).toBe(items[index]));
      expect((await store.explain({ method: 'readSequence', collection: 'entries', range: page })).source).not.toBe('_id range');
    });

    it('when another instance appends and deletes entries, then the next page of this one sees them', async () => {
      const file = aDatabaseFile();
      const projector = open(file);
      const api = open(file);
      await projector.write([put('entries', entryAt(2))]);
      expect(await api.readSequence('entries', page)).toHaveLength(1);

      await projector.write([put('entries', entryAt(3)), { op: 'delete', collection: 'entries', id: sequenceId(2) }]);

      expect((await api.readSequence('entries', page)).map((entry) => entry.position)).toEqual([3]);
    });
  });

  describe('lean mirrors: the declared fields in memory, whole documents from the table', () => {
    const listing = (id: number, name: string, price: number): Doc => ({
      _id: id,
      name,
      price,
      _search: name.toLowerCase(),
      description: `${name} described at length`,
      gallery: [{ url: `/${id}.jpg` }],
    });
    const openLean = (file = aDatabaseFile()) => {
      const store = createEmbeddedReadStore({ file, leanCollections: ['listings'] });
      opened.push(store);
      return store;
    };
    const declared = async <Store extends ReadStore>(store: Store) => {
      await store.ensureIndexes('listings', [{ keys: [['name', 1]] }, { keys: [['price', 1]] }]);
      await store.write(
        [listing(1, 'Marina', 300), listing(2, 'Harbour', 100), listing(3, 'Marina Bay', 200)].map((doc) => put('listings', doc)),
      );
      return store;
    };

    it('when a lean collection is searched on declared fields, then pages, totals and text match, with whole documents', async () => {
      const store = await declared(openLean());

      const found = await store.find('listings', { filter: { price: { $gte: 150 } }, text: 'marina', sort: [['price', -1]], limit: 1 });

      expect(found).toEqual({ items: [listing(1, 'Marina', 300)], total: 2 });
      expect(await store.findOne('listings', { name: 'Harbour' })).toEqual(listing(2, 'Harbour', 100));
      expect(await store.getMany('listings', [3, 9, 2])).toEqual([listing(3, 'Marina Bay', 200), listing(2, 'Harbour', 100)]);
      expect(await store.explain({ method: 'find', collection: 'listings', options: { sort: [['price', -1]] } })).toEqual({
        source: 'ordering',
        ordering: 'price_-1__id_1',
      });
    });

    it('when a document is read again, then the same frozen object is handed out until the document changes', async () => {
      const store = await declared(openLean());
      const first = (await store.find('listings', { sort: [['name', 1]] })).items[1]!;

      expect(await store.get('listings', 1)).toBe(first);
      expect(await store.findOne('listings', { price: 300 })).toBe(first);
      expect(Object.isFrozen(first) && Object.isFrozen(first.gallery)).toBe(true);

      await store.write([put('listings', { ...listing(1, 'Marina', 300), price: 350 })]);

      const changed = await store.get('listings', 1);
      expect(changed).toEqual({ ...listing(1, 'Marina', 300), price: 350 });
      expect((await store.find('listings', { filter: { price: 350 } })).items).toEqual([changed]);
    });

    it('when a client then reads more documents once than are kept, then those read twice before keep their identity', async () => {
      const store = await declared(openLean());
      const [first] = (await store.find('listings', { sort: [['name', 1]], limit: 1 })).items;
      expect(await store.get('listings', first!._id)).toBe(first);
      const others = Array.from({ length: 10_500 }, (_, index) => listing(100 + index, `Other ${index}`, index));
      await store.write(others.map((doc) => put('listings', doc)));

      const pages: Doc[][] = [];
      for (let from = 0; from < others.length; from += 100) {
        pages.push(
          await store.getMany(
            'listings',
            others.slice(from, from + 100).map((doc) => doc._id),
          ),
        );
      }

      expect(pages.flat()).toEqual(others);
      expect(await store.get('listings', first!._id)).toBe(first);
      const readOnce = await store.get('listings', 100);
      expect(readOnce).toEqual(pages[0]![0]);
      expect(readOnce).not.toBe(pages[0]![0]);
    });

    it('when a query reads a field no index declares, then it answers from the whole documents, and explain says so', async () => {
      const store = await declared(openLean());
      const options = { filter: { description: 'Harbour described at length' } };

      expect((await store.find('listings', options)).items).toEqual([listing(2, 'Harbour', 100)]);
      expect(await store.findOne('listings', { 'gallery.url': '/3.jpg' })).toEqual(listing(3, 'Marina Bay', 200));
      expect(await store.explain({ method: 'find', collection: 'listings', options })).toEqual({
        source: 'whole documents (description not held)',
        ordering: null,
      });
    });

    it('when an index is declared after the mirror loaded, then searches on its field use the mirror', async () => {
      const store = await declared(openLean());
      await store.find('listings', { sort: [['name', 1]] });
      const options = { filter: { description: 'Harbour described at length' } };

      await store.ensureIndexes('listings', [{ keys: [['description', 1]] }]);

      expect((await store.find('listings', options)).items).toEqual([listing(2, 'Harbour', 100)]);
      expect((await store.explain({ method: 'find', collection: 'listings', options })).source).not.toMatch(/whole documents/);
    });

    it('when another instance changes and deletes documents, then the lean mirror answers with the new whole documents', async () => {
      const file = aDatabaseFile();
      const projector = createEmbeddedReadStore({ file });
      opened.push(projector);
      await declared(projector);
      const api = openLean(file);
      expect((await api.find('listings', { sort: [['price', 1]] })).items.map((doc) => doc._id)).toEqual([2, 3, 1]);

      await projector.write([
        put('listings', { ...listing(2, 'Harbour', 100), price: 900 }),
        { op: 'delete', collection: 'listings', id: 3 },
      ]);

      expect((await api.find('listings', { sort: [['price', 1]] })).items).toEqual([
        listing(1, 'Marina', 300),
        { ...listing(2, 'Harbour', 100), price: 900 },
      ]);
      expect(await api.get('listings', 3)).toBeNull();
    });

    it('when a unique index is declared over the lean mirror, then duplicates are still refused', async () => {
      const store = await declared(openLean());
      await store.find('listings', { sort: [['name', 1]] });
      const unique = [{ keys: [['description', 1]] as Array<[string, 1]>, unique: true }];
      await store.write([put('listings', listing(4, 'Marina', 50))]);

      await expect(store.ensureIndexes('listings', unique)).rejects.toThrow(/Duplicate key/);
      await store.write([{ op: 'delete', collection: 'listings', id: 4 }]);
      await store.ensureIndexes('listings', unique);

      await expect(store.write([put('listings', listing(5, 'Marina', 1))])).rejects.toThrow(/Duplicate key/);
      expect((await store.find('listings', { filter: { description: 'Marina described at length' } })).items).toEqual([
        listing(1, 'Marina', 300),
      ]);
    });
  });

  describe('returned documents', () => {
    it('when a caller tries to change a returned document, then it throws and the store is unchanged', async () => {
      const store = open();
      await store.write([put('projects', { _id: 1, name: 'a', tags: ['x'] })]);
      const doc = (await store.get('projects', 1))!;

      expect(() => {
        doc.name = 'b';
      }).toThrow(TypeError);
      expect(() => (doc.tags as string[]).push('y')).toThrow(TypeError);
      expect(await store.get('projects', 1)).toEqual({ _id: 1, name: 'a', tags: ['x'] });
    });
  });

  it('when the store is closed, then ping answers false and queries fail', async () => {
    const store = createEmbeddedReadStore();
    await store.close();

    expect(await store.ping()).toBe(false);
    await expect(store.find('projects')).rejects.toThrow(/closed/);
  });
});
