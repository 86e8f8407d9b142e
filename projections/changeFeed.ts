import {
  changeFeedRelatedEventTypes,
  projectOwnEditEventTypes,
  type ProjectEventOf,
} from '../src/catalogue/project.js';
import { positionNumber, type Projection } from './projection.js';

export const PROJECT_CHANGES = 'project_changes';

type OwnEditEventType = (typeof projectOwnEditEventTypes)[number];
type RelatedEditEventType = (typeof changeFeedRelatedEventTypes)[number];
type ReportedEvent = ProjectEventOf<OwnEditEventType | RelatedEditEventType>;

/** Which sub-resource a related edit changed, named as the API names it. */
const relatedCollectionOf: Record<RelatedEditEventType, ChangeKind> = {
  PaymentPlanAdded: 'payment_plans',
  PaymentPlanRevised: 'payment_plans',
  PaymentPlanRemoved: 'payment_plans',
  GalleryPictureAdded: 'media',
  GalleryPictureRevised: 'media',
  GalleryPictureRemoved: 'media',
  FloorPlanAdded: 'floor_plans',
  FloorPlanRevised: 'floor_plans',
  FloorPlanRemoved: 'floor_plans',
  AmenitiesSet: 'amenities',
  FaqsSet: 'faqs',
};

export type ChangeKind = 'project' | 'payment_plans' | 'media' | 'floor_plans' | 'amenities' | 'faqs';

export type ProjectChangeDoc = {
  /** The event's global position as a decimal string: one entry per reported event, written once. */
  _id: string;
  position: number;
  project_id: number;
  /** When the change was made (the event's `at`); related edits do not move the project's updated_at. */
  changed_at: string;
  event_type: ReportedEvent['type'];
  kind: ChangeKind;
};

const ownEditTypes: ReadonlySet<string> = new Set(projectOwnEditEventTypes);
const isOwnEdit = (type: ReportedEvent['type']): type is OwnEditEventType => ownEditTypes.has(type);

/**
 * The change feed's index (GET /projects/changes?updated_since=): every reported change of a project in
 * log order, read by `changed_at` then `position`. Which events are reported is decided in
 * src/catalogue/project.ts (changeFeedTreatment). Each entry is a pure set keyed by position, so applying
 * an event again rewrites the same document.
 */
export const changeFeedProjection: Projection<ReportedEvent> = {
  name: 'changeFeed',
  version: 2,
  collections: [PROJECT_CHANGES],
  indexes: {
    [PROJECT_CHANGES]: [{ keys: [['changed_at', 1], ['position', 1]] }, { keys: [['project_id', 1]] }],
  },
  handles: [...projectOwnEditEventTypes, ...changeFeedRelatedEventTypes],
  async apply(event, ctx) {
    const { type } = event;
    const kind = isOwnEdit(type) ? 'project' : relatedCollectionOf[type];
    const position = positionNumber(event);
    ctx.put(PROJECT_CHANGES, {
      _id: String(position),
      position,
      project_id: event.data.project_id,
      changed_at: event.data.at,
      event_type: event.type,
      kind,
    } satisfies ProjectChangeDoc);
  },
};
