import { assertNever } from '../src/domain/decider.js';
import type { CommunityEvent } from '../src/catalogue/community.js';
import type { SubCommunityEvent } from '../src/catalogue/subCommunity.js';
import { searchText } from './shared/apiShape.js';
import {
  alreadyApplied,
  everyEventType,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type ProjectionContext,
  type Recorded,
} from '../src/projectionEngine/projection.js';

export const SUB_COMMUNITIES = 'sub_communities';
/** This projection's own record of each community's state: a sub-community's state is its community's. */
export const SUB_COMMUNITIES_COMMUNITY_STATES = 'sub_communities_community_states';

export interface SubCommunityDoc extends PositionedDoc {
  _id: number;
  id: number;
  community_id: number;
  /** The community's state; null only if the community was never seen (the write side prevents that). */
  state_id: number | null;
  name: string;
  slug: string;
  description: string;
  published: boolean;
  created_at: string;
  updated_at: string;
  _search: string;
}

interface CommunityStateDoc extends PositionedDoc {
  _id: number;
  state_id: number;
}

type SubCommunitiesEvent = SubCommunityEvent | Extract<CommunityEvent, { type: 'CommunityCreated' | 'CommunityRevised' }>;

async function stateOfCommunity(ctx: ProjectionContext, communityId: number): Promise<number | null> {
  return (await ctx.get<CommunityStateDoc>(SUB_COMMUNITIES_COMMUNITY_STATES, communityId))?.state_id ?? null;
}

async function applySubCommunityEvent(event: Recorded<SubCommunityEvent>, ctx: ProjectionContext): Promise<void> {
  const current = await ctx.get<SubCommunityDoc>(SUB_COMMUNITIES, event.data.sub_community_id);
  if (alreadyApplied(current, event)) return;
  const position = positionNumber(event);
  let next: SubCommunityDoc | null;
  switch (event.type) {
    case 'SubCommunityCreated': {
      const { sub_community_id, community_id, name, slug, description, at } = event.data;
      next = {
        _id: sub_community_id,
        id: sub_community_id,
        community_id,
        state_id: await stateOfCommunity(ctx, community_id),
        name,
        slug,
        description,
        published: false,
        created_at: at,
        updated_at: at,
        _search: searchText(name, slug),
        _position: position,
      };
      break;
    }
    case 'SubCommunityRevised': {
      if (!current) return;
      const revised = { ...current, ...event.data.changes };
      const { community_id } = event.data.changes;
      next = {
        ...revised,
        ...(community_id === undefined ? {} : { state_id: await stateOfCommunity(ctx, community_id) }),
        updated_at: event.data.at,
        _search: searchText(revised.name, revised.slug),
        _position: position,
      };
      break;
    }
    case 'SubCommunityPublished':
      next = current && { ...current, published: true, updated_at: event.data.at, _position: position };
      break;
    case 'SubCommunityUnpublished':
      next = current && { ...current, published: false, updated_at: event.data.at, _position: position };
      break;
    default:
      return assertNever(event);
  }
  if (next) ctx.put(SUB_COMMUNITIES, next);
}

async function applyCommunityEvent(
  event: Recorded<Extract<CommunityEvent, { type: 'CommunityCreated' | 'CommunityRevised' }>>,
  ctx: ProjectionContext,
): Promise<void> {
  const { community_id } = event.data;
  const stateId = event.type === 'CommunityCreated' ? event.data.state_id : event.data.changes.state_id;
  if (stateId === undefined) return;
  const position = positionNumber(event);
  const known = await ctx.get<CommunityStateDoc>(SUB_COMMUNITIES_COMMUNITY_STATES, community_id);
  if (!alreadyApplied(known, event)) {
    ctx.put(SUB_COMMUNITIES_COMMUNITY_STATES, { _id: community_id, state_id: stateId, _position: position });
  }
  if (event.type === 'CommunityCreated') return;
  // A community moved to another state takes its sub-communities along; each is checked on its own, since
  // a write interrupted half-way may have stored some of them already.
  for (const subCommunity of await ctx.find<SubCommunityDoc>(SUB_COMMUNITIES, { community_id })) {
    if (!alreadyApplied(subCommunity, event)) ctx.put(SUB_COMMUNITIES, { ...subCommunity, state_id: stateId, _position: position });
  }
}

/** GET /sub-communities (filters state and community) and /sub-communities/{id-or-slug}. */
export const subCommunitiesProjection: Projection<SubCommunitiesEvent> = {
  name: 'subCommunities',
  version: 2,
  collections: [SUB_COMMUNITIES, SUB_COMMUNITIES_COMMUNITY_STATES],
  indexes: {
    [SUB_COMMUNITIES]: [
      { keys: [['slug', 1]], unique: true },
      { keys: [['community_id', 1]] },
      { keys: [['state_id', 1]] },
      { keys: [['published', 1]] },
      { keys: [['updated_at', 1]] },
      { keys: [['name', 1]] },
    ],
  },
  handles: everyEventType<SubCommunitiesEvent>({
    SubCommunityCreated: true,
    SubCommunityRevised: true,
    SubCommunityPublished: true,
    SubCommunityUnpublished: true,
    CommunityCreated: true,
    CommunityRevised: true,
  }),
  async apply(event, ctx) {
    switch (event.type) {
      case 'CommunityCreated':
      case 'CommunityRevised':
        return applyCommunityEvent(event, ctx);
      case 'SubCommunityCreated':
      case 'SubCommunityRevised':
      case 'SubCommunityPublished':
      case 'SubCommunityUnpublished':
        return applySubCommunityEvent(event, ctx);
      default:
        return assertNever(event);
    }
  },
};
