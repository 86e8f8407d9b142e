import { assertNever } from '../src/domain/decider.js';
import type { ImageRef } from '../src/catalogue/imageRef.js';
import type { DeveloperEvent } from '../src/catalogue/developer.js';
import { searchText } from './shared/apiShape.js';
import {
  alreadyApplied,
  everyEventType,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type Recorded,
} from '../src/projectionEngine/projection.js';

export const DEVELOPERS = 'developers';

export interface DeveloperDoc extends PositionedDoc {
  _id: number;
  id: number;
  name: string;
  slug: string;
  description: string;
  website: string | null;
  /** The stored picture; the query side turns it into image addresses. */
  logo: ImageRef | null;
  established_year: number | null;
  published: boolean;
  created_at: string;
  updated_at: string;
  _search: string;
}

function nextDeveloper(current: DeveloperDoc | null, event: Recorded<DeveloperEvent>): DeveloperDoc | null {
  const position = positionNumber(event);
  switch (event.type) {
    case 'DeveloperCreated': {
      const { developer_id, name, slug, description, website, logo, established_year, at } = event.data;
      return {
        _id: developer_id,
        id: developer_id,
        name,
        slug,
        description,
        website,
        logo,
        established_year,
        published: false,
        created_at: at,
        updated_at: at,
        _search: searchText(name, slug),
        _position: position,
      };
    }
    case 'DeveloperRevised': {
      if (!current) return null;
      const revised = { ...current, ...event.data.changes };
      return { ...revised, updated_at: event.data.at, _search: searchText(revised.name, revised.slug), _position: position };
    }
    case 'DeveloperPublished':
      return current && { ...current, published: true, updated_at: event.data.at, _position: position };
    case 'DeveloperUnpublished':
      return current && { ...current, published: false, updated_at: event.data.at, _position: position };
    default:
      return assertNever(event);
  }
}

/** GET /developers and /developers/{id-or-slug}. */
export const developersProjection: Projection<DeveloperEvent> = {
  name: 'developers',
  version: 2,
  collections: [DEVELOPERS],
  indexes: {
    [DEVELOPERS]: [
      { keys: [['slug', 1]], unique: true },
      { keys: [['published', 1]] },
      { keys: [['updated_at', 1]] },
      { keys: [['name', 1]] },
    ],
  },
  handles: everyEventType<DeveloperEvent>({
    DeveloperCreated: true,
    DeveloperRevised: true,
    DeveloperPublished: true,
    DeveloperUnpublished: true,
  }),
  async apply(event, ctx) {
    const current = await ctx.get<DeveloperDoc>(DEVELOPERS, event.data.developer_id);
    if (alreadyApplied(current, event)) return;
    const next = nextDeveloper(current, event);
    if (next) ctx.put(DEVELOPERS, next);
  },
};
