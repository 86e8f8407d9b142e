import { assertNever } from '../src/domain/decider.js';
import type { ImageRef } from '../src/catalogue/imageRef.js';
import type { CommunityEvent } from '../src/catalogue/community.js';
import { apiLocation, searchText, type ApiLocation } from './shared/apiShape.js';
import {
  alreadyApplied,
  everyEventType,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type Recorded,
} from '../src/projectionEngine/projection.js';

export const COMMUNITIES = 'communities';

export interface CommunityDoc extends PositionedDoc {
  _id: number;
  id: number;
  state_id: number;
  name: string;
  slug: string;
  description: string;
  /** The stored picture; the query side turns it into image addresses. */
  banner: ImageRef | null;
  location: ApiLocation;
  published: boolean;
  created_at: string;
  updated_at: string;
  _search: string;
}

function nextCommunity(current: CommunityDoc | null, event: Recorded<CommunityEvent>): CommunityDoc | null {
  const position = positionNumber(event);
  switch (event.type) {
    case 'CommunityCreated': {
      const { community_id, state_id, name, slug, description, banner, location, at } = event.data;
      return {
        _id: community_id,
        id: community_id,
        state_id,
        name,
        slug,
        description,
        banner,
        location: apiLocation(location),
        published: false,
        created_at: at,
        updated_at: at,
        _search: searchText(name, slug),
        _position: position,
      };
    }
    case 'CommunityRevised': {
      if (!current) return null;
      const { location, ...changes } = event.data.changes;
      const revised = { ...current, ...changes, ...(location === undefined ? {} : { location: apiLocation(location) }) };
      return { ...revised, updated_at: event.data.at, _search: searchText(revised.name, revised.slug), _position: position };
    }
    case 'CommunityPublished':
      return current && { ...current, published: true, updated_at: event.data.at, _position: position };
    case 'CommunityUnpublished':
      return current && { ...current, published: false, updated_at: event.data.at, _position: position };
    default:
      return assertNever(event);
  }
}

/** GET /communities and /communities/{id-or-slug}; catalogue restrictions select communities by state. */
export const communitiesProjection: Projection<CommunityEvent> = {
  name: 'communities',
  version: 2,
  collections: [COMMUNITIES],
  indexes: {
    [COMMUNITIES]: [
      { keys: [['slug', 1]], unique: true },
      { keys: [['state_id', 1]] },
      { keys: [['published', 1]] },
      { keys: [['updated_at', 1]] },
      { keys: [['name', 1]] },
    ],
  },
  handles: everyEventType<CommunityEvent>({
    CommunityCreated: true,
    CommunityRevised: true,
    CommunityPublished: true,
    CommunityUnpublished: true,
  }),
  async apply(event, ctx) {
    const current = await ctx.get<CommunityDoc>(COMMUNITIES, event.data.community_id);
    if (alreadyApplied(current, event)) return;
    const next = nextCommunity(current, event);
    if (next) ctx.put(COMMUNITIES, next);
  },
};
