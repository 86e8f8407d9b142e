import type { AccessContext } from '../src/access/accessContext.js';
import type { Filter, ReadStore } from '../src/readStore/readStore.js';
import { COMMUNITIES, type CommunityDoc } from '../projections/communities.js';

/**
 * What part of the catalogue a client sees (Authentication rule 8). A project, community or sub-community
 * outside it, and a state not assigned, is unavailable: 404 on its own endpoints, left out of lists without
 * counting in their totals, omitted from batches, related projects and the change feed.
 */
export interface CatalogueScope {
  /** null = every state. */
  stateIds: ReadonlySet<number> | null;
  /** null = every community. A project is in scope when its community is. */
  communityIds: ReadonlySet<number> | null;
}

const WHOLE_CATALOGUE: CatalogueScope = { stateIds: null, communityIds: null };

/**
 * A state without communities grants every community it has now, so the set is computed per request from
 * the communities read model (a community moved to another state moves in or out of scope with it).
 */
export async function catalogueScopeOf(readStore: ReadStore, access: AccessContext): Promise<CatalogueScope> {
  const restriction = access.restriction;
  if (restriction === null) return WHOLE_CATALOGUE;
  const stateIds = new Set(restriction.states.map((state) => state.state_id));
  const wholeStates = restriction.states.filter((state) => state.community_ids.length === 0).map((state) => state.state_id);
  const communityIds = new Set<number>();
  if (wholeStates.length > 0) {
    const { items } = await readStore.find<CommunityDoc>(COMMUNITIES, { filter: { state_id: { $in: wholeStates } } });
    for (const community of items) communityIds.add(community.id);
  }
  // A listed community counts only while it is still in the state it was granted with.
  const listed = restriction.states.flatMap((state) => state.community_ids.map((communityId) => ({ communityId, stateId: state.state_id })));
  if (listed.length > 0) {
    const current = new Map(
      (await readStore.getMany<CommunityDoc>(COMMUNITIES, listed.map((entry) => entry.communityId))).map((community) => [community.id, community]),
    );
    for (const { communityId, stateId } of listed) if (current.get(communityId)?.state_id === stateId) communityIds.add(communityId);
  }
  return { stateIds, communityIds };
}

export const stateInScope = (scope: CatalogueScope, stateId: number | null): boolean =>
  scope.stateIds === null || (stateId !== null && scope.stateIds.has(stateId));

export const communityInScope = (scope: CatalogueScope, communityId: number | null): boolean =>
  scope.communityIds === null || (communityId !== null && scope.communityIds.has(communityId));

export const projectInScope = (scope: CatalogueScope, project: { community_id: number }): boolean => communityInScope(scope, project.community_id);

/**
 * Narrows a read-store filter on `field` (a community id) to the scope; null when nothing can match (the
 * filter asks for a community outside it).
 */
export function withinCommunities(scope: CatalogueScope, filter: Filter, field: string): Filter | null {
  if (scope.communityIds === null) return filter;
  const asked = filter[field];
  if (typeof asked === 'number') return scope.communityIds.has(asked) ? filter : null;
  return { ...filter, [field]: { $in: [...scope.communityIds] } };
}
