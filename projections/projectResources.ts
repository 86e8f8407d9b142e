import { assertNever } from '../src/domain/decider.js';
import type { ImageRef } from '../src/catalogue/imageRef.js';
import {
  changeFeedRelatedEventTypes,
  changeFeedSilentEventTypes,
  type Amenity,
  type Faq,
  type FloorPlate,
  type Milestone,
  type NearbyPlace,
  type PaymentMethod,
  type PdfDocument,
  type ProjectEventOf,
  type Video,
  type VirtualTour,
} from '../src/catalogue/project.js';
import { roundArea } from './shared/apiShape.js';
import { withFields } from '../src/projectionEngine/docCopy.js';
import { insertSorted, removeFirst } from './shared/sortedItems.js';
import {
  alreadyApplied,
  APPLIED,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type ProjectionContext,
  type Recorded,
} from '../src/projectionEngine/projection.js';

export const PROJECT_RESOURCES = 'project_resources';

export interface FloorPlanItem {
  id: number;
  title: string;
  unit_type_id: number | null;
  /** Rounded to a whole number, keeping its type. */
  area: number | string | null;
  price: number | null;
  /** The stored picture; the query side turns it into image addresses. */
  image: ImageRef;
}

export interface PaymentPlanItem {
  id: number;
  name: string;
  milestones: Milestone[];
}

export interface MediaItem {
  /** The media id of the picture's image addresses. */
  id: number;
  caption: string | null;
  position: number;
  image: ImageRef;
}

/** Every related collection of one project, in API shape (items ordered as the API lists them). */
export interface ProjectResourcesDoc extends PositionedDoc {
  _id: number;
  project_id: number;
  /** By id (the order they were added). */
  floor_plans: FloorPlanItem[];
  /** By id. */
  payment_plans: PaymentPlanItem[];
  /** Items by position, then id. */
  media: { items: MediaItem[]; master_plan_document: PdfDocument | null };
  video: Video | null;
  amenities: Amenity[];
  nearby: NearbyPlace[];
  payment_methods: PaymentMethod[];
  faqs: Faq[];
  virtual_tours: VirtualTour[];
  floor_plates: FloorPlate[];
  brochure: PdfDocument | null;
  related_project_ids: number[];
}

type ResourceEvent = ProjectEventOf<
  'ProjectCreated' | (typeof changeFeedRelatedEventTypes)[number] | (typeof changeFeedSilentEventTypes)[number]
>;

const byId = <Item extends { id: number }>(a: Item, b: Item) => a.id - b.id;
const byPositionThenId = (a: MediaItem, b: MediaItem) => a.position - b.position || a.id - b.id;

/**
 * The unit of work's own copy of a stored document, which the page's events change in place (see
 * ProjectionContext.draft): below the top level only `media` and the arrays of floor plans, payment plans and
 * media items are changed in place, and their items are replaced rather than changed.
 */
const ownResources = (stored: ProjectResourcesDoc | null): ProjectResourcesDoc | null =>
  stored &&
  withFields(stored, {
    floor_plans: stored.floor_plans.slice(),
    payment_plans: stored.payment_plans.slice(),
    media: withFields(stored.media, { items: stored.media.items.slice() }),
  });

/** Replaces the item with the id, if any, by `change` of it. */
function replaceItem<Item extends { id: number }>(items: Item[], id: number, change: (item: Item) => Item): void {
  const index = items.findIndex((item) => item.id === id);
  if (index !== -1) items[index] = change(items[index]!);
}

/** Applies an event to the page's own copy of a project's resources (see ownResources). */
function changeResources(doc: ProjectResourcesDoc, event: Recorded<Exclude<ResourceEvent, { type: 'ProjectCreated' }>>): void {
  switch (event.type) {
    case 'FloorPlanAdded': {
      const { floor_plan_id, title, unit_type_id, area, price, image } = event.data.floor_plan;
      removeFirst(doc.floor_plans, (plan) => plan.id === floor_plan_id);
      insertSorted(doc.floor_plans, { id: floor_plan_id, title, unit_type_id, area: roundArea(area), price, image }, byId);
      return;
    }
    case 'FloorPlanRevised': {
      const { area, ...changes } = event.data.changes;
      replaceItem(doc.floor_plans, event.data.floor_plan_id, (plan) => ({
        ...plan,
        ...changes,
        ...(area === undefined ? {} : { area: roundArea(area) }),
      }));
      return;
    }
    case 'FloorPlanImageReplaced':
      replaceItem(doc.floor_plans, event.data.floor_plan_id, (plan) => ({ ...plan, image: event.data.image }));
      return;
    case 'FloorPlanRemoved':
      removeFirst(doc.floor_plans, (plan) => plan.id === event.data.floor_plan_id);
      return;
    case 'PaymentPlanAdded': {
      const { payment_plan_id, name, milestones } = event.data.payment_plan;
      removeFirst(doc.payment_plans, (plan) => plan.id === payment_plan_id);
      insertSorted(doc.payment_plans, { id: payment_plan_id, name, milestones }, byId);
      return;
    }
    case 'PaymentPlanRevised':
      replaceItem(doc.payment_plans, event.data.payment_plan_id, (plan) => ({ ...plan, ...event.data.changes }));
      return;
    case 'PaymentPlanRemoved':
      removeFirst(doc.payment_plans, (plan) => plan.id === event.data.payment_plan_id);
      return;
    case 'GalleryPictureAdded': {
      const { media_id, caption, position, image } = event.data.picture;
      removeFirst(doc.media.items, (item) => item.id === media_id);
      insertSorted(doc.media.items, { id: media_id, caption, position, image }, byPositionThenId);
      return;
    }
    case 'GalleryPictureRevised': {
      const { items } = doc.media;
      const index = items.findIndex((item) => item.id === event.data.media_id);
      if (index === -1) return;
      const [revised] = items.splice(index, 1);
      insertSorted(items, { ...revised!, ...event.data.changes }, byPositionThenId);
      return;
    }
    case 'GalleryPictureReplaced':
      replaceItem(doc.media.items, event.data.media_id, (item) => ({ ...item, image: event.data.image }));
      return;
    case 'GalleryPictureRemoved':
      removeFirst(doc.media.items, (item) => item.id === event.data.media_id);
      return;
    case 'MasterPlanDocumentAttached':
      doc.media.master_plan_document = event.data.document;
      return;
    case 'MasterPlanDocumentRemoved':
      doc.media.master_plan_document = null;
      return;
    case 'VideoSet':
      doc.video = event.data.video;
      return;
    case 'VideoRemoved':
      doc.video = null;
      return;
    case 'AmenitiesSet':
      doc.amenities = event.data.items;
      return;
    case 'NearbyPlacesSet':
      doc.nearby = event.data.items;
      return;
    case 'PaymentMethodsSet':
      doc.payment_methods = event.data.items;
      return;
    case 'FaqsSet':
      doc.faqs = event.data.items;
      return;
    case 'VirtualToursSet':
      doc.virtual_tours = event.data.items;
      return;
    case 'FloorPlatesSet':
      doc.floor_plates = event.data.items;
      return;
    case 'RelatedProjectsSet':
      doc.related_project_ids = event.data.project_ids;
      return;
    case 'BrochureAttached':
      doc.brochure = event.data.brochure;
      return;
    case 'BrochureRemoved':
      doc.brochure = null;
      return;
    default:
      return assertNever(event);
  }
}

/** Applies the event to the project's document as `get` or `peek` has just answered it. */
function applyTo(event: Recorded<ResourceEvent>, current: ProjectResourcesDoc | null, ctx: ProjectionContext): void {
  const projectId = event.data.project_id;
  if (alreadyApplied(current, event)) return;
  const position = positionNumber(event);
  if (event.type === 'ProjectCreated') {
    ctx.put(PROJECT_RESOURCES, {
      _id: projectId,
      project_id: projectId,
      floor_plans: [],
      payment_plans: [],
      media: { items: [], master_plan_document: null },
      video: null,
      amenities: [],
      nearby: [],
      payment_methods: [],
      faqs: [],
      virtual_tours: [],
      floor_plates: [],
      brochure: null,
      related_project_ids: [],
      _position: position,
    } satisfies ProjectResourcesDoc);
    return;
  }
  if (!current) return;
  const doc = ctx.draftKnown(PROJECT_RESOURCES, projectId, ownResources)!;
  changeResources(doc, event);
  doc._position = position;
}

async function applyAfterGet(event: Recorded<ResourceEvent>, ctx: ProjectionContext): Promise<void> {
  applyTo(event, await ctx.get<ProjectResourcesDoc>(PROJECT_RESOURCES, event.data.project_id), ctx);
}

/**
 * Every project's related collections (the sub-resource endpoints and GET /projects/resources), one
 * document per project.
 */
export const projectResourcesProjection: Projection<ResourceEvent> = {
  name: 'projectResources',
  version: 2,
  collections: [PROJECT_RESOURCES],
  indexes: {},
  handles: ['ProjectCreated', ...changeFeedRelatedEventTypes, ...changeFeedSilentEventTypes],
  apply(event, ctx) {
    try {
      const current = ctx.peek<ProjectResourcesDoc>(PROJECT_RESOURCES, event.data.project_id);
      if (current === undefined) return applyAfterGet(event, ctx);
      applyTo(event, current, ctx);
      return APPLIED;
    } catch (error) {
      return Promise.reject(error);
    }
  },
};
