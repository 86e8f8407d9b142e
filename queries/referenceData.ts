import { z } from 'zod';
import { projectNatures, projectStatuses } from '../src/catalogue/project.js';
import { unitTypeKinds } from '../src/catalogue/unitType.js';
import { NotFound } from '../src/domain/errors.js';
import type { Filter, ReadStore } from '../src/readStore/readStore.js';
import { CATALOG_METADATA, CATALOG_METADATA_ID, type CatalogMetadataDoc } from '../projections/catalogMetadata.js';
import { COMMUNITIES, type CommunityDoc } from '../projections/communities.js';
import { DEVELOPERS, type DeveloperDoc } from '../projections/developers.js';
import { STATES, type StateDoc } from '../projections/states.js';
import { SUB_COMMUNITIES, type SubCommunityDoc } from '../projections/subCommunities.js';
import {
  DEFAULT_PER_PAGE,
  findPublished,
  getPublished,
  idOrSlugSchema,
  pageParameter,
  pagination,
  paginationSchema,
  perPageParameter,
  qParameter,
  sortParameter,
  sortSpec,
  updatedSinceSchema,
} from './queryParameters.js';
import { catalogueScopeOf, communityInScope, developerInScope, stateInScope, subCommunityInScope, withinIds } from './catalogueScope.js';
import type { QueryRoute } from './queryRoute.js';
import {
  communityRepresentation,
  communitySchema,
  developerRepresentation,
  developerSchema,
  referencesById,
  stateRepresentation,
  stateSchema,
  subCommunityRepresentation,
  subCommunitySchema,
} from './representations.js';

const DEFAULT_SORT = 'name';
const SORT_FIELDS = ['name', 'updated_at'] as const;

const listQueryFields = {
  q: qParameter,
  updated_since: updatedSinceSchema.meta({ description: 'Only records updated after this moment.' }).optional(),
  sort: sortParameter(SORT_FIELDS, DEFAULT_SORT),
  page: pageParameter,
  per_page: perPageParameter,
};

const stateFilter = idOrSlugSchema.meta({ description: 'Only those in this state (numeric id or slug).' }).optional();
const communityFilter = idOrSlugSchema.meta({ description: 'Only those in this community (numeric id or slug).' }).optional();

type ListQuery = { q?: string; updated_since?: string; sort?: string; page?: number; per_page?: number };

/**
 * A page of published records. A state or community filter that names nothing published matches nothing
 * (an empty page, not an error).
 */
async function listPublished<T extends { id: number }>(
  readStore: ReadStore,
  collection: string,
  query: ListQuery,
  extra: Filter | null,
): Promise<{ items: T[]; pagination: ReturnType<typeof pagination> }> {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? DEFAULT_PER_PAGE;
  if (extra === null) return { items: [], pagination: pagination(page, perPage, 0) };
  const filter: Filter = { published: true, ...extra };
  if (query.updated_since !== undefined) filter.updated_at = { $gt: query.updated_since };
  const found = await readStore.find<T & { _id: number }>(collection, {
    filter,
    ...(query.q ? { text: query.q } : {}),
    sort: sortSpec(query.sort ?? DEFAULT_SORT),
    skip: (page - 1) * perPage,
    limit: perPage,
  });
  return { items: found.items, pagination: pagination(page, perPage, found.total) };
}

/** The id of a published record named by id or slug; null when there is none. */
async function publishedId(readStore: ReadStore, collection: string, idOrSlug: string): Promise<number | null> {
  return (await findPublished<{ _id: number; id: number; published: boolean }>(readStore, collection, idOrSlug))?.id ?? null;
}

const listMeta = z.object({ pagination: paginationSchema });
const noParams = z.object({}).strict();
const noQuery = z.object({}).strict();
const idOrSlugParams = z.object({ idOrSlug: idOrSlugSchema }).strict();

const developersQuery = z.object(listQueryFields).strict();

const listDevelopers: QueryRoute<typeof noParams, typeof developersQuery> = {
  path: '/developers',
  operationId: 'listDevelopers',
  summary: 'List developers',
  tag: 'Developers',
  scopes: ['developers:read'],
  entitlements: [],
  params: noParams,
  query: developersQuery,
  response: z.array(developerSchema),
  meta: listMeta,
  errors: [],
  async handle({ query, baseUrl, access }, { readStore }) {
    const scope = await catalogueScopeOf(readStore, access);
    const page = await listPublished<DeveloperDoc>(readStore, DEVELOPERS, query, withinIds(scope.developerIds, {}, 'id'));
    return { data: page.items.map((developer) => developerRepresentation(developer, baseUrl)), meta: { pagination: page.pagination } };
  },
};

const getDeveloper: QueryRoute<typeof idOrSlugParams, typeof noQuery> = {
  path: '/developers/:idOrSlug',
  operationId: 'getDeveloper',
  summary: 'Get one developer',
  tag: 'Developers',
  scopes: ['developers:read'],
  entitlements: [],
  params: idOrSlugParams,
  query: noQuery,
  response: developerSchema,
  errors: ['notFound'],
  async handle({ params, baseUrl, access }, { readStore }) {
    const developer = await getPublished<DeveloperDoc>(readStore, DEVELOPERS, params.idOrSlug);
    if (!developerInScope(await catalogueScopeOf(readStore, access), developer.id)) throw new NotFound();
    return { data: developerRepresentation(developer, baseUrl) };
  },
};

const communitiesQuery = z.object({ ...listQueryFields, state: stateFilter }).strict();

async function communitiesWithStates(readStore: ReadStore, communities: readonly CommunityDoc[], baseUrl: string) {
  const states = await referencesById<StateDoc>(
    readStore,
    STATES,
    communities.map((community) => community.state_id),
  );
  return communities.map((community) => communityRepresentation(community, states.get(community.state_id), baseUrl));
}

const listCommunities: QueryRoute<typeof noParams, typeof communitiesQuery> = {
  path: '/communities',
  operationId: 'listCommunities',
  summary: 'List communities',
  tag: 'Communities',
  scopes: ['communities:read'],
  entitlements: [],
  params: noParams,
  query: communitiesQuery,
  response: z.array(communitySchema),
  meta: listMeta,
  errors: [],
  async handle({ query, baseUrl, access }, { readStore }) {
    const stateId = query.state === undefined ? undefined : await publishedId(readStore, STATES, query.state);
    const byState: Filter | null = stateId === null ? null : stateId === undefined ? {} : { state_id: stateId };
    const scope = await catalogueScopeOf(readStore, access);
    const page = await listPublished<CommunityDoc>(readStore, COMMUNITIES, query, byState && withinIds(scope.communityIds, byState, 'id'));
    return { data: await communitiesWithStates(readStore, page.items, baseUrl), meta: { pagination: page.pagination } };
  },
};

const getCommunity: QueryRoute<typeof idOrSlugParams, typeof noQuery> = {
  path: '/communities/:idOrSlug',
  operationId: 'getCommunity',
  summary: 'Get one community',
  tag: 'Communities',
  scopes: ['communities:read'],
  entitlements: [],
  params: idOrSlugParams,
  query: noQuery,
  response: communitySchema,
  errors: ['notFound'],
  async handle({ params, baseUrl, access }, { readStore }) {
    const community = await getPublished<CommunityDoc>(readStore, COMMUNITIES, params.idOrSlug);
    if (!communityInScope(await catalogueScopeOf(readStore, access), community.id)) throw new NotFound();
    return { data: (await communitiesWithStates(readStore, [community], baseUrl))[0] };
  },
};

const getState: QueryRoute<typeof idOrSlugParams, typeof noQuery> = {
  path: '/states/:idOrSlug',
  operationId: 'getState',
  summary: 'Get one state',
  tag: 'States',
  scopes: ['states:read'],
  entitlements: [],
  params: idOrSlugParams,
  query: noQuery,
  response: stateSchema,
  errors: ['notFound'],
  async handle({ params, access }, { readStore }) {
    const state = await getPublished<StateDoc>(readStore, STATES, params.idOrSlug);
    if (!stateInScope(await catalogueScopeOf(readStore, access), state.id)) throw new NotFound();
    return { data: stateRepresentation(state) };
  },
};

const subCommunitiesQuery = z.object({ ...listQueryFields, state: stateFilter, community: communityFilter }).strict();

async function subCommunitiesWithReferences(readStore: ReadStore, subCommunities: readonly SubCommunityDoc[]) {
  const [communities, states] = await Promise.all([
    referencesById<CommunityDoc>(
      readStore,
      COMMUNITIES,
      subCommunities.map((subCommunity) => subCommunity.community_id),
    ),
    referencesById<StateDoc>(
      readStore,
      STATES,
      subCommunities.flatMap((subCommunity) => (subCommunity.state_id === null ? [] : [subCommunity.state_id])),
    ),
  ]);
  return subCommunities.map((subCommunity) =>
    subCommunityRepresentation(
      subCommunity,
      communities.get(subCommunity.community_id),
      subCommunity.state_id === null ? undefined : states.get(subCommunity.state_id),
    ),
  );
}

const listSubCommunities: QueryRoute<typeof noParams, typeof subCommunitiesQuery> = {
  path: '/sub-communities',
  operationId: 'listSubCommunities',
  summary: 'List sub-communities',
  tag: 'Sub-communities',
  scopes: ['subcommunities:read'],
  entitlements: [],
  params: noParams,
  query: subCommunitiesQuery,
  response: z.array(subCommunitySchema),
  meta: listMeta,
  errors: [],
  async handle({ query, access }, { readStore }) {
    const [stateId, communityId] = await Promise.all([
      query.state === undefined ? undefined : publishedId(readStore, STATES, query.state),
      query.community === undefined ? undefined : publishedId(readStore, COMMUNITIES, query.community),
    ]);
    const extra: Filter | null =
      stateId === null || communityId === null
        ? null
        : { ...(stateId === undefined ? {} : { state_id: stateId }), ...(communityId === undefined ? {} : { community_id: communityId }) };
    const scope = await catalogueScopeOf(readStore, access);
    const inCommunities = extra && withinIds(scope.communityIds, extra, 'community_id');
    const page = await listPublished<SubCommunityDoc>(
      readStore,
      SUB_COMMUNITIES,
      query,
      inCommunities && withinIds(scope.subCommunityIds, inCommunities, 'id'),
    );
    return { data: await subCommunitiesWithReferences(readStore, page.items), meta: { pagination: page.pagination } };
  },
};

const getSubCommunity: QueryRoute<typeof idOrSlugParams, typeof noQuery> = {
  path: '/sub-communities/:idOrSlug',
  operationId: 'getSubCommunity',
  summary: 'Get one sub-community',
  tag: 'Sub-communities',
  scopes: ['subcommunities:read'],
  entitlements: [],
  params: idOrSlugParams,
  query: noQuery,
  response: subCommunitySchema,
  errors: ['notFound'],
  async handle({ params, access }, { readStore }) {
    const subCommunity = await getPublished<SubCommunityDoc>(readStore, SUB_COMMUNITIES, params.idOrSlug);
    if (!subCommunityInScope(await catalogueScopeOf(readStore, access), subCommunity)) throw new NotFound();
    return { data: (await subCommunitiesWithReferences(readStore, [subCommunity]))[0] };
  },
};

const catalogMetadataSchema = z
  .object({
    unit_types: z.array(
      z.object({
        id: z.string().meta({ description: "As listed in a project's bedrooms." }),
        name: z.string(),
        kind: z.enum(unitTypeKinds),
        bedrooms: z.number().int().nullable(),
        sort_order: z.number().int(),
      }),
    ),
    natures: z.array(z.enum(projectNatures)).meta({ description: 'Values of the projects `nature` filter.' }),
    statuses: z.array(z.enum(projectStatuses)),
    updated_at: z.iso.datetime().nullable().meta({ description: 'Last change of the unit types; null while there are none.' }),
  })
  .meta({ id: 'CatalogMetadata' });

const getCatalogMetadata: QueryRoute<typeof noParams, typeof noQuery> = {
  path: '/catalog/metadata',
  operationId: 'getCatalogMetadata',
  summary: 'Catalogue metadata: unit types, natures and statuses',
  tag: 'Catalog',
  scopes: ['catalog:read'],
  entitlements: [],
  params: noParams,
  query: noQuery,
  response: catalogMetadataSchema,
  errors: [],
  async handle(_input, { readStore }) {
    // The document appears with the first unit type; before that the lists are simply empty.
    const metadata = await readStore.get<CatalogMetadataDoc>(CATALOG_METADATA, CATALOG_METADATA_ID);
    return {
      data: {
        unit_types: metadata?.unit_types ?? [],
        natures: [...projectNatures],
        statuses: [...projectStatuses],
        updated_at: metadata?.updated_at ?? null,
      },
    };
  },
};

export const referenceDataQueryRoutes = [
  listDevelopers,
  getDeveloper,
  listCommunities,
  getCommunity,
  getState,
  listSubCommunities,
  getSubCommunity,
  getCatalogMetadata,
] as QueryRoute[];
