import { z } from 'zod';
import { projectNatures } from '../src/catalogue/project.js';
import { NotFound } from '../src/domain/errors.js';
import type { Filter, ReadStore } from '../src/readStore/readStore.js';
import { PROJECT_CHANGES, type ChangeKind, type ProjectChangeDoc } from '../projections/changeFeed.js';
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
import { catalogueScopeOf, projectInScope, projectVisibleIn, withinProjectScope, type CatalogueScope } from './catalogueScope.js';
import type { QueryRoute } from './queryRoute.js';
import {
  projectDetailSchema,
  projectReferences,
  projectSummary,
  projectSummarySchema,
  serializedDetails,
  serializedSummaries,
} from './representations.js';

const DEFAULT_PROJECT_SORT = '-updated_at';
/** Rule 6: one quota unit per 10 requested ids of a detail batch, rounded up. */
const IDS_PER_DETAIL_UNIT = 10;

const price = (description: string) =>
  z
    .string()
    .regex(/^\d{1,15}(\.\d{1,2})?$/, 'must be a non-negative amount, e.g. 1500000 or 1500000.50')
    .transform(Number)
    .meta({ description })
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
    min_price: price('Lowest starting_from, inclusive.'),
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
    'unknown, unpublished or inaccessible are omitted and do not count in the pagination totals.',
  tag: 'Projects',
  scopes: ['projects:read'],
  entitlements: [],
  params: z.object({}).strict(),
  query: listProjectsQuery,
  response: z.array(z.union([projectDetailSchema, projectSummarySchema])),
  meta: z.object({ pagination: paginationSchema, quota_units: z.number().int().optional() }),
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
      meta: { pagination: pagination(page, perPage, found.total), ...(quotaUnits === undefined ? {} : { quota_units: quotaUnits }) },
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

const changeKinds = ['project', 'payment_plans', 'media', 'floor_plans', 'amenities', 'faqs'] as const satisfies readonly ChangeKind[];

const projectChangeSchema = z
  .object({
    project_id: z.number().int(),
    changed_at: z.iso
      .datetime()
      .meta({ description: 'The latest reported change after updated_since (of a removed project: its removal).' }),
    changes: z
      .array(z.enum(changeKinds))
      .meta({ description: 'What changed: the project itself and/or its payment_plans, media (gallery), floor_plans, amenities, faqs.' }),
    removed: z.boolean().meta({
      description:
        'True when the project, once visible to this client, was removed from its view after updated_since (unpublished, deleted or moved out of its restriction); project is then null.',
    }),
    project: projectSummarySchema.nullable(),
  })
  .meta({ id: 'ProjectChange' });

const changesQuery = z
  .object({
    updated_since: updatedSinceSchema.meta({ description: 'Report changes made after this moment (required).' }),
    page: pageParameter,
    per_page: perPageParameter,
  })
  .strict();

interface ChangeSummary {
  changedAt: string;
  kinds: ReadonlySet<ChangeKind>;
}

interface ChangedProject extends ChangeSummary {
  projectId: number;
  kinds: Set<ChangeKind>;
  /** Each removal from a community where the project was published, with the changes up to and including it. */
  withdrawals: Array<ChangeSummary & { communityId: number }>;
}

/**
 * Every project with a reported change after `since`, ordered by its first such change in log order. A
 * project keeps its place when edited again, and projects changed for the first time join at the end, so
 * reading every page for one `updated_since` while edits arrive neither misses nor repeats a project.
 */
function changedProjects(changes: readonly ProjectChangeDoc[]): ChangedProject[] {
  const byProject = new Map<number, ChangedProject>();
  for (const change of changes) {
    let changed = byProject.get(change.project_id);
    if (!changed) {
      changed = { projectId: change.project_id, changedAt: change.changed_at, kinds: new Set(), withdrawals: [] };
      byProject.set(change.project_id, changed);
    }
    if (change.changed_at > changed.changedAt) changed.changedAt = change.changed_at;
    changed.kinds.add(change.kind);
    if (change.withdrawn_from_community_id !== null) {
      changed.withdrawals.push({
        communityId: change.withdrawn_from_community_id,
        changedAt: changed.changedAt,
        kinds: new Set(changed.kinds),
      });
    }
  }
  return [...byProject.values()];
}

interface ReportedChange extends ChangeSummary {
  projectId: number;
  /** Visible to the client now; null = removed from its view. */
  project: ProjectDoc | null;
}

/**
 * The feed's rule: a project visible to the client now (published, in its restriction and sample) is
 * reported with what changed; one not visible now is reported removed only when one of the changes read
 * withdrew it (unpublished, deleted or moved away while published) from a community where this client
 * could see it, as far as that change; any other project, never published or never visible to this client,
 * is not reported at all.
 */
function reportedChange(changed: ChangedProject, project: ProjectDoc | undefined, scope: CatalogueScope): ReportedChange | null {
  if (project?.published && projectInScope(scope, project)) return { ...changed, project };
  const seen = changed.withdrawals.findLast((withdrawal) => projectVisibleIn(scope, changed.projectId, withdrawal.communityId));
  return seen ? { projectId: changed.projectId, changedAt: seen.changedAt, kinds: seen.kinds, project: null } : null;
}

const listProjectChanges: QueryRoute<z.ZodObject, typeof changesQuery> = {
  path: '/projects/changes',
  operationId: 'listProjectChanges',
  summary: 'Projects changed after a moment (change feed)',
  description:
    'Projects whose own fields, payment plans, gallery, floor plans, amenities or FAQs changed after `updated_since` (image-only changes ' +
    'are not reported). A project changed only through its related collections keeps its own older updated_at, so read every page for ' +
    "one updated_since. Order: by each project's first change after updated_since, in log order, which stays stable while edits arrive. " +
    'Only what this client could have seen is reported: a project visible to it now (published, and within its catalogue restriction and ' +
    'evaluation sample) comes with its summary; a project no longer visible to it comes with removed=true and project=null only when, ' +
    'after updated_since, it was unpublished, deleted or moved to another community while published in a community where this client ' +
    "would see it (judged by the client's restriction and sample now); its changed_at and changes then stop at that removal. A project " +
    'never published, or never published where this client would see it, never appears.',
  tag: 'Projects',
  scopes: ['projects:sync'],
  entitlements: [],
  params: z.object({}).strict(),
  query: changesQuery,
  response: z.array(projectChangeSchema),
  meta: z.object({ pagination: paginationSchema }),
  errors: [],
  async handle({ query, baseUrl, access }, { readStore }) {
    const page = query.page ?? 1;
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const scope = await catalogueScopeOf(readStore, access);
    const { items: changes } = await readStore.find<ProjectChangeDoc>(PROJECT_CHANGES, {
      filter: { changed_at: { $gt: query.updated_since } },
      sort: [['position', 1]],
    });
    const changed = changedProjects(changes);
    const projects = new Map(
      (
        await readStore.getMany<ProjectDoc>(
          PROJECTS,
          changed.map((entry) => entry.projectId),
        )
      ).map((project) => [project.id, project]),
    );
    const reported = changed.flatMap((entry) => reportedChange(entry, projects.get(entry.projectId), scope) ?? []);
    const pageItems = reported.slice((page - 1) * perPage, page * perPage);
    const references = await projectReferences(
      readStore,
      pageItems.flatMap((entry) => (entry.project ? [entry.project] : [])),
    );
    return {
      data: pageItems.map((entry) => ({
        project_id: entry.projectId,
        changed_at: entry.changedAt,
        changes: changeKinds.filter((kind) => entry.kinds.has(kind)),
        removed: entry.project === null,
        project: entry.project && projectSummary(entry.project, references, baseUrl),
      })),
      meta: { pagination: pagination(page, perPage, reported.length) },
    };
  },
};

/** `/projects/changes` is listed before `/projects/:project` so it is not read as a slug. */
export const projectQueryRoutes = [listProjects, listProjectChanges, getProject] as QueryRoute[];
