import type { AccessContext } from '../src/access/accessContext.js';
import type { Filter, ReadStore } from '../src/readStore/readStore.js';
import { COMMUNITIES, type CommunityDoc } from '../projections/communities.js';
import { PROJECTS, type ProjectDoc } from '../projections/projects.js';

/**
 * What part of the catalogue a client sees: its restriction (Authentication rule 8) and, in Evaluation Mode,
 * its frozen sample of projects with the developers, states, communities and sub-communities they name
 * (rule 9). Anything outside is unavailable: 404 on its own endpoints, left out of lists without counting in
 * their totals, omitted from batches, related projects and the change feed.
 */
export interface CatalogueScope {
  /** null = every state. */
  stateIds: ReadonlySet<number> | null;
  /** null = every community. */
  communityIds: ReadonlySet<number> | null;
  /** null = every project (no evaluation sample). */
  projectIds: ReadonlySet<number> | null;
  /** null = every developer. */
  developerIds: ReadonlySet<number> | null;
  /** null = every sub-community (otherwise also narrowed by communityIds). */
  subCommunityIds: ReadonlySet<number> | null;
  /**
   * The communities of the restriction alone (null = every community), which communityIds narrows further
   * in Evaluation Mode to those the sample's projects are in now: where a project of the client's could be seen.
   */
  restrictionCommunityIds: ReadonlySet<number> | null;
}

const WHOLE_CATALOGUE: CatalogueScope = {
  stateIds: null,
  communityIds: null,
  projectIds: null,
  developerIds: null,
  subCommunityIds: null,
  restrictionCommunityIds: null,
};

const intersect = (left: ReadonlySet<number> | null, right: ReadonlySet<number> | null): ReadonlySet<number> | null =>
  left === null ? right : right === null ? left : new Set([...left].filter((id) => right.has(id)));

/**
 * A state without communities grants every community it has now, so the set is computed per request from
 * the communities read model (a community moved to another state moves in or out of scope with it).
 */
/** Reads only the restriction and the evaluation sample, so a worker holding a client's access document can ask too. */
export type ScopedAccess = Pick<AccessContext, 'restriction' | 'evaluation'>;

export async function catalogueScopeOf(readStore: ReadStore, access: ScopedAccess): Promise<CatalogueScope> {
  const restricted = await restrictionScope(readStore, access);
  const sample = access.evaluation?.sample ?? null;
  if (sample === null) return restricted;
  // The sample is frozen; the projects' current references decide which related records come with it.
  const projects = await readStore.getMany<ProjectDoc>(PROJECTS, [...sample]);
  const named = (pick: (project: ProjectDoc) => number | null) =>
    new Set(projects.flatMap((project) => (pick(project) === null ? [] : [pick(project)!])));
  return {
    projectIds: sample,
    stateIds: intersect(
      restricted.stateIds,
      named((project) => project.state_id),
    ),
    communityIds: intersect(
      restricted.communityIds,
      named((project) => project.community_id),
    ),
    developerIds: named((project) => project.developer_id),
    subCommunityIds: named((project) => project.sub_community_id),
    restrictionCommunityIds: restricted.restrictionCommunityIds,
  };
}

async function restrictionScope(readStore: ReadStore, access: ScopedAccess): Promise<CatalogueScope> {
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
  const listed = restriction.states.flatMap((state) =>
    state.community_ids.map((communityId) => ({ communityId, stateId: state.state_id })),
  );
  if (listed.length > 0) {
    const current = new Map(
      (
        await readStore.getMany<CommunityDoc>(
          COMMUNITIES,
          listed.map((entry) => entry.communityId),
        )
      ).map((community) => [community.id, community]),
    );
    for (const { communityId, stateId } of listed) if (current.get(communityId)?.state_id === stateId) communityIds.add(communityId);
  }
  return { ...WHOLE_CATALOGUE, stateIds, communityIds, restrictionCommunityIds: communityIds };
}

export const stateInScope = (scope: CatalogueScope, stateId: number | null): boolean =>
  scope.stateIds === null || (stateId !== null && scope.stateIds.has(stateId));

export const communityInScope = (scope: CatalogueScope, communityId: number | null): boolean =>
  scope.communityIds === null || (communityId !== null && scope.communityIds.has(communityId));

export const projectInScope = (scope: CatalogueScope, project: { id: number; community_id: number }): boolean =>
  (scope.projectIds === null || scope.projectIds.has(project.id)) && communityInScope(scope, project.community_id);

/**
 * Whether the client would see the project while it is published in that community (which need not be the
 * one it is in now): the project is in the sample, if any, and the community in the restriction, if any.
 */
export const projectVisibleIn = (scope: CatalogueScope, projectId: number, communityId: number): boolean =>
  (scope.projectIds === null || scope.projectIds.has(projectId)) &&
  (scope.restrictionCommunityIds === null || scope.restrictionCommunityIds.has(communityId));

export const developerInScope = (scope: CatalogueScope, developerId: number): boolean =>
  scope.developerIds === null || scope.developerIds.has(developerId);

export const subCommunityInScope = (scope: CatalogueScope, subCommunity: { id: number; community_id: number }): boolean =>
  (scope.subCommunityIds === null || scope.subCommunityIds.has(subCommunity.id)) && communityInScope(scope, subCommunity.community_id);

/**
 * Narrows a read-store filter on `field` to `allowed` ids; null when nothing can match (the filter asks for
 * an id outside them, or for ids none of which is allowed).
 */
export function withinIds(allowed: ReadonlySet<number> | null, filter: Filter, field: string): Filter | null {
  if (allowed === null) return filter;
  const asked = filter[field];
  if (typeof asked === 'number') return allowed.has(asked) ? filter : null;
  if (asked !== null && typeof asked === 'object' && '$in' in asked && Array.isArray(asked.$in)) {
    return { ...filter, [field]: { $in: asked.$in.filter((id) => typeof id === 'number' && allowed.has(id)) } };
  }
  return { ...filter, [field]: { $in: [...allowed] } };
}

/** A project filter narrowed to the scope's projects and communities. */
export function withinProjectScope(scope: CatalogueScope, filter: Filter): Filter | null {
  const byCommunity = withinIds(scope.communityIds, filter, 'community_id');
  return byCommunity && withinIds(scope.projectIds, byCommunity, '_id');
}
