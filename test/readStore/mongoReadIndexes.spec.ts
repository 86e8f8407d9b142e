import { MongoClient, type Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMongoReadStore, type MongoReadStore } from '../../src/readStore/mongoReadStore.js';
import { indexName } from '../../src/readStore/readStore.js';
import { describeRead, ID_INDEX_NAME } from './indexUse.js';
import { sweepV1Reads, type ReadSweep } from './v1ReadSweep.js';

/*
 * Issue 19 on MongoDB: the sweep of test/readStore/v1ReadIndexes.spec.ts, on a MongoDB read store whose
 * database starts empty, so that every index in it was created by a declaration (the projections', and the
 * usage ledger's and webhook worker's for their own collections). Each read the /v1 surface made is then
 * explained on the collections the adapter used: no winning plan may scan a collection, and every index a
 * plan uses is a declared one.
 */

const url = process.env.MONGODB_URL;

if (!url) {
  console.warn('MongoDB read index suite skipped: set MONGODB_URL (e.g. mongodb://127.0.0.1:27017) to explain the /v1 reads on a server.');
}

/** One stage of a winning plan: its name and, for an index scan, the index. */
interface PlanStage {
  stage: string;
  indexName?: string;
}

/**
 * The stages of every winning plan in an explain answer, whatever its server version nests them in (classic
 * `inputStage`s, `queryPlan` of the slot-based engine, `$cursor` stages of an aggregation, shards).
 */
function winningPlanStages(explained: unknown): PlanStage[] {
  const stages: PlanStage[] = [];
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) collect(item);
    else if (node !== null && typeof node === 'object') {
      const { stage, indexName: index } = node as { stage?: unknown; indexName?: unknown };
      if (typeof stage === 'string') stages.push({ stage, ...(typeof index === 'string' ? { indexName: index } : {}) });
      for (const child of Object.values(node)) collect(child);
    }
  };
  const find = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) find(item);
    else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (key === 'winningPlan') collect(child);
        else if (key !== 'rejectedPlans') find(child);
      }
    }
  };
  find(explained);
  return stages;
}

describe.skipIf(!url)('MongoDB: every /v1 read is index-backed', () => {
  // A database of its own per run, empty at the start and dropped afterwards.
  const dbName = `v1_read_indexes_${Date.now().toString(36)}`;
  let client: MongoClient;
  let store: MongoReadStore;
  let sweep: ReadSweep;
  let explained: Array<{ read: string; commands: Document[] }>;

  beforeAll(async () => {
    client = new MongoClient(url!);
    expect(await client.db(dbName).listCollections().toArray(), `database ${dbName} is not empty`).toEqual([]);
    store = createMongoReadStore({ url: url!, dbName });
    sweep = await sweepV1Reads(store);
    explained = [];
    for (const read of sweep.reads) {
      for (const call of read.calls) explained.push({ read: `${read.shape}: ${describeRead(call)}`, commands: await store.explain(call) });
    }
  }, 300_000);

  afterAll(async () => {
    await store?.close();
    try {
      await client?.db(dbName).dropDatabase();
    } finally {
      await client?.close();
    }
  });

  it('when every read shape is requested on MongoDB, then each is answered 200', () => {
    expect(sweep.reads.filter((read) => read.status !== 200).map((read) => `${read.status} ${read.shape}`)).toEqual([]);
  });

  it('when the reads of the /v1 sweep are explained, then every command has a winning plan and none scans a collection', () => {
    expect(explained.filter(({ commands }) => commands.length === 0).map(({ read }) => read)).toEqual([]);
    const scans = explained.flatMap(({ read, commands }) =>
      commands.flatMap((command, index) => {
        const stages = winningPlanStages(command);
        if (stages.length === 0) return [`${read} (command ${index + 1}): no winning plan in ${JSON.stringify(command)}`];
        return stages.some(({ stage }) => stage === 'COLLSCAN')
          ? [`${read} (command ${index + 1}): ${stages.map(({ stage }) => stage).join(' <- ')}`]
          : [];
      }),
    );
    expect(scans).toEqual([]);
  });

  it('when the reads of the /v1 sweep are explained, then every index their plans use is one the read models declared', () => {
    const declaredNames = new Set([ID_INDEX_NAME, ...[...sweep.declared.values()].flat().map(indexName)]);
    const undeclared = explained.flatMap(({ read, commands }) =>
      commands
        .flatMap(winningPlanStages)
        .flatMap(({ indexName: index }) => (index === undefined || declaredNames.has(index) ? [] : [`${read}: ${index}`])),
    );
    expect(undeclared).toEqual([]);
  });
});
