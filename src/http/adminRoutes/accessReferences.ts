import { clientAggregate, type Client } from '../../access/client.js';
import { loadAggregate, type LoadedAggregate } from '../../domain/commandHandler.js';
import { NotFound } from '../../domain/errors.js';
import type { EventStore } from '../../eventStore/eventStore.js';

/** The client a path names, or the one 404 (for reads; commands learn it through AccessReferences). */
export async function existingClient(eventStore: EventStore, clientId: number): Promise<LoadedAggregate<Client>> {
  const loaded = await loadAggregate(eventStore, clientAggregate, clientId);
  if (!loaded?.state) throw new NotFound(`Client ${clientId} does not exist.`);
  return { state: loaded.state, revision: loaded.revision };
}
