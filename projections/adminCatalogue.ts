import { assertNever } from '../src/domain/decider.js';
import { evolveCommunity, type Community, type CommunityEvent } from '../src/catalogue/community.js';
import { evolveDeveloper, type Developer, type DeveloperEvent } from '../src/catalogue/developer.js';
import {
  projectEventTypes,
  type ProjectEvent,
  type ProjectEventOf,
  type ProjectFields,
  type ProjectNature,
  type ProjectStatus,
} from '../src/catalogue/project.js';
import { evolveState, type StateEvent, type StateRegion } from '../src/catalogue/state.js';
import { evolveSubCommunity, type SubCommunity, type SubCommunityEvent } from '../src/catalogue/subCommunity.js';
import { evolveUnitType, type UnitType, type UnitTypeEvent } from '../src/catalogue/unitType.js';
import {
  alreadyApplied,
  APPLIED,
  everyEventType,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type ProjectionContext,
  type Recorded,
} from '../src/projectionEngine/projection.js';
import { withFields } from '../src/projectionEngine/docCopy.js';
import type { IndexSpec } from '../src/readStore/readStore.js';
import { foldRecord, type AdminRecord, type AdminRecordKind } from './adminRecords.js';
import { searchText } from './shared/apiShape.js';

export const ADMIN_PROJECTS = 'admin_projects';
export const ADMIN_DEVELOPERS = 'admin_developers';
export const ADMIN_STATES = 'admin_states';
export const ADMIN_COMMUNITIES = 'admin_communities';
export const ADMIN_SUB_COMMUNITIES = 'admin_sub_communities';
export const ADMIN_UNIT_TYPES = 'admin_unit_types';

export type AdminDeveloperDoc = AdminRecord<Developer>;
export type AdminStateDoc = AdminRecord<StateRegion>;
export type AdminCommunityDoc = AdminRecord<Community>;
export type AdminSubCommunityDoc = AdminRecord<SubCommunity>;
export type AdminUnitTypeDoc = AdminRecord<UnitType>;

/** The fields of a project its admin list shows and filters on; the rest is read one project at a time. */
export const PROJECT_SUMMARY_FIELDS = [
  'name',
  'slug',
  'developer_id',
  'state_id',
  'community_id',
  'sub_community_id',
  'nature',
] as const satisfies ReadonlyArray<keyof ProjectFields>;

type ProjectSummaryFields = Pick<ProjectFields, (typeof PROJECT_SUMMARY_FIELDS)[number]>;

/**
 * A project in every state (unpublished and deleted ones too) with the revision of its stream. Its stream
 * holds the project's collections too, so every project event moves `revision` and `edited_at`, while
 * `updated_at` is the project's own last edit, as the write side and /v1 define it.
 */
export interface AdminProjectDoc extends PositionedDoc, ProjectSummaryFields {
  _id: number;
  id: number;
  revision: number;
  status: ProjectStatus;
  nature: ProjectNature;
  published: boolean;
  deleted: boolean;
  created_at: string;
  updated_at: string;
  /** The latest event of the project's stream, whatever it changed. */
  edited_at: string;
  /** Name, slug, developer name and community name, lower-cased. */
  _search: string;
}

const bySlug = { keys: [['slug', 1]] } satisfies IndexSpec;
const byName = { keys: [['name', 1]] } satisfies IndexSpec;
const byUpdatedAt = { keys: [['updated_at', 1]] } satisfies IndexSpec;

const nameAndSlug = (record: { name: string; slug: string }) => searchText(record.name, record.slug);

const developerKind: AdminRecordKind<Developer, DeveloperEvent> = {
  collection: ADMIN_DEVELOPERS,
  idOf: (event) => event.data.developer_id,
  evolve: evolveDeveloper,
  search: nameAndSlug,
};

const stateKind: AdminRecordKind<StateRegion, StateEvent> = {
  collection: ADMIN_STATES,
  idOf: (event) => event.data.state_id,
  evolve: evolveState,
  search: nameAndSlug,
};

const communityKind: AdminRecordKind<Community, CommunityEvent> = {
  collection: ADMIN_COMMUNITIES,
  idOf: (event) => event.data.community_id,
  evolve: evolveCommunity,
  search: nameAndSlug,
};

const subCommunityKind: AdminRecordKind<SubCommunity, SubCommunityEvent> = {
  collection: ADMIN_SUB_COMMUNITIES,
  idOf: (event) => event.data.sub_community_id,
  evolve: evolveSubCommunity,
  search: nameAndSlug,
};

const unitTypeKind: AdminRecordKind<UnitType, UnitTypeEvent> = {
  collection: ADMIN_UNIT_TYPES,
  idOf: (event) => event.data.unit_type_id,
  evolve: evolveUnitType,
  search: (unitType) => searchText(unitType.name),
};

async function projectSearch(ctx: ProjectionContext, project: Pick<AdminProjectDoc, 'name' | 'slug' | 'developer_id' | 'community_id'>) {
  const [developer, community] = await Promise.all([
    ctx.get<AdminDeveloperDoc>(ADMIN_DEVELOPERS, project.developer_id),
    ctx.get<AdminCommunityDoc>(ADMIN_COMMUNITIES, project.community_id),
  ]);
  return searchText(project.name, project.slug, developer?.name, community?.name);
}

/**
 * A copy of the stored project that the unit of work may change in place (see ProjectionContext.draft): a
 * project's events come in runs, and copying its document on each made most of this projection's garbage.
 */
const ownProject = (stored: AdminProjectDoc | null): AdminProjectDoc | null => stored && withFields(stored, {});

async function createdProject(event: Recorded<ProjectEventOf<'ProjectCreated'>>, ctx: ProjectionContext): Promise<AdminProjectDoc> {
  const { project_id, name, slug, developer_id, state_id, community_id, sub_community_id, nature, status, at } = event.data;
  return {
    _id: project_id,
    id: project_id,
    name,
    slug,
    developer_id,
    state_id,
    community_id,
    sub_community_id,
    nature,
    status,
    published: false,
    deleted: false,
    created_at: at,
    updated_at: at,
    _search: await projectSearch(ctx, { name, slug, developer_id, community_id }),
    revision: event.revision,
    edited_at: at,
    _position: positionNumber(event),
  };
}

async function createProject(event: Recorded<ProjectEventOf<'ProjectCreated'>>, ctx: ProjectionContext): Promise<void> {
  const projectId = event.data.project_id;
  const current = await ctx.get<AdminProjectDoc>(ADMIN_PROJECTS, projectId);
  if (alreadyApplied(current, event)) return;
  const created = await createdProject(event, ctx);
  if (current) ctx.put(ADMIN_PROJECTS, created);
  else await ctx.draft<AdminProjectDoc>(ADMIN_PROJECTS, projectId, () => created);
}

type ProjectEdit = Exclude<Recorded<ProjectEvent>, { type: 'ProjectCreated' }>;

/** The project's fields an edit of its stream changes (its search text aside). */
function changeProject(project: AdminProjectDoc, event: ProjectEdit): void {
  const at = event.data.at;
  switch (event.type) {
    case 'ProjectRevised': {
      const { changes } = event.data;
      for (const field of PROJECT_SUMMARY_FIELDS) {
        if (changes[field] !== undefined) (project as Record<string, unknown>)[field] = changes[field];
      }
      project.updated_at = at;
      break;
    }
    case 'ProjectPublished':
      project.published = true;
      project.updated_at = at;
      break;
    case 'ProjectUnpublished':
      project.published = false;
      project.updated_at = at;
      break;
    case 'ProjectStatusChanged':
      project.status = event.data.status;
      project.updated_at = at;
      break;
    case 'ProjectDeleted':
      project.deleted = true;
      project.published = false;
      project.updated_at = at;
      break;
    default:
      // An edit of one of the project's collections: a new revision of the same summary.
      break;
  }
  project.revision = event.revision;
  project.edited_at = at;
  project._position = positionNumber(event);
}

/**
 * Applies the edit without waiting, when it needs nothing but the project and the unit of work holds that
 * (see ProjectionContext.peek), as it does for nearly every event of a replay: whether it did.
 */
function appliedAtOnce(event: ProjectEdit, ctx: ProjectionContext): boolean {
  if (event.type === 'ProjectRevised') return false;
  const projectId = event.data.project_id;
  const current = ctx.peek<AdminProjectDoc>(ADMIN_PROJECTS, projectId);
  if (current === undefined) return false;
  // The document was just found, so its draft is made at once.
  if (current && !alreadyApplied(current, event)) changeProject(ctx.draftKnown(ADMIN_PROJECTS, projectId, ownProject)!, event);
  return true;
}

/** An edit of a project's stream; an event of a project never created changes nothing. */
async function applyProjectEdit(event: ProjectEdit, ctx: ProjectionContext): Promise<void> {
  const projectId = event.data.project_id;
  const current = await ctx.get<AdminProjectDoc>(ADMIN_PROJECTS, projectId);
  if (!current || alreadyApplied(current, event)) return;
  const project = (await ctx.draft<AdminProjectDoc>(ADMIN_PROJECTS, projectId, ownProject))!;
  changeProject(project, event);
  // A revision may rename the project or move it; the names it takes from its developer and community are
  // read again too, as they were before this projection changed documents in place.
  if (event.type === 'ProjectRevised') project._search = await projectSearch(ctx, project);
}

/** A renamed developer or community reaches the search text of every project that names it. */
async function renameReachesProjects(
  event: Recorded<Extract<DeveloperEvent | CommunityEvent, { type: 'DeveloperRevised' | 'CommunityRevised' }>>,
  ctx: ProjectionContext,
): Promise<void> {
  if (event.data.changes.name === undefined) return;
  const named: Record<string, number> =
    event.type === 'DeveloperRevised' ? { developer_id: event.data.developer_id } : { community_id: event.data.community_id };
  // Each is checked on its own, since a write interrupted half-way may have stored some of them already.
  for (const found of await ctx.find<AdminProjectDoc>(ADMIN_PROJECTS, named)) {
    if (alreadyApplied(found, event)) continue;
    const search = await projectSearch(ctx, found);
    const project = (await ctx.draft<AdminProjectDoc>(ADMIN_PROJECTS, found._id, ownProject))!;
    project._search = search;
    project._position = positionNumber(event);
  }
}

type ReferenceEvent = DeveloperEvent | StateEvent | CommunityEvent | SubCommunityEvent | UnitTypeEvent;
type AdminCatalogueEvent = ProjectEvent | ReferenceEvent;

const projectTypes: ReadonlySet<string> = new Set(projectEventTypes);
const isProjectEvent = (event: Recorded<AdminCatalogueEvent>): event is Recorded<ProjectEvent> => projectTypes.has(event.type);

async function applyReferenceEvent(event: Recorded<ReferenceEvent>, ctx: ProjectionContext): Promise<void> {
  switch (event.type) {
    case 'DeveloperCreated':
    case 'DeveloperPublished':
    case 'DeveloperUnpublished':
      await foldRecord(developerKind, event, ctx);
      return;
    case 'DeveloperRevised':
      await foldRecord(developerKind, event, ctx);
      return renameReachesProjects(event, ctx);
    case 'StateCreated':
    case 'StateRevised':
    case 'StatePublished':
    case 'StateUnpublished':
      await foldRecord(stateKind, event, ctx);
      return;
    case 'CommunityCreated':
    case 'CommunityPublished':
    case 'CommunityUnpublished':
      await foldRecord(communityKind, event, ctx);
      return;
    case 'CommunityRevised':
      await foldRecord(communityKind, event, ctx);
      return renameReachesProjects(event, ctx);
    case 'SubCommunityCreated':
    case 'SubCommunityRevised':
    case 'SubCommunityPublished':
    case 'SubCommunityUnpublished':
      await foldRecord(subCommunityKind, event, ctx);
      return;
    case 'UnitTypeCreated':
    case 'UnitTypeRevised':
      await foldRecord(unitTypeKind, event, ctx);
      return;
    default:
      return assertNever(event);
  }
}

/**
 * The admin API's lists of the catalogue: projects, developers, states, communities, sub-communities and unit
 * types in every state (unpublished, deleted), each with the revision of its stream. The reference data is
 * folded with its aggregate's own evolve, so a list item is what a GET of the record answers, plus its times.
 */
export const adminCatalogueProjection: Projection<AdminCatalogueEvent> = {
  name: 'adminCatalogue',
  version: 1,
  collections: [ADMIN_PROJECTS, ADMIN_DEVELOPERS, ADMIN_STATES, ADMIN_COMMUNITIES, ADMIN_SUB_COMMUNITIES, ADMIN_UNIT_TYPES],
  indexes: {
    [ADMIN_PROJECTS]: [
      bySlug,
      byName,
      byUpdatedAt,
      { keys: [['edited_at', 1]] },
      // The list's other sorts: with them every search of the list reads declared fields, so that the service
      // can mirror the records lean (src/service.ts, leanReadCollections).
      { keys: [['created_at', 1]] },
      { keys: [['id', 1]] },
      { keys: [['developer_id', 1]] },
      { keys: [['community_id', 1]] },
      { keys: [['state_id', 1]] },
      { keys: [['status', 1]] },
      {
        keys: [
          ['published', 1],
          ['deleted', 1],
        ],
      },
    ],
    [ADMIN_DEVELOPERS]: [bySlug, byName, byUpdatedAt],
    [ADMIN_STATES]: [bySlug, byName, byUpdatedAt],
    [ADMIN_COMMUNITIES]: [bySlug, byName, byUpdatedAt, { keys: [['state_id', 1]] }],
    [ADMIN_SUB_COMMUNITIES]: [bySlug, byName, byUpdatedAt, { keys: [['community_id', 1]] }],
    [ADMIN_UNIT_TYPES]: [byName, { keys: [['sort_order', 1]] }],
  },
  handles: [
    ...projectEventTypes,
    ...everyEventType<ReferenceEvent>({
      DeveloperCreated: true,
      DeveloperRevised: true,
      DeveloperPublished: true,
      DeveloperUnpublished: true,
      StateCreated: true,
      StateRevised: true,
      StatePublished: true,
      StateUnpublished: true,
      CommunityCreated: true,
      CommunityRevised: true,
      CommunityPublished: true,
      CommunityUnpublished: true,
      SubCommunityCreated: true,
      SubCommunityRevised: true,
      SubCommunityPublished: true,
      SubCommunityUnpublished: true,
      UnitTypeCreated: true,
      UnitTypeRevised: true,
    }),
  ],
  apply(event, ctx) {
    if (!isProjectEvent(event)) return applyReferenceEvent(event, ctx);
    if (event.type === 'ProjectCreated') return createProject(event, ctx);
    try {
      return appliedAtOnce(event, ctx) ? APPLIED : applyProjectEdit(event, ctx);
    } catch (error) {
      return Promise.reject(error);
    }
  },
};
