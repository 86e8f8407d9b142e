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
import { alreadyApplied, positionNumber, type PositionedDoc, type Projection, type Recorded } from '../src/projectionEngine/projection.js';

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

function replaced<Item extends { id: number }>(items: readonly Item[], id: number, change: (item: Item) => Item): Item[] {
  return items.map((item) => (item.id === id ? change(item) : item));
}

/** The fields an event changes; the caller copies the document once, with them (see withFields). */
function changedResources(
  current: ProjectResourcesDoc,
  event: Recorded<Exclude<ResourceEvent, { type: 'ProjectCreated' }>>,
): Partial<ProjectResourcesDoc> {
  switch (event.type) {
    case 'FloorPlanAdded': {
      const { floor_plan_id, title, unit_type_id, area, price, image } = event.data.floor_plan;
      const item: FloorPlanItem = { id: floor_plan_id, title, unit_type_id, area: roundArea(area), price, image };
      const others = current.floor_plans.filter((plan) => plan.id !== floor_plan_id);
      return { floor_plans: [...others, item].sort(byId) };
    }
    case 'FloorPlanRevised': {
      const { area, ...changes } = event.data.changes;
      return {
        floor_plans: replaced(current.floor_plans, event.data.floor_plan_id, (plan) => ({
          ...plan,
          ...changes,
          ...(area === undefined ? {} : { area: roundArea(area) }),
        })),
      };
    }
    case 'FloorPlanImageReplaced':
      return {
        floor_plans: replaced(current.floor_plans, event.data.floor_plan_id, (plan) => ({ ...plan, image: event.data.image })),
      };
    case 'FloorPlanRemoved':
      return { floor_plans: current.floor_plans.filter((plan) => plan.id !== event.data.floor_plan_id) };
    case 'PaymentPlanAdded': {
      const { payment_plan_id, name, milestones } = event.data.payment_plan;
      const others = current.payment_plans.filter((plan) => plan.id !== payment_plan_id);
      return { payment_plans: [...others, { id: payment_plan_id, name, milestones }].sort(byId) };
    }
    case 'PaymentPlanRevised':
      return {
        payment_plans: replaced(current.payment_plans, event.data.payment_plan_id, (plan) => ({ ...plan, ...event.data.changes })),
      };
    case 'PaymentPlanRemoved':
      return { payment_plans: current.payment_plans.filter((plan) => plan.id !== event.data.payment_plan_id) };
    case 'GalleryPictureAdded': {
      const { media_id, caption, position, image } = event.data.picture;
      const others = current.media.items.filter((item) => item.id !== media_id);
      return { media: { ...current.media, items: [...others, { id: media_id, caption, position, image }].sort(byPositionThenId) } };
    }
    case 'GalleryPictureRevised': {
      const items = replaced(current.media.items, event.data.media_id, (item) => ({ ...item, ...event.data.changes }));
      return { media: { ...current.media, items: items.sort(byPositionThenId) } };
    }
    case 'GalleryPictureReplaced': {
      const items = replaced(current.media.items, event.data.media_id, (item) => ({ ...item, image: event.data.image }));
      return { media: { ...current.media, items } };
    }
    case 'GalleryPictureRemoved':
      return { media: { ...current.media, items: current.media.items.filter((item) => item.id !== event.data.media_id) } };
    case 'MasterPlanDocumentAttached':
      return { media: { ...current.media, master_plan_document: event.data.document } };
    case 'MasterPlanDocumentRemoved':
      return { media: { ...current.media, master_plan_document: null } };
    case 'VideoSet':
      return { video: event.data.video };
    case 'VideoRemoved':
      return { video: null };
    case 'AmenitiesSet':
      return { amenities: event.data.items };
    case 'NearbyPlacesSet':
      return { nearby: event.data.items };
    case 'PaymentMethodsSet':
      return { payment_methods: event.data.items };
    case 'FaqsSet':
      return { faqs: event.data.items };
    case 'VirtualToursSet':
      return { virtual_tours: event.data.items };
    case 'FloorPlatesSet':
      return { floor_plates: event.data.items };
    case 'RelatedProjectsSet':
      return { related_project_ids: event.data.project_ids };
    case 'BrochureAttached':
      return { brochure: event.data.brochure };
    case 'BrochureRemoved':
      return { brochure: null };
    default:
      return assertNever(event);
  }
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
  async apply(event, ctx) {
    const projectId = event.data.project_id;
    const current = await ctx.get<ProjectResourcesDoc>(PROJECT_RESOURCES, projectId);
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
    if (current) ctx.put(PROJECT_RESOURCES, withFields(current, { ...changedResources(current, event), _position: position }));
  },
};
