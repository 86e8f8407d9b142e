import { describe, expect, it } from 'vitest';
import {
  ADMIN_API_KEYS,
  ADMIN_CLIENTS,
  ADMIN_PLAN_CHANGES,
  ADMIN_PLANS,
  ADMIN_SUBSCRIPTIONS,
  adminAccessProjection,
} from '../../projections/adminAccess.js';
import { apiKeyAggregate } from '../../src/access/apiKey.js';
import { clientAggregate } from '../../src/access/client.js';
import { planAggregate } from '../../src/access/plan.js';
import { planChangeRequestAggregate } from '../../src/access/planChangeRequest.js';
import { subscriptionAggregate } from '../../src/access/subscription.js';
import type { Aggregate } from '../../src/domain/decider.js';
import type { DomainEvent } from '../../src/eventStore/eventStore.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { Doc, ReadStore } from '../../src/readStore/readStore.js';
import { catalogueHistory, keyHashOf } from '../support/catalogueEvents.js';
import { planChangeHistory } from '../support/planChangeEvents.js';
import { projectInBatches, readModelOf, recorded } from '../support/projectionHarness.js';

const history = await recorded([...catalogueHistory({ projects: 9, seed: 5 }), ...planChangeHistory()]);

async function projected(): Promise<ReadStore> {
  const readStore = createEmbeddedReadStore();
  await projectInBatches(readStore, adminAccessProjection, history, 6);
  return readStore;
}

/** Each stream of an aggregate's category folded as the write side folds it, by id. */
function writeSide(aggregate: Aggregate<object | null, DomainEvent>) {
  const folded = new Map<number, { state: object | null; revision: number }>();
  for (const event of history) {
    if (!event.streamName.startsWith(`${aggregate.category}-`)) continue;
    const id = Number(event.streamName.slice(aggregate.category.length + 1));
    folded.set(id, { state: aggregate.evolve(folded.get(id)?.state ?? aggregate.initialState(), event), revision: event.revision });
  }
  return [...folded].map(([id, { state, revision }]) => ({ id, revision, state })).sort((a, b) => a.id - b.id);
}

const withoutBookkeeping = ({ _id, id, revision, created_at, updated_at, _search, _position, ...state }: Doc) => ({ id, revision, state });

const asFolded = (aggregate: unknown) => aggregate as Aggregate<object | null, DomainEvent>;

describe('admin access read model', () => {
  it.each([
    ['plans', ADMIN_PLANS, planAggregate],
    ['clients', ADMIN_CLIENTS, clientAggregate],
    ['subscriptions', ADMIN_SUBSCRIPTIONS, subscriptionAggregate],
    ['plan change requests', ADMIN_PLAN_CHANGES, planChangeRequestAggregate],
  ] as const)(
    'when the history is projected, then every one of the %s is its stream folded by the write side, with the stream revision',
    async (_label, collection, aggregate) => {
      const readStore = await projected();
      const expected = writeSide(asFolded(aggregate));
      expect(expected.length).toBeGreaterThan(0);
      const { items } = await readStore.find(collection, { sort: [['_id', 1]] });
      expect(items.map(withoutBookkeeping)).toEqual(expected);
    },
  );

  it('when the history is projected, then every API key is its folded stream without its hash, which the read model never holds', async () => {
    const readStore = await projected();
    const expected = writeSide(asFolded(apiKeyAggregate)).map(({ state, ...record }) => {
      const { key_hash: _hash, ...metadata } = state as { key_hash: string };
      return { ...record, state: metadata };
    });
    const { items } = await readStore.find(ADMIN_API_KEYS, { sort: [['_id', 1]] });
    expect(items.map(withoutBookkeeping)).toEqual(expected);
    const stored = JSON.stringify(await readModelOf(readStore, [adminAccessProjection]));
    for (const { id } of expected) expect(stored).not.toContain(keyHashOf(id));
  });

  it("when a record is edited, then created_at stays at its first event's time and updated_at is its latest event's", async () => {
    const readStore = await projected();
    const effective = await readStore.get(ADMIN_PLAN_CHANGES, 1);
    const requested = history.find((event) => event.type === 'PlanChangeRequested')!;
    const tookEffect = history.find((event) => event.type === 'PlanChangeTookEffect')!;
    expect(effective).toMatchObject({
      status: 'effective',
      revision: 3,
      created_at: (requested.data as { at: string }).at,
      updated_at: (tookEffect.data as { at: string }).at,
      _search: 'request 1',
    });
  });

  it('when every event is applied twice, then the read model is the same as applying it once', async () => {
    const once = await projected();
    const twice = createEmbeddedReadStore();
    await projectInBatches(
      twice,
      adminAccessProjection,
      history.flatMap((event) => [event, event]),
      11,
    );
    await projectInBatches(twice, adminAccessProjection, history, 4);
    expect(await readModelOf(twice, [adminAccessProjection])).toEqual(await readModelOf(once, [adminAccessProjection]));
  });
});
