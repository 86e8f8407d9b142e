import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { allProjections } from '../../projections/index.js';
import { checkpointNameOf } from '../../src/projectionEngine/projection.js';
import { rebuildProjections } from '../../src/projectionEngine/rebuild.js';
import { startProjector } from '../../src/projectionEngine/runtime.js';
import { FreshGenerationDocuments, HeldWrites, UnitOfWork } from '../../src/projectionEngine/unitOfWork.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore, WriteOp } from '../../src/readStore/readStore.js';
import { appendEvents, catalogueHistory } from '../support/catalogueEvents.js';
import { readModelOf, silentLogger } from '../support/projectionHarness.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function fileStore(): ReadStore {
  const dataDir = mkdtempSync(join(tmpdir(), 'held-writes-'));
  const readStore = createEmbeddedReadStore({ file: join(dataDir, 'readmodels.sqlite') });
  cleanups.push(
    async () => rmSync(dataDir, { recursive: true, force: true }),
    () => readStore.close(),
  );
  return readStore;
}

/** A read store whose generations' writes are counted by collection (the writes still happen). */
function countingWrites(readStore: ReadStore): { readStore: ReadStore; written: Map<string, number> } {
  const written = new Map<string, number>();
  const count = (ops: WriteOp[]) => {
    for (const op of ops) written.set(op.collection, (written.get(op.collection) ?? 0) + 1);
  };
  return {
    written,
    readStore: {
      ...readStore,
      async beginGeneration(collections) {
        const generation = await readStore.beginGeneration(collections);
        return { ...generation, write: (ops, checkpoints) => (count(ops), generation.write(ops, checkpoints)) };
      },
    },
  };
}

const put = (collection: string, _id: number, fields: Record<string, unknown> = {}): WriteOp => ({
  op: 'put',
  collection,
  doc: { _id, ...fields },
});

describe('writes a rebuild holds back', () => {
  it('when a rebuild holds few documents and releases them page after page, then its documents and checkpoints equal incremental projection', async () => {
    const eventStore = createSqliteEventStore({ file: ':memory:' });
    const incremental = createEmbeddedReadStore();
    cleanups.push(
      () => eventStore.close(),
      () => incremental.close(),
    );
    const head = await appendEvents(eventStore, catalogueHistory({ projects: 40, seed: 23 }));
    const projector = await startProjector({
      eventStore,
      readStore: incremental,
      projections: allProjections,
      logger: silentLogger(),
      batchSize: 7,
    });
    await projector.waitForPosition(head, 20_000);
    await projector.stop();

    for (const maxHeldDocuments of [0, 3, 40]) {
      const rebuilt = fileStore();
      await rebuildProjections({ eventStore, readStore: rebuilt, projections: allProjections, batchSize: 50, maxHeldDocuments });
      // As text, so that the order of keys counts too.
      expect(JSON.stringify(await readModelOf(rebuilt, allProjections)), `holding ${maxHeldDocuments}`).toBe(
        JSON.stringify(await readModelOf(incremental, allProjections)),
      );
      for (const projection of allProjections) expect(await rebuilt.getCheckpoint(checkpointNameOf(projection))).toBe(head);
    }
  });

  /** Documents written per collection by a rebuild of 20 projects' history in pages of 10 events, holding up to the bound given. */
  async function writesOfRebuild(): Promise<(maxHeldDocuments: number) => Promise<Map<string, number>>> {
    const eventStore = createSqliteEventStore({ file: ':memory:' });
    cleanups.push(() => eventStore.close());
    await appendEvents(eventStore, catalogueHistory({ projects: 20, seed: 31 }));
    return async (maxHeldDocuments) => {
      const { readStore, written } = countingWrites(fileStore());
      await rebuildProjections({ eventStore, readStore, projections: allProjections, batchSize: 10, maxHeldDocuments });
      return written;
    };
  }

  it('when a project is edited on many pages, then its resources document is written once instead of once per page', async () => {
    const writes = await writesOfRebuild();

    const unheld = await writes(0);
    const held = await writes(5_000);

    expect(unheld.get('project_resources')).toBeGreaterThan(20);
    expect(held.get('project_resources')).toBe(20);
    // A change feed entry is written once anyway: it is not held.
    expect(held.get('project_changes')).toBe(unheld.get('project_changes'));
  });

  it('when held documents are found by a field, then the unit of work answers them as the store would hold them', async () => {
    const readStore = createEmbeddedReadStore();
    await readStore.write([put('clients', 1, { plan_id: 7 }), put('clients', 2, { plan_id: 7 })]);
    const held = new HeldWrites(new FreshGenerationDocuments(), () => true, 100);
    expect(
      held.hold([put('clients', 1, { plan_id: 8 }), put('clients', 3, { plan_id: 7 }), { op: 'delete', collection: 'clients', id: 2 }]),
    ).toEqual([]);

    const unitOfWork = new UnitOfWork(readStore, held);
    expect(await unitOfWork.find('clients', { plan_id: 7 })).toEqual([{ _id: 3, plan_id: 7 }]);
    expect(await unitOfWork.get('clients', 2)).toBeNull();
    expect(await readStore.get('clients', 1)).toEqual({ _id: 1, plan_id: 7 });
  });

  it('when a document of a collection with a unique index keeps its unique fields, then it is held; when it changes one or is deleted, then it is written and its held version dropped', () => {
    const held = new HeldWrites(new FreshGenerationDocuments(), () => true, 100, new Map([['projects', ['slug']]]));
    const created = [put('projects', 1, { slug: 'a', v: 1 }), put('projects', 2, { slug: 'b', v: 1 })];
    expect(created.filter((op) => held.mayHold(op))).toEqual([]);
    expect(held.hold(created)).toEqual([]);

    const edited = [put('projects', 1, { slug: 'a', v: 2 }), put('projects', 2, { slug: 'b', v: 2 })];
    expect(edited.filter((op) => held.mayHold(op))).toEqual(edited);
    held.hold(edited);
    expect(held.lookup('projects', 1)).toEqual({ _id: 1, slug: 'a', v: 2 });

    const renamed = put('projects', 1, { slug: 'c', v: 3 });
    const deleted: WriteOp = { op: 'delete', collection: 'projects', id: 2 };
    expect(held.mayHold(renamed)).toBe(false);
    expect(held.mayHold(deleted)).toBe(false);
    held.hold([renamed, deleted]);
    expect(held.release()).toEqual([]);
    // The slug the store now holds is the renamed one.
    expect(held.mayHold(put('projects', 1, { slug: 'c', v: 4 }))).toBe(true);
    expect(held.mayHold(put('projects', 1, { slug: 'a', v: 4 }))).toBe(false);
  });

  it('when projects are edited on many pages, then their documents are written fewer times than once per page', async () => {
    const writes = await writesOfRebuild();

    const unheld = (await writes(0)).get('projects')!;
    const held = (await writes(5_000)).get('projects')!;

    // Written directly still: a project's creation, its new slugs (traded within pages here, so written
    // again as the halves of those pages), and the writes of pages that failed.
    expect(held).toBeLessThan(unheld);
  });

  it('when more documents are held than the bound, then those changed least recently are released, and the rest at the end', () => {
    const held = new HeldWrites(new FreshGenerationDocuments(), (collection) => collection !== 'feed', 10);
    const ids = (ops: WriteOp[]) => ops.map((op) => (op.op === 'put' ? op.doc._id : op.id));

    expect(held.hold([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((id) => put('projects', id)))).toEqual([]);
    expect(held.hold([put('projects', 1, { v: 2 }), put('feed', 1)])).toEqual([]);
    expect(held.lookup('projects', 1)).toEqual({ _id: 1, v: 2 });
    // One past the bound: down to nine tenths of it, those changed least recently first.
    expect(ids(held.hold([put('projects', 11)]))).toEqual([2, 3]);
    expect(ids(held.release())).toEqual([4, 5, 6, 7, 8, 9, 10, 1, 11]);
  });
});
