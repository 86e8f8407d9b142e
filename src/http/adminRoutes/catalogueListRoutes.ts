import { z } from 'zod';
import {
  ADMIN_COMMUNITIES,
  ADMIN_DEVELOPERS,
  ADMIN_PROJECTS,
  ADMIN_STATES,
  ADMIN_SUB_COMMUNITIES,
  ADMIN_UNIT_TYPES,
  type AdminCommunityDoc,
  type AdminDeveloperDoc,
  type AdminProjectDoc,
  type AdminStateDoc,
  type AdminSubCommunityDoc,
  type AdminUnitTypeDoc,
} from '../../../projections/adminCatalogue.js';
import type { AdminRecordFields } from '../../../projections/adminRecords.js';
import { projectNatures, projectStatuses } from '../../catalogue/project.js';
import { unitTypeKinds } from '../../catalogue/unitType.js';
import type { Filter, ReadStore } from '../../readStore/readStore.js';
import type { AdminRoute } from '../adminRoute.js';
import { idOrSlugSchema, qParameter, updatedSinceSchema } from '../listParameters.js';
import { adminList, booleanParameter, withoutStoreFields, type ListSelection } from './adminLists.js';
import { idSchema, revisionSchema, timestampSchema } from './adminSchemas.js';
import {
  adminCommunitySchema,
  adminDeveloperSchema,
  adminStateSchema,
  adminSubCommunitySchema,
  adminUnitTypeSchema,
} from './referenceDataRoutes.js';

// Lists of the catalogue, in every state (unpublished, deleted), from the adminCatalogue read model.

const READ_MODEL_NOTE = 'Read from the admin read model: a write shows once projected.';

const times = {
  created_at: timestampSchema.meta({ description: 'Its first event.' }),
  updated_at: timestampSchema.meta({ description: 'Its latest event.' }),
};

const updatedSince = updatedSinceSchema.meta({ description: 'Only those whose updated_at is later than this.' }).optional();
const published = booleanParameter('Only published (true) or unpublished (false) ones.');
const q = qParameter.meta({ description: 'Free text on one line, matched case-insensitively against names and slugs.' });

/** A developer, state or community a filter names by id or slug, in any state; null = no such record. */
async function referenceId(readStore: ReadStore, collection: string, idOrSlug: string | undefined): Promise<number | null | undefined> {
  if (idOrSlug === undefined) return undefined;
  if (/^\d+$/.test(idOrSlug)) return Number(idOrSlug);
  return (await readStore.findOne<AdminRecordFields>(collection, { slug: idOrSlug }))?.id ?? null;
}

/** The filters most lists share: free text, publication and last change. */
function commonSelection(query: { q?: string | undefined; published?: boolean | undefined; updated_since?: string | undefined }) {
  const filter: Filter = {};
  if (query.published !== undefined) filter.published = query.published;
  if (query.updated_since !== undefined) filter.updated_at = { $gt: query.updated_since };
  return { filter, ...(query.q ? { text: query.q } : {}) } satisfies ListSelection;
}

const referenceFilter = (what: string) =>
  idOrSlugSchema.meta({ description: `Only those of this ${what} (numeric id or slug).` }).optional();

const projectListItemSchema = z
  .object({
    id: idSchema,
    revision: revisionSchema,
    name: z.string(),
    slug: z.string(),
    developer_id: idSchema,
    state_id: idSchema,
    community_id: idSchema,
    sub_community_id: idSchema.nullable(),
    nature: z.enum(projectNatures),
    status: z.enum(projectStatuses),
    published: z.boolean(),
    deleted: z.boolean(),
    created_at: timestampSchema,
    updated_at: timestampSchema.meta({ description: "The project's own last edit, as /v1 reports it; edits of its collections leave it." }),
    edited_at: timestampSchema.meta({ description: 'The latest event of the project, whatever it changed (a collection too).' }),
  })
  .meta({
    id: 'AdminProjectListItem',
    description: 'A project in a list: its summary and revision; GET /projects/{projectId} answers the whole project.',
  });

const listProjects = adminList({
  path: '/projects',
  operationId: 'listProjects',
  summary: `Projects in every state (unpublished and deleted ones too), filtered, sorted and paginated. ${READ_MODEL_NOTE}`,
  tag: 'Projects',
  filters: {
    q: qParameter.meta({
      description: 'Free text on one line, matched case-insensitively against names, slugs, developer and community names.',
    }),
    status: z
      .enum(projectStatuses, { error: `must be one of ${projectStatuses.join(', ')}` })
      .meta({ description: 'Only projects in this status.' })
      .optional(),
    published,
    deleted: booleanParameter('Only deleted (true) or not deleted (false) projects; both unless given.'),
    developer: referenceFilter('developer'),
    state: referenceFilter('state'),
    community: referenceFilter('community'),
    updated_since: updatedSinceSchema
      .meta({ description: "Only projects whose own updated_at is later than this (as /v1's filter)." })
      .optional(),
  },
  sortFields: ['updated_at', 'edited_at', 'created_at', 'name', 'id'],
  defaultSort: '-updated_at',
  collection: ADMIN_PROJECTS,
  item: projectListItemSchema,
  async select(query, _params, readStore) {
    const [developerId, stateId, communityId] = await Promise.all([
      referenceId(readStore, ADMIN_DEVELOPERS, query.developer),
      referenceId(readStore, ADMIN_STATES, query.state),
      referenceId(readStore, ADMIN_COMMUNITIES, query.community),
    ]);
    if (developerId === null || stateId === null || communityId === null) return null;
    const selection = commonSelection(query);
    if (query.status !== undefined) selection.filter.status = query.status;
    if (query.deleted !== undefined) selection.filter.deleted = query.deleted;
    if (developerId !== undefined) selection.filter.developer_id = developerId;
    if (stateId !== undefined) selection.filter.state_id = stateId;
    if (communityId !== undefined) selection.filter.community_id = communityId;
    return selection;
  },
  represent: (docs: AdminProjectDoc[]) => docs.map(withoutStoreFields),
});

const listItem = (schema: z.ZodObject, id: string) => schema.extend(times).meta({ id });

const listDevelopers = adminList({
  path: '/developers',
  operationId: 'listDevelopers',
  summary: `Developers, published or not, filtered, sorted and paginated. ${READ_MODEL_NOTE}`,
  tag: 'Developers',
  filters: { q, published, updated_since: updatedSince },
  sortFields: ['id', 'name', 'updated_at'],
  defaultSort: 'id',
  collection: ADMIN_DEVELOPERS,
  item: listItem(adminDeveloperSchema, 'AdminDeveloperListItem'),
  select: commonSelection,
  represent: (docs: AdminDeveloperDoc[]) => docs.map(withoutStoreFields),
});

const listStates = adminList({
  path: '/states',
  operationId: 'listStates',
  summary: `States, published or not, filtered, sorted and paginated. ${READ_MODEL_NOTE}`,
  tag: 'States',
  filters: { q, published, updated_since: updatedSince },
  sortFields: ['id', 'name', 'updated_at'],
  defaultSort: 'id',
  collection: ADMIN_STATES,
  item: listItem(adminStateSchema, 'AdminStateListItem'),
  select: commonSelection,
  represent: (docs: AdminStateDoc[]) => docs.map(withoutStoreFields),
});

const listCommunities = adminList({
  path: '/communities',
  operationId: 'listCommunities',
  summary: `Communities, published or not, filtered, sorted and paginated. ${READ_MODEL_NOTE}`,
  tag: 'Communities',
  filters: { q, published, state: referenceFilter('state'), updated_since: updatedSince },
  sortFields: ['id', 'name', 'updated_at'],
  defaultSort: 'id',
  collection: ADMIN_COMMUNITIES,
  item: listItem(adminCommunitySchema, 'AdminCommunityListItem'),
  async select(query, _params, readStore) {
    const stateId = await referenceId(readStore, ADMIN_STATES, query.state);
    if (stateId === null) return null;
    const selection = commonSelection(query);
    if (stateId !== undefined) selection.filter.state_id = stateId;
    return selection;
  },
  represent: (docs: AdminCommunityDoc[]) => docs.map(withoutStoreFields),
});

const listSubCommunities = adminList({
  path: '/sub-communities',
  operationId: 'listSubCommunities',
  summary: `Sub-communities, published or not, filtered, sorted and paginated. ${READ_MODEL_NOTE}`,
  tag: 'Sub-communities',
  filters: { q, published, community: referenceFilter('community'), updated_since: updatedSince },
  sortFields: ['id', 'name', 'updated_at'],
  defaultSort: 'id',
  collection: ADMIN_SUB_COMMUNITIES,
  item: listItem(adminSubCommunitySchema, 'AdminSubCommunityListItem'),
  async select(query, _params, readStore) {
    const communityId = await referenceId(readStore, ADMIN_COMMUNITIES, query.community);
    if (communityId === null) return null;
    const selection = commonSelection(query);
    if (communityId !== undefined) selection.filter.community_id = communityId;
    return selection;
  },
  represent: (docs: AdminSubCommunityDoc[]) => docs.map(withoutStoreFields),
});

const listUnitTypes = adminList({
  path: '/unit-types',
  operationId: 'listUnitTypes',
  summary: `Unit types, filtered, sorted (by their sort_order unless asked) and paginated. ${READ_MODEL_NOTE}`,
  tag: 'Unit types',
  filters: {
    q: qParameter.meta({ description: 'Free text on one line, matched case-insensitively against names.' }),
    kind: z
      .enum(unitTypeKinds, { error: `must be one of ${unitTypeKinds.join(', ')}` })
      .meta({ description: 'Only unit types of this kind.' })
      .optional(),
    updated_since: updatedSince,
  },
  sortFields: ['sort_order', 'id', 'name', 'updated_at'],
  defaultSort: 'sort_order',
  collection: ADMIN_UNIT_TYPES,
  item: listItem(adminUnitTypeSchema, 'AdminUnitTypeListItem'),
  select(query) {
    const selection = commonSelection(query);
    if (query.kind !== undefined) selection.filter.kind = query.kind;
    return selection;
  },
  represent: (docs: AdminUnitTypeDoc[]) => docs.map(withoutStoreFields),
});

/** The admin API's lists of the catalogue: projects and the reference data they name. */
export const catalogueListRoutes: AdminRoute[] = [
  listProjects,
  listDevelopers,
  listStates,
  listCommunities,
  listSubCommunities,
  listUnitTypes,
] as AdminRoute[];
