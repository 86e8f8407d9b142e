import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';
import type { ImageRef, Location } from './imageRef.js';

export interface CommunityFields {
  state_id: number;
  name: string;
  slug: string;
  description: string;
  banner: ImageRef | null;
  location: Location | null;
}

export type CommunityEvent =
  | DomainEvent<'CommunityCreated', CommunityFields & { community_id: number; at: string }>
  | DomainEvent<'CommunityRevised', { community_id: number; changes: Partial<CommunityFields>; at: string }>
  | DomainEvent<'CommunityPublished', { community_id: number; at: string }>
  | DomainEvent<'CommunityUnpublished', { community_id: number; at: string }>;

/** The folded Community; the aggregate's state is null before CommunityCreated. */
export type Community = CommunityFields & { published: boolean };

export const communityStream = (id: number): string => `community-${id}`;

export function evolveCommunity(community: Community | null, event: CommunityEvent): Community | null {
  switch (event.type) {
    case 'CommunityCreated': {
      const { state_id, name, slug, description, banner, location } = event.data;
      return { state_id, name, slug, description, banner, location, published: false };
    }
    case 'CommunityRevised':
      return community && { ...community, ...event.data.changes };
    case 'CommunityPublished':
      return community && { ...community, published: true };
    case 'CommunityUnpublished':
      return community && { ...community, published: false };
    default:
      return assertNever(event);
  }
}

export const communityAggregate: Aggregate<Community | null, CommunityEvent> = {
  category: 'community',
  streamName: communityStream,
  initialState: () => null,
  evolve: evolveCommunity,
  slug: { resourceType: 'community', of: (community) => community?.slug },
};
