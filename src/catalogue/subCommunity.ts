import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';

/** A sub-community has no state of its own: its state is its community's. */
export interface SubCommunityFields {
  community_id: number;
  name: string;
  slug: string;
  description: string;
}

export type SubCommunityEvent =
  | DomainEvent<'SubCommunityCreated', SubCommunityFields & { sub_community_id: number; at: string }>
  | DomainEvent<'SubCommunityRevised', { sub_community_id: number; changes: Partial<SubCommunityFields>; at: string }>
  | DomainEvent<'SubCommunityPublished', { sub_community_id: number; at: string }>
  | DomainEvent<'SubCommunityUnpublished', { sub_community_id: number; at: string }>;

/** The folded SubCommunity; the aggregate's state is null before SubCommunityCreated. */
export type SubCommunity = SubCommunityFields & { published: boolean };

export const subCommunityStream = (id: number): string => `subCommunity-${id}`;

export function evolveSubCommunity(subCommunity: SubCommunity | null, event: SubCommunityEvent): SubCommunity | null {
  switch (event.type) {
    case 'SubCommunityCreated': {
      const { community_id, name, slug, description } = event.data;
      return { community_id, name, slug, description, published: false };
    }
    case 'SubCommunityRevised':
      return subCommunity && { ...subCommunity, ...event.data.changes };
    case 'SubCommunityPublished':
      return subCommunity && { ...subCommunity, published: true };
    case 'SubCommunityUnpublished':
      return subCommunity && { ...subCommunity, published: false };
    default:
      return assertNever(event);
  }
}

export const subCommunityAggregate: Aggregate<SubCommunity | null, SubCommunityEvent> = {
  category: 'subCommunity',
  streamName: subCommunityStream,
  initialState: () => null,
  evolve: evolveSubCommunity,
  slug: { resourceType: 'subCommunity', of: (subCommunity) => subCommunity?.slug },
};
