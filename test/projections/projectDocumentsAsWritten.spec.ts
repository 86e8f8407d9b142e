import { describe, expect, it } from 'vitest';
import { projectResourcesProjection } from '../../projections/projectResources.js';
import { projectsProjection } from '../../projections/projects.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import type { Projection } from '../../src/projectionEngine/projection.js';
import { rebuildProjections } from '../../src/projectionEngine/rebuild.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { Doc, ReadStore } from '../../src/readStore/readStore.js';
import { appendEvents, catalogueHistory } from '../support/catalogueEvents.js';
import { projectInBatches, readModelOf, readWholeLog } from '../support/projectionHarness.js';

const events = catalogueHistory({ projects: 16, seed: 7 });

interface Handed {
  doc: Doc;
  json: string;
}

const changedSinceHanded = (handed: readonly Handed[]) =>
  handed.filter(({ doc, json }) => JSON.stringify(doc) !== json).map(({ doc }) => doc._id);

function snapshotting(handed: Handed[], write: ReadStore['write']): ReadStore['write'] {
  return async (ops, checkpoints) => {
    for (const op of ops) if (op.op === 'put') handed.push({ doc: op.doc, json: JSON.stringify(op.doc) });
    return write(ops, checkpoints);
  };
}

/** The store, keeping every document handed to a write (its generations' too) beside its JSON at that moment. */
function snapshottingWrites(readStore: ReadStore): { readStore: ReadStore; handed: Handed[] } {
  const handed: Handed[] = [];
  return {
    handed,
    readStore: {
      ...readStore,
      write: snapshotting(handed, readStore.write.bind(readStore)),
      async beginGeneration(collections) {
        const generation = await readStore.beginGeneration(collections);
        return { ...generation, write: snapshotting(handed, generation.write.bind(generation)) };
      },
    },
  };
}

async function eventStoreWith(): Promise<EventStore> {
  const eventStore = createSqliteEventStore({ file: ':memory:' });
  await appendEvents(eventStore, events);
  return eventStore;
}

// These projections change their page's own copy of a document in place: a document handed to a write must
// stay as written, since the store, the held writes of a rebuild and the next batches may still hold it.
describe.each([projectsProjection, projectResourcesProjection].map((projection) => [projection.name, projection as Projection] as const))(
  'projection %s',
  (_name, projection) => {
    it.each([1, 4, 25])(
      'when the history is projected in batches of %i, then no document handed to a write changes afterwards',
      async (batchSize) => {
        const eventStore = await eventStoreWith();
        const history = await readWholeLog(eventStore);
        await eventStore.close();
        const { readStore, handed } = snapshottingWrites(createEmbeddedReadStore());
        await projectInBatches(readStore, projection, history, batchSize);

        expect(handed.length).toBeGreaterThan(0);
        expect(changedSinceHanded(handed)).toEqual([]);
      },
    );

    it.each([4, 25])(
      'when a rebuild holds back documents over pages of %i, then no document handed to a write changes and the model equals a live projection',
      async (batchSize) => {
        const eventStore = await eventStoreWith();
        const { readStore, handed } = snapshottingWrites(createEmbeddedReadStore());
        await rebuildProjections({ eventStore, readStore, projections: [projection], batchSize, maxHeldDocuments: 5 });
        const live = createEmbeddedReadStore();
        await projectInBatches(live, projection, await readWholeLog(eventStore), 10);
        await eventStore.close();

        expect(handed.length).toBeGreaterThan(0);
        expect(changedSinceHanded(handed)).toEqual([]);
        expect(await readModelOf(readStore, [projection])).toEqual(await readModelOf(live, [projection]));
      },
    );
  },
);
