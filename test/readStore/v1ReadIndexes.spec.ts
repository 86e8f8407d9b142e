import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRoutes } from '../../queries/index.js';
import { v1CollectionsReadById, v1CollectionsSearchedByIndexedFields, v1ReadOrderings } from '../../queries/v1ReadOrderings.js';
import { indexName } from '../../src/readStore/readStore.js';
import { createEmbeddedReadStore, type EmbeddedReadPlan, type EmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { describeRead, servedByIndex } from './indexUse.js';
import { declarerOf, readIndexTable, TABLE_END, TABLE_START } from './readIndexTable.js';
import { sweepV1Reads, type ReadSweep } from './v1ReadSweep.js';

/*
 * Issue 19: every read of the /v1 surface is index-backed. The sweep requests every read shape over HTTP
 * against the embedded stores with the demo catalogue and records the reads each makes; the embedded store
 * explains each; docs/read-indexes.md holds the table this makes, so that it cannot drift from the code.
 * test/readStore/mongoReadIndexes.spec.ts replays the same sweep on MongoDB with explain().
 */

const TABLE_FILE = fileURLToPath(new URL('../../docs/read-indexes.md', import.meta.url));

let store: EmbeddedReadStore;
let sweep: ReadSweep;
let plans: EmbeddedReadPlan[][];

beforeAll(async () => {
  store = createEmbeddedReadStore({ leanCollections: v1CollectionsSearchedByIndexedFields });
  sweep = await sweepV1Reads(store);
  plans = [];
  for (const read of sweep.reads) plans.push(await Promise.all(read.calls.map((call) => store.explain(call))));
}, 180_000);

afterAll(async () => {
  await store?.close();
});

/** Express-style `/projects/:project/related` as a pattern of the swept request paths. */
const routePattern = (path: string) => new RegExp(`^GET /v1${path.replace(/:[^/]+/g, '[^/?]+')}(\\?| \\(|$)`);

describe('the /v1 read sweep', () => {
  it('when every read shape is requested, then each is answered 200, and every authenticated one reads the read models', () => {
    expect(sweep.reads.filter((read) => read.status !== 200).map((read) => `${read.status} ${read.shape}`)).toEqual([]);
    expect(sweep.reads.filter((read) => read.calls.length === 0).map((read) => read.shape)).toEqual([]);
  });

  it('when the routes of /v1 are listed, then the sweep requests each with every query parameter it takes', () => {
    const missing: string[] = [];
    for (const route of queryRoutes) {
      const swept = sweep.reads.filter((read) => routePattern(route.path).test(read.shape)).map((read) => read.shape);
      if (swept.length === 0) missing.push(route.path);
      const parameters = Object.keys((route.query as unknown as { shape?: Record<string, unknown> }).shape ?? {});
      for (const parameter of parameters) {
        if (!swept.some((shape) => new RegExp(`[?&]${parameter}=`).test(shape))) missing.push(`${route.path}?${parameter}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('every /v1 read is index-backed', () => {
  it('when the /v1 surface reads, then each find and findOne has a declared index its filter bounds or that orders it', () => {
    const unserved = sweep.reads.flatMap((read) =>
      read.calls
        .filter((call) => !servedByIndex(call, sweep.declared.get(call.collection) ?? []))
        .map((call) => `${read.shape}: ${describeRead(call)}`),
    );
    expect(unserved).toEqual([]);
  });

  it('when the /v1 surface reads a collection, then a projection (or the one writer of it) declares its indexes', () => {
    const collections = new Set(sweep.reads.flatMap((read) => read.calls.map((call) => call.collection)));
    expect([...collections].filter((collection) => declarerOf(collection) === undefined)).toEqual([]);
  });

  it('when the embedded store explains the reads, then each starts from _id, an _id range, a declared lookup or the ordering of its sort', () => {
    const declaredPaths = (collection: string) =>
      new Set((sweep.declared.get(collection) ?? []).flatMap((spec) => spec.keys.map(([path]) => path)));
    const unexplained = sweep.reads.flatMap((read, readIndex) =>
      read.calls.flatMap((call, callIndex) => {
        const { source, ordering } = plans[readIndex]![callIndex]!;
        const lookup = source.startsWith('lookup ') ? source.slice('lookup '.length) : undefined;
        const fine =
          source === '_id'
            ? call.method === 'get' || call.method === 'getMany'
            : source === '_id range'
              ? call.method === 'readSequence'
              : lookup
                ? lookup === '_id' || declaredPaths(call.collection).has(lookup)
                : ordering !== null;
        return fine ? [] : [`${read.shape}: ${describeRead(call)} -> ${source}`];
      }),
    );
    expect(unexplained).toEqual([]);
  });

  it('when the embedded store walks collections in sort orders for the /v1 reads, then those are the orderings the service builds before it listens', () => {
    const built = new Set(v1ReadOrderings.map(({ collection, sort }) => `${collection} ${indexName({ keys: sort })}`));
    const walked = new Set(
      sweep.reads.flatMap((read, readIndex) =>
        read.calls.flatMap((call, callIndex) => {
          const { ordering } = plans[readIndex]![callIndex]!;
          return ordering === null ? [] : [`${call.collection} ${ordering}`];
        }),
      ),
    );
    expect([...built].sort()).toEqual([...walked].sort());
  });

  it('when the /v1 surface reads a collection the service loads no mirror of, then it reads it only by id', () => {
    const searches = sweep.reads.flatMap((read) =>
      read.calls
        .filter((call) => v1CollectionsReadById.includes(call.collection) && (call.method === 'find' || call.method === 'findOne'))
        .map((call) => `${read.shape}: ${describeRead(call)}`),
    );
    expect(sweep.reads.some((read) => read.calls.some((call) => v1CollectionsReadById.includes(call.collection)))).toBe(true);
    expect(searches).toEqual([]);
  });

  it('when the /v1 surface searches a collection the service mirrors lean, then every field it reads is one the mirror holds', () => {
    const wholeDocumentReads = sweep.reads.flatMap((read, readIndex) =>
      read.calls.flatMap((call, callIndex) => {
        const { source } = plans[readIndex]![callIndex]!;
        return source.startsWith('whole documents') ? [`${read.shape}: ${describeRead(call)} -> ${source}`] : [];
      }),
    );
    const searched = (collection: string) =>
      sweep.reads.some((read) => read.calls.some((call) => call.collection === collection && call.method === 'find'));
    expect(v1CollectionsSearchedByIndexedFields.filter((collection) => !searched(collection))).toEqual([]);
    expect(wholeDocumentReads).toEqual([]);
  });

  it('when docs/read-indexes.md is compared with the sweep, then its table is the one the sweep makes', () => {
    const table = readIndexTable(sweep, plans);
    const document = readFileSync(TABLE_FILE, 'utf8');
    const start = document.indexOf(TABLE_START);
    const end = document.indexOf(TABLE_END);
    expect(start, `${TABLE_FILE} lacks the generated table's markers`).toBeGreaterThanOrEqual(0);
    const written = document.slice(start, end + TABLE_END.length);
    if (process.env.WRITE_READ_INDEXES === '1' && written !== table) writeFileSync(TABLE_FILE, document.replace(written, table));
    else expect(written, 'docs/read-indexes.md is stale: rerun this test with WRITE_READ_INDEXES=1').toBe(table);
  });
});
