import { describe, expect, it } from 'vitest';
import { allProjections } from '../../projections/index.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { agentProfileHistory } from '../support/agentProfileEvents.js';
import { catalogueHistory } from '../support/catalogueEvents.js';
import { currencyRateHistory } from '../support/currencyRateEvents.js';
import { editorHistory } from '../support/editorEvents.js';
import { planChangeHistory } from '../support/planChangeEvents.js';
import { projectInBatches, readModelOf, recorded } from '../support/projectionHarness.js';
import { webhookHistory } from '../support/webhookEvents.js';

const history = await recorded([
  ...catalogueHistory({ projects: 24, seed: 7 }),
  ...agentProfileHistory(),
  ...webhookHistory(),
  ...currencyRateHistory(),
  ...planChangeHistory(),
  ...editorHistory(),
]);

describe.each(allProjections.map((projection) => [projection.name, projection] as const))('projection %s', (_name, projection) => {
  it('when the test history is built, then it holds every event type the projection handles', () => {
    const types = new Set(history.map((event) => event.type));
    expect(projection.handles.filter((type) => !types.has(type))).toEqual([]);
  });

  it('when the same events are applied twice, then the read model is the same as applying them once', async () => {
    const once = createEmbeddedReadStore();
    await projectInBatches(once, projection, history, 25);

    // Each batch applied again after it was stored (a write whose checkpoint was lost), then the whole
    // log applied a second time over the finished model.
    const twice = createEmbeddedReadStore();
    for (let start = 0; start < history.length; start += 25) {
      const batch = history.slice(start, start + 25);
      await projectInBatches(twice, projection, batch, 25);
      await projectInBatches(twice, projection, batch, 25);
    }
    await projectInBatches(twice, projection, history, 60);

    const model = await readModelOf(once, [projection]);
    expect(Object.values(model).some((docs) => docs.length > 0)).toBe(true);
    expect(await readModelOf(twice, [projection])).toEqual(model);
  });

  it('when every event is applied twice in a row inside one batch, then the read model is the same as applying it once', async () => {
    const once = createEmbeddedReadStore();
    await projectInBatches(once, projection, history, 40);
    const doubled = createEmbeddedReadStore();
    await projectInBatches(
      doubled,
      projection,
      history.flatMap((event) => [event, event]),
      80,
    );
    expect(await readModelOf(doubled, [projection])).toEqual(await readModelOf(once, [projection]));
  });
});
