import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';

/** What an editor may change on a state after creating it. */
export interface StateRegionFields {
  name: string;
  slug: string;
  /** ISO 3166-1 alpha-2. */
  country_code: string;
}

export type StateEvent =
  | DomainEvent<'StateCreated', StateRegionFields & { state_id: number; at: string }>
  | DomainEvent<'StateRevised', { state_id: number; changes: Partial<StateRegionFields>; at: string }>
  | DomainEvent<'StatePublished', { state_id: number; at: string }>
  | DomainEvent<'StateUnpublished', { state_id: number; at: string }>;

/**
 * A state of the catalogue (a region or emirate such as Dubai). Named StateRegion because "state" also
 * means an aggregate's folded state. The aggregate's state is null before StateCreated.
 */
export type StateRegion = StateRegionFields & { published: boolean };

export const stateStream = (id: number): string => `state-${id}`;

export function evolveState(state: StateRegion | null, event: StateEvent): StateRegion | null {
  switch (event.type) {
    case 'StateCreated': {
      const { name, slug, country_code } = event.data;
      return { name, slug, country_code, published: false };
    }
    case 'StateRevised':
      return state && { ...state, ...event.data.changes };
    case 'StatePublished':
      return state && { ...state, published: true };
    case 'StateUnpublished':
      return state && { ...state, published: false };
    default:
      return assertNever(event);
  }
}

export const stateAggregate: Aggregate<StateRegion | null, StateEvent> = {
  category: 'state',
  streamName: stateStream,
  initialState: () => null,
  evolve: evolveState,
  slug: { resourceType: 'state', of: (state) => state?.slug },
};
