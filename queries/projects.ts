import { z } from 'zod';
import type { ZodOpenApiOverrideMetaContext } from 'zod-openapi';
import { projectNatures } from '../src/catalogue/project.js';
import { NotFound } from '../src/domain/errors.js';
import type { Filter, ReadStore } from '../src/readStore/readStore.js';
import { COMMUNITIES } from '../projections/communities.js';
import { DEVELOPERS } from '../projections/developers.js';
import { PROJECTS, type ProjectDoc } from '../projections/projects.js';
import { STATES } from '../projections/states.js';
import {
  DEFAULT_PER_PAGE,
  findPublished,
  getPublished,
  idListParameter,
  idOrSlugSchema,
  MAX_IDS,
  pageParameter,
  pagination,
  paginationSchema,
  perPageParameter,
  qParameter,
  sortParameter,
  sortSpec,
  updatedSinceSchema,
} from './queryParameters.js';
import { catalogueScopeOf, projectInScope, withinProjectScope } from './catalogueScope.js';
import { listProjectChanges } from './projectChanges.js';
import type { QueryRoute } from './queryRoute.js';
import { projectDetailSchema, projectReferences, projectSummarySchema, serializedDetails, serializedSummaries } from './representations.js';

const DEFAULT_PROJECT_SORT = '-updated_at';
/** Rule 6: one quota unit per 10 requested ids of a detail batch, rounded up. */
const IDS_PER_DETAIL_UNIT = 10;

const price = (description: string) =>
  z
    .string()
    .regex(/^\d{1,15}(\.\d{1,2})?$/, 'must be a non-negative amount, e.g. 1500000 or 1500000.50')
    .transform(Number)
    .meta({
      description: `${description} At most 15 digits and 2 decimals.`,
      // The OpenAPI document describes the amount the text parses into.
      override: ({ jsonSchema }: ZodOpenApiOverrideMetaContext) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, { type: 'number', minimum: 0, exclusiveMaximum: 1e15 });
      },
    })
    .optional();

const referenceFilter = (what: string) =>
  idOrSlugSchema.meta({ description: `Only projects of this ${what} (numeric id or slug).` }).optional();

export const listProjectsQuery = z
  .object({
    q: qParameter,
    developer: referenceFilter('developer'),
    community: referenceFilter('community'),
    state: referenceFilter('state'),
    nature: z.enum(projectNatures, { error: `must be one of ${projectNatures.join(', ')}` }).optional(),
    min_price: price('Lowest starting_from, inclusive; not above max_price.'),
    max_price: price('Highest starting_from, inclusive.'),
    updated_since: updatedSinceSchema.meta({ description: 'Only projects whose own updated_at is later than this.' }).optional(),
    ids: idListParameter(
      MAX_IDS,
      `Comma-separated unique numeric project ids, at most ${MAX_IDS}. Without sort, results keep this order.`,
    ).optional(),
    view: z
      .enum(['summary', 'detail'], { error: 'must be summary or detail' })
      .meta({ description: 'detail needs explicit unique ids and costs one quota unit per 10 ids, rounded up.' })
      .optional(),
    sort: sortParameter(['updated_at', 'starting_from', 'name'], DEFAULT_PROJECT_SORT),
    page: pageParameter,
    per_page: perPageParameter.meta({
      description: 'Items per page, 1 to 100 (default 20; for view=detail, the number of ids). More is refused with 422.',
    }),
  })
  .strict()
  .superRefine((query, context) => {
    if (query.view === 'detail' && query.ids === undefined) {
      context.addIssue({ code: 'custom', path: ['ids'], message: 'is required with view=detail (explicit unique ids)' });
    }
    if (query.min_price !== undefined && query.max_price !== undefined && query.min_price > query.max_price) {
      context.addIssue({ code: 'custom', path: ['min_price'], message: 'must not exceed max_price' });
    }
  });

type ListProjectsQuery = z.infer<typeof listProjectsQuery>;

/** A developer/community/state filter by slug resolves to an id; an unknown or unpublished one matches nothing. */
async function referenceId(readStore: ReadStore, collection: string, idOrSlug: string | undefined): Promise<number | null | undefined> {
  if (idOrSlug === undefined) return undefined;
  if (/^\d+$/.test(idOrSlug)) return Number(idOrSlug);
  return (await findPublished<{ _id: number; id: number; published: boolean }>(readStore, collection, idOrSlug))?.id ?? null;
}

async function projectFilter(readStore: ReadStore, query: ListProjectsQuery): Promise<Filter | null> {
  const [developerId, communityId, stateId] = await Promise.all([
    referenceId(readStore, DEVELOPERS, query.developer),
    referenceId(readStore, COMMUNITIES, query.community),
    referenceId(readStore, STATES, query.state),
  ]);
  if (developerId === null || communityId === null || stateId === null) return null;
  const filter: Filter = { published: true };
  if (developerId !== undefined) filter.developer_id = developerId;
  if (communityId !== undefined) filter.community_id = communityId;
  if (stateId !== undefined) filter.state_id = stateId;
  if (query.nature !== undefined) filter.nature = query.nature;
  if (query.ids !== undefined) filter._id = { $in: query.ids };
  if (query.updated_since !== undefined) filter.updated_at = { $gt: query.updated_since };
  if (query.min_price !== undefined || query.max_price !== undefined) {
    filter.starting_from = {
      ...(query.min_price === undefined ? {} : { $gte: query.min_price }),
      ...(query.max_price === undefined ? {} : { $lte: query.max_price }),
    };
  }
  return filter;
}

/** Without `sort`, an ids batch keeps the order of its ids; every other list is newest edit first. */
async function findProjects(readStore: ReadStore, query: ListProjectsQuery, filter: Filter, skip: number, limit: number) {
  if (query.ids !== undefined && query.sort === undefined) {
    const { items } = await readStore.find<ProjectDoc>(PROJECTS, { filter, ...(query.q ? { text: query.q } : {}) });
    const order = new Map(query.ids.map((id, index) => [id, index]));
    const ordered = [...items].sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    return { items: ordered.slice(skip, skip + limit), total: ordered.length };
  }
  return readStore.find<ProjectDoc>(PROJECTS, {
    filter,
    ...(query.q ? { text: query.q } : {}),
    sort: sortSpec(query.sort ?? DEFAULT_PROJECT_SORT),
    skip,
    limit,
  });
}

const listProjects: QueryRoute<z.ZodObject, typeof listProjectsQuery> = {
  path: '/projects',
  operationId: 'listProjects',
  summary: 'List projects',
  description:
    'Published projects, filtered, sorted and paginated. `ids` fetches known projects in one call; with `view=detail` each item is the ' +
    'detail representation and the call costs one quota unit per 10 ids, rounded up (meta.quota_units, X-Quota-Units). Ids that are ' +
    'unknown, unpublished or inaccessible are omitted and do not count in the pagination totals. meta.representation says which ' +
    'representation the items have: project_summary or project_detail.',
  tag: 'Projects',
  scopes: ['projects:read'],
  entitlements: [],
  params: z.object({}).strict(),
  query: listProjectsQuery,
  response: z.array(z.union([projectDetailSchema, projectSummarySchema])),
  meta: z.object({
    pagination: paginationSchema,
    representation: z.enum(['project_summary', 'project_detail']),
    quota_units: z.number().int().optional(),
  }),
  representations: {
    project_summary: { response: z.array(projectSummarySchema), meta: z.object({ pagination: paginationSchema }) },
    project_detail: {
      response: z.array(projectDetailSchema),
      meta: z.object({ pagination: paginationSchema, quota_units: z.number().int() }),
    },
  },
  errors: [],
  weighted: true,
  async handle({ query, baseUrl, access }, { readStore }) {
    const detail = query.view === 'detail';
    const page = query.page ?? 1;
    const perPage = query.per_page ?? (detail ? query.ids!.length : DEFAULT_PER_PAGE);
    const asked = await projectFilter(readStore, query);
    const filter = asked && withinProjectScope(await catalogueScopeOf(readStore, access), asked);
    const found = filter ? await findProjects(readStore, query, filter, (page - 1) * perPage, perPage) : { items: [], total: 0 };
    const references = await projectReferences(readStore, found.items);
    const represent = detail ? serializedDetails : serializedSummaries;
    const quotaUnits = detail ? Math.ceil(query.ids!.length / IDS_PER_DETAIL_UNIT) : undefined;
    return {
      data: represent.array(found.items, references, { baseUrl, detailFields: access.detailFields }),
      meta: {
        pagination: pagination(page, perPage, found.total),
        representation: detail ? 'project_detail' : 'project_summary',
        ...(quotaUnits === undefined ? {} : { quota_units: quotaUnits }),
      },
      ...(quotaUnits === undefined ? {} : { quotaUnits }),
    };
  },
};

export const projectParams = z.object({ project: idOrSlugSchema }).strict();

const getProject: QueryRoute<typeof projectParams, z.ZodObject> = {
  path: '/projects/:project',
  operationId: 'getProject',
  summary: 'Get one project (detail representation)',
  tag: 'Projects',
  scopes: ['projects:read'],
  entitlements: [],
  params: projectParams,
  query: z.object({}).strict(),
  response: projectDetailSchema,
  errors: ['notFound'],
  async handle({ params, baseUrl, access }, { readStore }) {
    const project = await getPublished<ProjectDoc>(readStore, PROJECTS, params.project);
    if (!projectInScope(await catalogueScopeOf(readStore, access), project)) throw new NotFound();
    return {
      data: serializedDetails.one(project, await projectReferences(readStore, [project]), { baseUrl, detailFields: access.detailFields }),
    };
  },
};

/** `/projects/changes` is listed before `/projects/:project` so it is not read as a slug. */
export const projectQueryRoutes = [listProjects, listProjectChanges, getProject] as QueryRoute[];
