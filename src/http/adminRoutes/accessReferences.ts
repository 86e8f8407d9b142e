import { clientAggregate, type Client } from '../../access/client.js';
import { planAggregate } from '../../access/plan.js';
import { loadAggregate, type LoadedAggregate } from '../../domain/commandHandler.js';
import { NotFound, ValidationFailed } from '../../domain/errors.js';
import { slugHolder } from '../../domain/slugReservations.js';
import type { EventStore } from '../../eventStore/eventStore.js';

/** The plan a body names by key; 422 naming body.plan unless it exists and takes clients. */
export async function activePlanId(eventStore: EventStore, key: string): Promise<number> {
  const id = await slugHolder(eventStore, planAggregate.slug!.resourceType, key);
  const plan = id === null ? null : (await loadAggregate(eventStore, planAggregate, id))?.state;
  if (id === null || !plan) throw new ValidationFailed({ 'body.plan': `no plan has the key '${key}'` });
  if (!plan.active) throw new ValidationFailed({ 'body.plan': `plan '${key}' is not active` });
  return id;
}

/** The client a path names, or the one 404. */
export async function existingClient(eventStore: EventStore, clientId: number): Promise<LoadedAggregate<Client>> {
  const loaded = await loadAggregate(eventStore, clientAggregate, clientId);
  if (!loaded?.state) throw new NotFound(`Client ${clientId} does not exist.`);
  return { state: loaded.state, revision: loaded.revision };
}
