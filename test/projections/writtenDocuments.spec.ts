import { describe, expect, it } from 'vitest';
import { adminCatalogueProjection } from '../../projections/adminCatalogue.js';
import { changeFeedProjection } from '../../projections/changeFeed.js';
import { mediaAddressesProjection } from '../../projections/mediaAddresses.js';
import type { Projection } from '../../src/projectionEngine/projection.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { Doc, ReadStore } from '../../src/readStore/readStore.js';
import { agentProfileHistory } from '../support/agentProfileEvents.js';
import { catalogueHistory } from '../support/catalogueEvents.js';
import { projectInBatches, recorded } from '../support/projectionHarness.js';

const history = await recorded([...catalogueHistory({ projects: 16, seed: 11 }), ...agentProfileHistory()]);

/** The store, keeping every document handed to a write beside its JSON at that moment. */
function snapshottingWrites(readStore: ReadStore): { readStore: ReadStore; handed: Array<{ doc: Doc; json: string }> } {
  const handed: Array<{ doc: Doc; json: string }> = [];
  return {
    handed,
    readStore: {
      ...readStore,
      async write(ops, checkpoints) {
        for (const op of ops) if (op.op === 'put') handed.push({ doc: op.doc, json: JSON.stringify(op.doc) });
        return readStore.write(ops, checkpoints);
      },
    },
  };
}

// These projections change their own copy of a document in place across the events of a batch: a copy
// handed to a write must stay as written, since the store and the next batches may still hold it.
describe.each(
  [adminCatalogueProjection, changeFeedProjection, mediaAddressesProjection].map(
    (projection) => [projection.name, projection as Projection] as const,
  ),
)('projection %s', (_name, projection) => {
  it.each([1, 4, 25])(
    'when the history is projected in batches of %i, then no document handed to a write changes afterwards',
    async (batchSize) => {
      const { readStore, handed } = snapshottingWrites(createEmbeddedReadStore());
      await projectInBatches(readStore, projection, history, batchSize);

      expect(handed.length).toBeGreaterThan(0);
      expect(handed.filter(({ doc, json }) => JSON.stringify(doc) !== json).map(({ doc }) => doc._id)).toEqual([]);
    },
  );
});
