import { describe, expect, it } from 'vitest';
import { WEBHOOKS, webhooksProjection } from '../../projections/webhooks.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { minute, type StreamEvent } from '../support/catalogueEvents.js';
import { projectInBatches, readModelOf, recorded } from '../support/projectionHarness.js';
import { FIRST_WEBHOOK as FIRST, SECOND_WEBHOOK as SECOND, sealedSecret, webhookHistory as history } from '../support/webhookEvents.js';

async function projected(batchSize: number, events: StreamEvent[] = history()) {
  const readStore = createEmbeddedReadStore();
  await projectInBatches(readStore, webhooksProjection, await recorded(events), batchSize);
  return readStore;
}

describe('webhooks read model', () => {
  it('when a webhook is created, revised, disabled, enabled, rotated and disabled again, then its document holds the plan’s shape', async () => {
    const readStore = await projected(3);
    expect(await readStore.get(WEBHOOKS, FIRST)).toEqual({
      _id: FIRST,
      id: FIRST,
      client_id: 1,
      name: 'CRM',
      url: `https://hooks.example.com/${FIRST}`,
      events: ['project.updated', 'developer.updated'],
      status: 'disabled',
      disabled_reason: 'admin',
      secrets: [
        { sealed: sealedSecret('B'), retire_at: null },
        { sealed: sealedSecret('A'), retire_at: minute(1445) },
      ],
      created_at: minute(0),
      updated_at: minute(6),
      deleted: false,
      revision: 5,
      _position: expect.any(Number),
    });
  });

  it('when a webhook is deleted, then its document stays, marked deleted, and the client count leaves it out', async () => {
    const readStore = await projected(2);
    expect(await readStore.get(WEBHOOKS, SECOND)).toMatchObject({ deleted: true, updated_at: minute(7), revision: 1 });
    expect((await readStore.find(WEBHOOKS, { filter: { client_id: 2, deleted: false } })).total).toBe(0);
    expect((await readStore.find(WEBHOOKS, { filter: { client_id: 1, deleted: false } })).total).toBe(1);
  });

  it('when the same events are applied twice, in one batch or again after it, then the read model is as after once', async () => {
    const events = await recorded(history());
    const once = createEmbeddedReadStore();
    await projectInBatches(once, webhooksProjection, events, 4);
    const model = await readModelOf(once, [webhooksProjection]);

    const again = createEmbeddedReadStore();
    await projectInBatches(again, webhooksProjection, events, 3);
    await projectInBatches(again, webhooksProjection, events, 5);
    const doubled = createEmbeddedReadStore();
    await projectInBatches(
      doubled,
      webhooksProjection,
      events.flatMap((event) => [event, event]),
      6,
    );
    expect(await readModelOf(again, [webhooksProjection])).toEqual(model);
    expect(await readModelOf(doubled, [webhooksProjection])).toEqual(model);
  });
});
