import { assertNever } from '../src/domain/decider.js';
import { changeFeedRelatedEventTypes, projectOwnEditEventTypes, type ProjectEventOf } from '../src/catalogue/project.js';
import {
  alreadyApplied,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type ProjectionContext,
  type Recorded,
} from '../src/projectionEngine/projection.js';

export const PROJECT_CHANGES = 'project_changes';
/** Whether and where each project is published, as far as the change feed needs it; read by no query. */
export const PROJECT_CHANGES_PUBLICATION = 'project_changes_publication';

type OwnEditEventType = (typeof projectOwnEditEventTypes)[number];
type RelatedEditEventType = (typeof changeFeedRelatedEventTypes)[number];
type ReportedEvent = ProjectEventOf<OwnEditEventType | RelatedEditEventType>;
type OwnEditEvent = ProjectEventOf<OwnEditEventType>;

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
  /**
   * The community the project was published in until this change took it out of there (unpublished or
   * deleted while published, or moved to another community while published); null for every other change.
   * A client that could see the project there learns of its removal; no other client does.
   */
  withdrawn_from_community_id: number | null;
};

interface Publication {
  published: boolean;
  community_id: number;
}

interface PublicationDoc extends Publication, PositionedDoc {
  _id: number;
}

const ownEditTypes: ReadonlySet<string> = new Set(projectOwnEditEventTypes);
const isOwnEdit = (event: Recorded<ReportedEvent>): event is Recorded<OwnEditEvent> => ownEditTypes.has(event.type);

/** Own edits that may publish, withdraw or move a project; the others leave its publication as it was. */
const mayMovePublication = (event: Recorded<OwnEditEvent>): boolean =>
  event.type !== 'ProjectStatusChanged' && !(event.type === 'ProjectRevised' && event.data.changes.community_id === undefined);

/** The project's publication after the event; null for an event of a project this projection never saw created. */
function publicationAfter(event: Recorded<OwnEditEvent>, current: Publication | null): Publication | null {
  if (event.type === 'ProjectCreated') return { published: false, community_id: event.data.community_id };
  if (!current) return null;
  switch (event.type) {
    case 'ProjectRevised':
      return { published: current.published, community_id: event.data.changes.community_id ?? current.community_id };
    case 'ProjectPublished':
      return { published: true, community_id: current.community_id };
    case 'ProjectUnpublished':
    case 'ProjectDeleted':
      return { published: false, community_id: current.community_id };
    case 'ProjectStatusChanged':
      return current;
    default:
      return assertNever(event);
  }
}

/**
 * An own edit's entry and, when the edit may change it, the project's publication after it. A publication
 * already stamped with this event or a later one means the event was applied before, and so was its entry:
 * the entry is put first, and a batch is written in the order of last modification (UnitOfWork).
 */
async function applyOwnEdit(event: Recorded<OwnEditEvent>, ctx: ProjectionContext, entry: ProjectChangeDoc): Promise<void> {
  if (!mayMovePublication(event)) {
    ctx.put(PROJECT_CHANGES, entry);
    return;
  }
  const current = await ctx.get<PublicationDoc>(PROJECT_CHANGES_PUBLICATION, event.data.project_id);
  if (alreadyApplied(current, event)) return;
  const next = publicationAfter(event, current);
  const withdrawn = current?.published === true && !(next?.published === true && next.community_id === current.community_id);
  ctx.put(PROJECT_CHANGES, { ...entry, withdrawn_from_community_id: withdrawn ? current.community_id : null } satisfies ProjectChangeDoc);
  if (next) {
    ctx.put(PROJECT_CHANGES_PUBLICATION, { _id: entry.project_id, ...next, _position: entry.position } satisfies PublicationDoc);
  }
}

/**
 * The change feed's index (GET /projects/changes): every reported change of a project in log order, read by
 * `position` after a cursor, or by `changed_at` then `position` after an updated_since moment. Entries are
 * keyed by log position and written with the checkpoint of their batch, so a reader that resumes after
 * position P, reading no further than the checkpoint, sees exactly the changes projected after P. Which events are reported is decided in
 * src/catalogue/project.ts (changeFeedTreatment). Each entry is a pure set keyed by position, so applying
 * an event again rewrites the same document; the publication is stamped with its last event's position.
 * Each entry says whether it withdrew the project from where it was published, so the query decides who may
 * learn of a removal from the entries it reads anyway, without reading history.
 */
export const changeFeedProjection: Projection<ReportedEvent> = {
  name: 'changeFeed',
  // 3: entries carry withdrawn_from_community_id, and the publication of each project is kept.
  version: 3,
  collections: [PROJECT_CHANGES, PROJECT_CHANGES_PUBLICATION],
  indexes: {
    [PROJECT_CHANGES]: [
      {
        keys: [
          ['changed_at', 1],
          ['position', 1],
        ],
      },
      // With the `_id` every sort ends in, so MongoDB walks it either way: cursor pages and their last entry.
      {
        keys: [
          ['position', 1],
          ['_id', 1],
        ],
      },
      { keys: [['project_id', 1]] },
    ],
  },
  handles: [...projectOwnEditEventTypes, ...changeFeedRelatedEventTypes],
  async apply(event, ctx) {
    const position = positionNumber(event);
    const entry: ProjectChangeDoc = {
      _id: String(position),
      position,
      project_id: event.data.project_id,
      changed_at: event.data.at,
      event_type: event.type,
      kind: isOwnEdit(event) ? 'project' : relatedCollectionOf[event.type],
      withdrawn_from_community_id: null,
    };
    if (isOwnEdit(event)) return applyOwnEdit(event, ctx, entry);
    ctx.put(PROJECT_CHANGES, entry);
  },
};
