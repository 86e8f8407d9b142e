import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';
import type { ImageRef } from './imageRef.js';

export interface DeveloperFields {
  name: string;
  slug: string;
  description: string;
  website: string | null;
  logo: ImageRef | null;
  established_year: number | null;
}

export type DeveloperEvent =
  | DomainEvent<'DeveloperCreated', DeveloperFields & { developer_id: number; at: string }>
  | DomainEvent<'DeveloperRevised', { developer_id: number; changes: Partial<DeveloperFields>; at: string }>
  | DomainEvent<'DeveloperPublished', { developer_id: number; at: string }>
  | DomainEvent<'DeveloperUnpublished', { developer_id: number; at: string }>;

/** The folded Developer; the aggregate's state is null before DeveloperCreated. */
export type Developer = DeveloperFields & { published: boolean };

export const developerStream = (id: number): string => `developer-${id}`;

export function evolveDeveloper(developer: Developer | null, event: DeveloperEvent): Developer | null {
  switch (event.type) {
    case 'DeveloperCreated': {
      const { name, slug, description, website, logo, established_year } = event.data;
      return { name, slug, description, website, logo, established_year, published: false };
    }
    case 'DeveloperRevised':
      return developer && { ...developer, ...event.data.changes };
    case 'DeveloperPublished':
      return developer && { ...developer, published: true };
    case 'DeveloperUnpublished':
      return developer && { ...developer, published: false };
    default:
      return assertNever(event);
  }
}

export const developerAggregate: Aggregate<Developer | null, DeveloperEvent> = {
  category: 'developer',
  streamName: developerStream,
  initialState: () => null,
  evolve: evolveDeveloper,
  slug: { resourceType: 'developer', of: (developer) => developer?.slug },
};
