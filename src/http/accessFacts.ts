import { PROJECTS, type ProjectDoc } from '../../projections/projects.js';
import { noAccessFacts, readAccessFacts, type AccessFacts, type AccessLookup, type AccessReferences } from '../access/accessReferences.js';
import { clientAggregate } from '../access/client.js';
import { planAggregate, type Plan } from '../access/plan.js';
import { eventStoreCatalogueReferences } from '../catalogue/catalogueReferences.js';
import { loadAggregate } from '../domain/commandHandler.js';
import type { FactsReader } from '../domain/commandSlice.js';
import { slugHolder } from '../domain/slugReservations.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { ReadStore } from '../readStore/readStore.js';

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
      // Ids only: at 200,000 projects the whole documents would be read from the embedded store's table.
      const { items } = await readStore.find<ProjectDoc>(PROJECTS, { filter: { published: true }, sort: [['_id', 1]], fields: [] });
      return items.map((project) => project._id);
    },
    catalogue: eventStoreCatalogueReferences(eventStore),
  };
}

/** What the access commands are handled with, by the admin routes and the evaluation threshold alike. */
export function accessFactsReader(stores: { eventStore: EventStore; readStore: ReadStore }): FactsReader<AccessLookup, AccessFacts> {
  const port = accessReferences(stores);
  return { read: (lookup) => readAccessFacts(port, lookup), none: noAccessFacts };
}
