import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';
import type { Entitlement, Scope } from './accessContext.js';

export interface ClientFields {
  name: string;
  plan_id: number;
  /** When set, these replace the plan's scopes for this client; null = the plan's. */
  scopes: Scope[] | null;
  /** When set, these replace the plan's entitlements for this client; null = the plan's. */
  entitlements: Entitlement[] | null;
}

export type ClientEvent =
  | DomainEvent<'ClientRegistered', ClientFields & { client_id: number; at: string }>
  | DomainEvent<'ClientRevised', { client_id: number; changes: Partial<ClientFields>; at: string }>;

/**
 * An API consumer (an agency, a portal). The aggregate's state is null before ClientRegistered. Every
 * client is active: suspension and the other account statuses of the spec come with subscriptions.
 */
export type Client = ClientFields & { status: 'active' };

export const clientStream = (id: number): string => `client-${id}`;

export function evolveClient(client: Client | null, event: ClientEvent): Client | null {
  switch (event.type) {
    case 'ClientRegistered': {
      const { name, plan_id, scopes, entitlements } = event.data;
      return { name, plan_id, scopes, entitlements, status: 'active' };
    }
    case 'ClientRevised':
      return client && { ...client, ...event.data.changes };
    default:
      return assertNever(event);
  }
}

export const clientAggregate: Aggregate<Client | null, ClientEvent> = {
  category: 'client',
  streamName: clientStream,
  initialState: () => null,
  evolve: evolveClient,
};
