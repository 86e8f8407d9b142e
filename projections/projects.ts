import { assertNever } from '../src/domain/decider.js';
import type { CommunityEvent } from '../src/catalogue/community.js';
import type { DeveloperEvent } from '../src/catalogue/developer.js';
import {
  projectOwnEditEventTypes,
  type ProjectEventOf,
  type ProjectFields,
  type ProjectNature,
  type ProjectStatus,
} from '../src/catalogue/project.js';
import { servedMapEmbed } from '../src/catalogue/mapEmbed.js';
import type { UnitTypeEvent, UnitTypeKind } from '../src/catalogue/unitType.js';
import { apiLocation, roundArea, searchText, type ApiLocation } from './shared/apiShape.js';
import { setFields, withFields } from '../src/projectionEngine/docCopy.js';
import { insertSorted, removeFirst } from './shared/sortedItems.js';
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
import type { IndexSpec, SortDirection } from '../src/readStore/readStore.js';

export const PROJECTS = 'projects';
/** What this projection keeps of unit types, developers and communities (it reads no other projection). */
export const PROJECTS_UNIT_TYPES = 'projects_unit_types';
export const PROJECTS_DEVELOPERS = 'projects_developers';
export const PROJECTS_COMMUNITIES = 'projects_communities';

export interface BedroomType {
  id: number;
  name: string;
  /** studio 0, bedrooms its count, bedrooms_or_more 6, other null. */
  bedrooms: number | null;
  kind: UnitTypeKind;
}

export interface BedroomRange {
  min: number;
  max: number;
  max_or_more: boolean;
  label: string;
}

export interface CoverImage {
  media_id: number;
  key: string;
}

interface GalleryEntry {
  media_id: number;
  position: number;
  key: string;
}

/** Summary and detail representation of a project, in API shape; `_`-fields are the projection's own. */
export interface ProjectDoc extends PositionedDoc {
  _id: number;
  id: number;
  slug: string;
  name: string;
  developer_id: number;
  state_id: number;
  community_id: number;
  sub_community_id: number | null;
  nature: ProjectNature;
  status: ProjectStatus;
  published: boolean;
  deleted: boolean;
  created_at: string;
  /** The project's own last edit (core events only). */
  updated_at: string;
  starting_from: number | null;
  currency: string;
  /** Unit-type ids as strings, in the order the editor gave them. */
  bedrooms: string[];
  /** Ordered by the unit types' sort_order, then id. */
  bedroom_types: BedroomType[];
  bedroom_range: BedroomRange | null;
  location: ApiLocation;
  map_embed_html: string | null;
  area_from: number | string | null;
  area_to: number | string | null;
  completion_date: string | null;
  overview: string;
  description: string;
  master_plan: string;
  property_no: string;
  license_no: string;
  project_types: string[];
  video_description: string;
  down_payment_percent: number | null;
  service_charges: string | null;
  /** The first gallery picture (lowest position, then media id): list thumbnails. */
  cover_image: CoverImage | null;
  media_count: number;
  floor_plan_count: number;
  payment_plan_count: number;
  _gallery: GalleryEntry[];
  /** Name, slug, developer name and community name, lower-cased. */
  _search: string;
}

interface UnitTypeDoc extends PositionedDoc {
  _id: number;
  name: string;
  kind: UnitTypeKind;
  bedrooms: number | null;
  sort_order: number;
}

interface NameDoc extends PositionedDoc {
  _id: number;
  name: string;
}

const projectCollectionEventTypes = [
  'FloorPlanAdded',
  'FloorPlanRemoved',
  'PaymentPlanAdded',
  'PaymentPlanRemoved',
  'GalleryPictureAdded',
  'GalleryPictureRevised',
  'GalleryPictureReplaced',
  'GalleryPictureRemoved',
] as const;

type OwnEditEvent = ProjectEventOf<(typeof projectOwnEditEventTypes)[number]>;
type CollectionEvent = ProjectEventOf<(typeof projectCollectionEventTypes)[number]>;
type NamedReferenceEvent =
  | Extract<DeveloperEvent, { type: 'DeveloperCreated' | 'DeveloperRevised' }>
  | Extract<CommunityEvent, { type: 'CommunityCreated' | 'CommunityRevised' }>;
type ProjectsEvent = OwnEditEvent | CollectionEvent | UnitTypeEvent | NamedReferenceEvent;

/** A unit type's bedroom count as the API prints it, whatever the stored count says. */
function bedroomsOf(kind: UnitTypeKind, bedrooms: number | null): number | null {
  switch (kind) {
    case 'studio':
      return 0;
    case 'bedrooms':
      return bedrooms;
    case 'bedrooms_or_more':
      return 6;
    case 'other':
      return null;
    default:
      return assertNever(kind);
  }
}

const countLabel = (count: number, orMore: boolean): string => {
  if (count === 0) return 'Studio';
  if (orMore) return `${count}+ Bedrooms`;
  return count === 1 ? '1 Bedroom' : `${count} Bedrooms`;
};

/**
 * The residential span of a project's unit types; null when it has none (only offices, retail, ...).
 *
 * Label format: one value prints alone ("Studio", "1 Bedroom", "2 Bedrooms", "6+ Bedrooms"); a span
 * prints "<min> – <max> Bedrooms" with an en dash between spaces, the minimum as a bare number or
 * "Studio" and the maximum with its unit ("1 – 3 Bedrooms", "Studio – 1 Bedroom", "Studio – 3 Bedrooms",
 * "1 – 6+ Bedrooms").
 */
export function bedroomRange(types: readonly BedroomType[]): BedroomRange | null {
  const counts = types.flatMap((type) => (type.bedrooms === null ? [] : [type.bedrooms]));
  if (counts.length === 0) return null;
  const min = Math.min(...counts);
  const max = Math.max(...counts);
  const maxOrMore = types.some((type) => type.kind === 'bedrooms_or_more' && type.bedrooms === max);
  const label = min === max ? countLabel(max, maxOrMore) : `${min === 0 ? 'Studio' : String(min)} – ${countLabel(max, maxOrMore)}`;
  return { min, max, max_or_more: maxOrMore, label };
}

export function bedroomTypes(unitTypes: readonly UnitTypeDoc[]): BedroomType[] {
  return [...unitTypes]
    .sort((a, b) => a.sort_order - b.sort_order || a._id - b._id)
    .map((unitType) => ({
      id: unitType._id,
      name: unitType.name,
      bedrooms: bedroomsOf(unitType.kind, unitType.bedrooms),
      kind: unitType.kind,
    }));
}

async function bedroomFields(
  ctx: ProjectionContext,
  unitTypeIds: readonly number[],
): Promise<Pick<ProjectDoc, 'bedrooms' | 'bedroom_types' | 'bedroom_range'>> {
  const types = bedroomTypes(await ctx.getMany<UnitTypeDoc>(PROJECTS_UNIT_TYPES, unitTypeIds));
  return { bedrooms: unitTypeIds.map(String), bedroom_types: types, bedroom_range: bedroomRange(types) };
}

async function projectSearch(ctx: ProjectionContext, project: Pick<ProjectDoc, 'name' | 'slug' | 'developer_id' | 'community_id'>) {
  const knownDeveloper = ctx.peek<NameDoc>(PROJECTS_DEVELOPERS, project.developer_id);
  const knownCommunity = ctx.peek<NameDoc>(PROJECTS_COMMUNITIES, project.community_id);
  const [developer, community] =
    knownDeveloper === undefined || knownCommunity === undefined
      ? await Promise.all([
          ctx.get<NameDoc>(PROJECTS_DEVELOPERS, project.developer_id),
          ctx.get<NameDoc>(PROJECTS_COMMUNITIES, project.community_id),
        ])
      : [knownDeveloper, knownCommunity];
  return searchText(project.name, project.slug, developer?.name, community?.name);
}

/** Revised core fields in API shape (raw values that the API prints differently are converted). */
async function shapedChanges(ctx: ProjectionContext, changes: Partial<ProjectFields>): Promise<Partial<ProjectDoc>> {
  const { unit_type_ids, location, area_from, area_to, map_embed_html, ...asGiven } = changes;
  return {
    ...asGiven,
    ...(map_embed_html === undefined ? {} : { map_embed_html: servedMapEmbed(map_embed_html) }),
    ...(unit_type_ids === undefined ? {} : await bedroomFields(ctx, unit_type_ids)),
    ...(location === undefined ? {} : { location: apiLocation(location) }),
    ...(area_from === undefined ? {} : { area_from: roundArea(area_from) }),
    ...(area_to === undefined ? {} : { area_to: roundArea(area_to) }),
  };
}

const galleryOrder = (a: GalleryEntry, b: GalleryEntry) => a.position - b.position || a.media_id - b.media_id;

/**
 * The unit of work's own copy of a stored project, which the page's events change in place (see
 * ProjectionContext.draft): below the top level only `_gallery` is changed in place, and its entries are
 * replaced rather than changed.
 */
const ownProject = (stored: ProjectDoc | null): ProjectDoc | null => stored && withFields(stored, { _gallery: stored._gallery.slice() });

/** After a change of `_gallery` (kept in galleryOrder): the fields derived from it. */
function galleryChanged(project: ProjectDoc): void {
  const first = project._gallery[0];
  const cover = project.cover_image;
  project.media_count = project._gallery.length;
  if (!first) project.cover_image = null;
  else if (cover?.media_id !== first.media_id || cover.key !== first.key)
    project.cover_image = { media_id: first.media_id, key: first.key };
}

async function createdProject(event: Recorded<ProjectEventOf<'ProjectCreated'>>, ctx: ProjectionContext): Promise<ProjectDoc> {
  const position = positionNumber(event);
  const { project_id, at, status, unit_type_ids, location, area_from, area_to, map_embed_html, ...asGiven } = event.data;
  const created: ProjectDoc = {
    _id: project_id,
    id: project_id,
    ...asGiven,
    status,
    published: false,
    deleted: false,
    created_at: at,
    updated_at: at,
    ...(await bedroomFields(ctx, unit_type_ids)),
    location: apiLocation(location),
    map_embed_html: servedMapEmbed(map_embed_html),
    area_from: roundArea(area_from),
    area_to: roundArea(area_to),
    cover_image: null,
    media_count: 0,
    floor_plan_count: 0,
    payment_plan_count: 0,
    _gallery: [],
    _search: '',
    _position: position,
  };
  created._search = await projectSearch(ctx, created);
  return created;
}

async function reviseProject(
  event: Recorded<ProjectEventOf<'ProjectRevised'>>,
  project: ProjectDoc,
  ctx: ProjectionContext,
): Promise<void> {
  setFields(project, await shapedChanges(ctx, event.data.changes));
  project._search = await projectSearch(ctx, project);
  project.updated_at = event.data.at;
}

/** An edit of the project itself, other than its creation or revision, to the page's own copy of it. */
function applyOwnEdit(event: Recorded<Exclude<OwnEditEvent, { type: 'ProjectCreated' | 'ProjectRevised' }>>, project: ProjectDoc): void {
  switch (event.type) {
    case 'ProjectPublished':
      project.published = true;
      break;
    case 'ProjectUnpublished':
      project.published = false;
      break;
    case 'ProjectStatusChanged':
      project.status = event.data.status;
      break;
    case 'ProjectDeleted':
      project.deleted = true;
      project.published = false;
      break;
    default:
      return assertNever(event);
  }
  project.updated_at = event.data.at;
}

/**
 * Related edits change only the list conveniences, in the page's own copy of the project (the most frequent
 * events of a replay, for a document of some forty fields); they never move updated_at.
 */
function applyCollectionEdit(event: Recorded<CollectionEvent>, project: ProjectDoc): void {
  const gallery = project._gallery;
  switch (event.type) {
    case 'FloorPlanAdded':
      project.floor_plan_count += 1;
      return;
    case 'FloorPlanRemoved':
      project.floor_plan_count = Math.max(0, project.floor_plan_count - 1);
      return;
    case 'PaymentPlanAdded':
      project.payment_plan_count += 1;
      return;
    case 'PaymentPlanRemoved':
      project.payment_plan_count = Math.max(0, project.payment_plan_count - 1);
      return;
    case 'GalleryPictureAdded': {
      const { media_id, position, image } = event.data.picture;
      removeFirst(gallery, (entry) => entry.media_id === media_id);
      insertSorted(gallery, { media_id, position, key: image.key }, galleryOrder);
      break;
    }
    case 'GalleryPictureRevised': {
      const { media_id, changes } = event.data;
      if (changes.position === undefined) return;
      const index = gallery.findIndex((entry) => entry.media_id === media_id);
      if (index === -1) return;
      const [revised] = gallery.splice(index, 1);
      insertSorted(gallery, { ...revised!, position: changes.position }, galleryOrder);
      break;
    }
    case 'GalleryPictureReplaced': {
      const index = gallery.findIndex((entry) => entry.media_id === event.data.media_id);
      if (index !== -1) gallery[index] = { ...gallery[index]!, key: event.data.image.key };
      break;
    }
    case 'GalleryPictureRemoved':
      removeFirst(gallery, (entry) => entry.media_id === event.data.media_id);
      break;
    default:
      return assertNever(event);
  }
  galleryChanged(project);
}

async function applyUnitTypeEvent(event: Recorded<UnitTypeEvent>, ctx: ProjectionContext): Promise<void> {
  const id = event.data.unit_type_id;
  const position = positionNumber(event);
  const current = await ctx.get<UnitTypeDoc>(PROJECTS_UNIT_TYPES, id);
  if (!alreadyApplied(current, event)) {
    switch (event.type) {
      case 'UnitTypeCreated': {
        const { name, kind, bedrooms, sort_order } = event.data;
        ctx.put(PROJECTS_UNIT_TYPES, { _id: id, name, kind, bedrooms, sort_order, _position: position } satisfies UnitTypeDoc);
        break;
      }
      case 'UnitTypeRevised':
        if (current) ctx.put(PROJECTS_UNIT_TYPES, { ...current, ...event.data.changes, _position: position });
        break;
      default:
        return assertNever(event);
    }
  }
  // Projects can only name unit types that exist, so only a revision reaches projects already written.
  if (event.type !== 'UnitTypeRevised') return;
  for (const project of await ctx.find<ProjectDoc>(PROJECTS, { bedrooms: String(id) })) {
    if (alreadyApplied(project, event)) continue;
    ctx.put(PROJECTS, withFields(project, { ...(await bedroomFields(ctx, project.bedrooms.map(Number))), _position: position }));
  }
}

async function applyNamedReferenceEvent(event: Recorded<NamedReferenceEvent>, ctx: ProjectionContext): Promise<void> {
  let collection: string;
  let referenceField: 'developer_id' | 'community_id';
  let id: number;
  let name: string | undefined;
  switch (event.type) {
    case 'DeveloperCreated':
    case 'DeveloperRevised':
      collection = PROJECTS_DEVELOPERS;
      referenceField = 'developer_id';
      id = event.data.developer_id;
      name = event.type === 'DeveloperCreated' ? event.data.name : event.data.changes.name;
      break;
    case 'CommunityCreated':
    case 'CommunityRevised':
      collection = PROJECTS_COMMUNITIES;
      referenceField = 'community_id';
      id = event.data.community_id;
      name = event.type === 'CommunityCreated' ? event.data.name : event.data.changes.name;
      break;
    default:
      return assertNever(event);
  }
  if (name === undefined) return;
  const position = positionNumber(event);
  const current = await ctx.get<NameDoc>(collection, id);
  if (!alreadyApplied(current, event)) ctx.put(collection, { _id: id, name, _position: position } satisfies NameDoc);
  if (event.type === 'DeveloperCreated' || event.type === 'CommunityCreated') return;
  // A rename reaches the search text of every project that names the developer or community; each is
  // checked on its own, since a write interrupted half-way may have stored some of them already.
  for (const project of await ctx.find<ProjectDoc>(PROJECTS, { [referenceField]: id })) {
    if (alreadyApplied(project, event)) continue;
    ctx.put(PROJECTS, withFields(project, { _search: await projectSearch(ctx, project), _position: position }));
  }
}

/**
 * An order of the public project list (GET /projects sorts by these fields, each way), as an index MongoDB
 * walks a page of published projects in, instead of sorting every published project for each page: the
 * list's `published` equality first, `_id` last as every read-store sort ends (ascending either way, so a
 * descending sort needs its own index). See docs/read-indexes.md.
 */
const publishedListOrder = (field: 'updated_at' | 'starting_from' | 'name', direction: SortDirection): IndexSpec => ({
  keys: [
    ['published', 1],
    [field, direction],
    ['_id', 1],
  ],
});

type EditEvent = Recorded<OwnEditEvent | CollectionEvent>;
/** The edits applied without waiting for anything but the project itself. */
type PlainEditEvent = Recorded<Exclude<OwnEditEvent | CollectionEvent, { type: 'ProjectCreated' | 'ProjectRevised' }>>;

const ownEditTypes: ReadonlySet<string> = new Set(projectOwnEditEventTypes);
const isOwnEdit = (event: PlainEditEvent): event is Recorded<Exclude<OwnEditEvent, { type: 'ProjectCreated' | 'ProjectRevised' }>> =>
  ownEditTypes.has(event.type);

function applyPlainEdit(event: PlainEditEvent, project: ProjectDoc): void {
  if (isOwnEdit(event)) applyOwnEdit(event, project);
  else applyCollectionEdit(event, project);
  project._position = positionNumber(event);
}

/**
 * Applies the edit without waiting, when it needs nothing but the project and the unit of work holds that
 * (see ProjectionContext.peek), as it does for nearly every event of a replay: whether it did.
 */
function appliedAtOnce(event: EditEvent, ctx: ProjectionContext): boolean {
  if (event.type === 'ProjectCreated' || event.type === 'ProjectRevised') return false;
  const id = event.data.project_id;
  const current = ctx.peek<ProjectDoc>(PROJECTS, id);
  if (current === undefined) return false;
  // The document was just found, so its draft is made at once.
  if (current && !alreadyApplied(current, event)) applyPlainEdit(event, ctx.draftKnown(PROJECTS, id, ownProject)!);
  return true;
}

async function applyProjectEdit(event: EditEvent, ctx: ProjectionContext): Promise<void> {
  const id = event.data.project_id;
  const current = await ctx.get<ProjectDoc>(PROJECTS, id);
  if (alreadyApplied(current, event)) return;
  if (event.type === 'ProjectCreated') {
    ctx.put(PROJECTS, await createdProject(event, ctx));
    return;
  }
  if (!current) return;
  const project = (await ctx.draft(PROJECTS, id, ownProject))!;
  if (event.type !== 'ProjectRevised') {
    applyPlainEdit(event, project);
    return;
  }
  await reviseProject(event, project, ctx);
  project._position = positionNumber(event);
}

/**
 * Projects in summary and detail representation (GET /projects, /projects/{id-or-slug}, detail batches).
 * Reference names and unit types come from this projection's own collections, so a replay of it alone
 * is complete.
 */
export const projectsProjection: Projection<ProjectsEvent> = {
  name: 'projects',
  // 3: map embeds are stored in canonical form, and those that are not acceptable as null.
  version: 3,
  collections: [PROJECTS, PROJECTS_UNIT_TYPES, PROJECTS_DEVELOPERS, PROJECTS_COMMUNITIES],
  indexes: {
    [PROJECTS]: [
      { keys: [['slug', 1]], unique: true },
      { keys: [['developer_id', 1]] },
      { keys: [['community_id', 1]] },
      { keys: [['state_id', 1]] },
      { keys: [['nature', 1]] },
      {
        keys: [
          ['published', 1],
          ['deleted', 1],
        ],
      },
      { keys: [['starting_from', 1]] },
      { keys: [['updated_at', 1]] },
      { keys: [['name', 1]] },
      { keys: [['bedrooms', 1]] },
      ...(['updated_at', 'starting_from', 'name'] as const).flatMap((field) => [
        publishedListOrder(field, 1),
        publishedListOrder(field, -1),
      ]),
    ],
  },
  handles: [
    ...projectOwnEditEventTypes,
    ...projectCollectionEventTypes,
    ...everyEventType<UnitTypeEvent | NamedReferenceEvent>({
      UnitTypeCreated: true,
      UnitTypeRevised: true,
      DeveloperCreated: true,
      DeveloperRevised: true,
      CommunityCreated: true,
      CommunityRevised: true,
    }),
  ],
  apply(event, ctx) {
    switch (event.type) {
      case 'UnitTypeCreated':
      case 'UnitTypeRevised':
        return applyUnitTypeEvent(event, ctx);
      case 'DeveloperCreated':
      case 'DeveloperRevised':
      case 'CommunityCreated':
      case 'CommunityRevised':
        return applyNamedReferenceEvent(event, ctx);
      default:
        try {
          return appliedAtOnce(event, ctx) ? APPLIED : applyProjectEdit(event, ctx);
        } catch (error) {
          return Promise.reject(error);
        }
    }
  },
};
