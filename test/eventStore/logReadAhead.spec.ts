import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { LogPage, RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore, selectPageOfTypes, type SqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { recordedFields } from '../support/projectionHarness.js';

const tempDir = mkdtempSync(join(tmpdir(), 'log-read-ahead-'));
afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

const opened: SqliteEventStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** Positions 1 to 12; the log ends with four events of type X. */
const LOG_TYPES = ['A', 'X', 'B', 'X', 'X', 'A', 'B', 'X', 'A', 'X', 'X', 'X'];

async function aLog(file: string): Promise<SqliteEventStore> {
  const store = createSqliteEventStore({ file });
  opened.push(store);
  for (const [index, type] of LOG_TYPES.entries()) {
    await store.appendToStream(`${type}-${index % 3}`, [{ type, data: { index, text: 'Dubaï – é 😀' }, metadata: { index } }], {
      expectedRevision: 'any',
    });
  }
  return store;
}

/** Each page as positions: those of its events, how far it read, and how many events of the log it covers. */
async function pagesOf(pages: AsyncGenerator<LogPage>): Promise<Array<{ events: bigint[]; position: bigint; covered: number }>> {
  const seen = [];
  for await (const { events, position, covered } of pages) seen.push({ events: events.map((event) => event.position), position, covered });
  return seen;
}

const places = [
  { where: 'in memory (read on this thread)', file: () => ':memory:' },
  { where: 'in a database file (read by the reader thread)', file: () => join(tempDir, `${randomUUID()}.sqlite`) },
];

for (const { where, file } of places) {
  describe(`reading the log ahead, ${where}`, () => {
    it('when types are given, then the pages hold only their events, in log order, as many as asked until the head, each read up to its last event or the head', async () => {
      const store = await aLog(file());

      const pages = await pagesOf(store.readAllAhead({ pageSize: 2, types: new Set(['A', 'B']) }));

      expect(pages).toEqual([
        { events: [1n, 3n], position: 3n, covered: 3 },
        { events: [6n, 7n], position: 7n, covered: 4 },
        { events: [9n], position: 12n, covered: 5 },
        { events: [], position: 12n, covered: 0 },
      ]);
    });

    it('when types are given, then their events are those readAll gives, field by field', async () => {
      const store = await aLog(file());

      const pages = await pagesOf(store.readAllAhead({ after: 1n, pageSize: 2, types: ['B', 'X'] }));
      const events: RecordedEvent[] = [];
      for await (const page of store.readAllAhead({ after: 1n, pageSize: 2, types: ['B', 'X'] })) events.push(...page.events);

      expect(pages.map(({ position, covered }) => [position, covered])).toEqual([
        [3n, 2],
        [5n, 2],
        [8n, 3],
        [11n, 3],
        [12n, 1],
        [12n, 0],
      ]);
      const all = await store.readAll({ after: 1n, maxCount: 100 });
      expect(events.map(recordedFields)).toEqual(all.filter((event) => event.type !== 'A').map(recordedFields));
    });

    it('when the set of types is empty, then the pages hold no events and read up to the head', async () => {
      const store = await aLog(file());

      const pages = await pagesOf(store.readAllAhead({ after: 4n, pageSize: 2, types: [] }));

      expect(pages).toEqual([
        { events: [], position: 12n, covered: 8 },
        { events: [], position: 12n, covered: 0 },
      ]);
    });

    it('when some types are unknown to the log, then only the known ones are read, and none when all are unknown', async () => {
      const store = await aLog(file());

      const someKnown = await pagesOf(store.readAllAhead({ pageSize: 5, types: ['A', 'Nope'] }));
      const noneKnown = await pagesOf(store.readAllAhead({ pageSize: 5, types: ['Nope'] }));

      expect(someKnown).toEqual([
        { events: [1n, 6n, 9n], position: 12n, covered: 12 },
        { events: [], position: 12n, covered: 0 },
      ]);
      expect(noneKnown).toEqual([
        { events: [], position: 12n, covered: 12 },
        { events: [], position: 12n, covered: 0 },
      ]);
    });

    it('when no types are given, then every event is read, each page up to its last event', async () => {
      const store = await aLog(file());

      const pages = await pagesOf(store.readAllAhead({ after: 5n, pageSize: 4 }));

      expect(pages).toEqual([
        { events: [6n, 7n, 8n, 9n], position: 9n, covered: 4 },
        { events: [10n, 11n, 12n], position: 12n, covered: 3 },
        { events: [], position: 12n, covered: 0 },
      ]);
    });
  });
}

describe('the read-ahead page of some types', () => {
  it('when SQLite plans it, then it walks the rowids from the page start up to the head, with no sort', async () => {
    const file = join(tempDir, `${randomUUID()}.sqlite`);
    await (await aLog(file)).close();
    const db = new Database(file, { readonly: true });

    const plan = db
      .prepare<[number, number, string, string, number], { detail: string }>(`EXPLAIN QUERY PLAN ${selectPageOfTypes(2)}`)
      .all(0, 12, 'A', 'B', 2)
      .map((step) => step.detail);
    db.close();

    expect(plan[0]).toBe('SEARCH events USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)');
    expect(plan.filter((detail) => /ORDER BY|TEMP B-TREE|INDEX sqlite_autoindex/.test(detail))).toEqual([]);
  });
});
