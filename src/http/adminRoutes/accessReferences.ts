import { PROJECTS, type ProjectDoc } from '../../../projections/projects.js';
import { noAccessFacts, readAccessFacts, type AccessFacts, type AccessLookup, type AccessReferences } from '../../access/accessReferences.js';
import { clientAggregate, type Client } from '../../access/client.js';
import { planAggregate, type Plan } from '../../access/plan.js';
import { eventStoreCatalogueReferences } from '../../catalogue/catalogueReferences.js';
import { loadAggregate, type LoadedAggregate } from '../../domain/commandHandler.js';
import type { FactsReader } from '../../domain/commandSlice.js';
import { NotFound, ValidationFailed } from '../../domain/errors.js';
import { slugHolder } from '../../domain/slugReservations.js';
import type { EventStore } from '../../eventStore/eventStore.js';
import type { ReadStore } from '../../readStore/readStore.js';

/** The plan a body names by key; 422 naming body.plan unless it exists and takes clients. */
export async function activePlanId(eventStore: EventStore, key: string): Promise<number> {
  const id = await slugHolder(eventStore, planAggregate.slug!.resourceType, key);
  const plan = id === null ? null : (await loadAggregate(eventStore, planAggregate, id))?.state;
  if (id === null || !plan) throw new ValidationFailed({ 'body.plan': `no plan has the key '${key}'` });
  if (!plan.active) throw new ValidationFailed({ 'body.plan': `plan '${key}' is not active` });
  return id;
}

/** The client a path names, or the one 404 (for reads; commands learn it through AccessReferences). */
export async function existingClient(eventStore: EventStore, clientId: number): Promise<LoadedAggregate<Client>> {
  const loaded = await loadAggregate(eventStore, clientAggregate, clientId);
  if (!loaded?.state) throw new NotFound(`Client ${clientId} does not exist.`);
  return { state: loaded.state, revision: loaded.revision };
}

const planReference = (id: number, plan: Plan | null | undefined) => (plan ? { id, key: plan.key, active: plan.active } : null);

/** AccessReferences over the event store, and the projects read model for the published catalogue. */
export function accessReferences(stores: { eventStore: EventStore; readStore: ReadStore }): AccessReferences {
  const { eventStore, readStore } = stores;
  return {
    async planByKey(key) {
      const id = await slugHolder(eventStore, planAggregate.slug!.resourceType, key);
      return id === null ? null : planReference(id, (await loadAggregate(eventStore, planAggregate, id))?.state);
    },
    async planById(id) {
      return planReference(id, (await loadAggregate(eventStore, planAggregate, id))?.state);
    },
    async client(id) {
      const loaded = await loadAggregate(eventStore, clientAggregate, id);
      return loaded?.state ? { revision: loaded.revision, plan_id: loaded.state.plan_id } : null;
    },
    async publishedProjectIds() {
      const { items } = await readStore.find<ProjectDoc>(PROJECTS, { filter: { published: true }, sort: [['_id', 1]] });
      return items.map((project) => project.id);
    },
    catalogue: eventStoreCatalogueReferences(eventStore),
  };
}

/** What the access commands' handlers read their slices' references with. */
export function accessFactsReader(stores: { eventStore: EventStore; readStore: ReadStore }): FactsReader<AccessLookup, AccessFacts> {
  const port = accessReferences(stores);
  return { read: (lookup) => readAccessFacts(port, lookup), none: noAccessFacts };
}
