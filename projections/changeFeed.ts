import { assertNever } from '../src/domain/decider.js';
import { changeFeedRelatedEventTypes, projectOwnEditEventTypes, type ProjectEventOf } from '../src/catalogue/project.js';
import { withFields } from '../src/projectionEngine/docCopy.js';
import {
  alreadyApplied,
  APPLIED,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type ProjectionContext,
  type Recorded,
} from '../src/projectionEngine/projection.js';
import { sequenceId } from '../src/readStore/readStore.js';

export const PROJECT_CHANGES = 'project_changes';
/** The `_id` of the entry of the reported event at `position`: its sequence id, so cursor pages read sequences. */
export const projectChangeId = (position: number): string => sequenceId(position);
/**
 * One document per project: what the change feed's updated_since pages need of its whole history (latest
 * change per kind, publication, removals), so a page is read from an index instead of every entry.
 */
export const PROJECT_CHANGE_SUMMARIES = 'project_change_summaries';

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
  /**
   * projectChangeId(position): one entry per reported event, written once; cursor pages read the entries after
   * a position with readSequence, so they walk the `_id` and no other index.
   */
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

/** The latest changed_at of each kind of change. */
export type ChangeTimes = Partial<Record<ChangeKind, string>>;

/** A change that took the project out of a community where it was published. */
export interface Withdrawal {
  community_id: number;
  position: number;
  /** The latest changed_at of each kind up to and including this change: what a report of the removal says. */
  kinds: ChangeTimes;
  /** The latest of `kinds`. */
  changed_at: string;
}

export interface ProjectChangeSummaryDoc extends Publication, PositionedDoc {
  _id: number;
  kinds: ChangeTimes;
  /** The latest of `kinds`. */
  changed_at: string;
  /** The latest removal from each community, in log order: a client learns of the last one it could see. */
  withdrawals: Withdrawal[];
  /**
   * When the project last changed for a client that sees the community in `feed_community_id`: while
   * published, its latest change; otherwise its latest removal's changed_at; null if it was never published.
   * The sort key of updated_since pages, which never moves back, so an edit moves a project towards page 1.
   */
  feed_at: string | null;
  /** While published, its community; otherwise the one its latest removal took it out of; null if never published. */
  feed_community_id: number | null;
  /** The other communities it was removed from: a client seeing only those learns of a removal nothing else tells it. */
  left_community_ids: number[];
}

const ownEditTypes: ReadonlySet<string> = new Set(projectOwnEditEventTypes);
const isOwnEdit = (event: Recorded<ReportedEvent>): event is Recorded<OwnEditEvent> => ownEditTypes.has(event.type);

/** The project's publication after the event; null for an event of a project this projection never saw created. */
function publicationAfter(event: Recorded<ReportedEvent>, current: Publication | null): Publication | null {
  if (event.type === 'ProjectCreated') return { published: false, community_id: event.data.community_id };
  if (!current || !isOwnEdit(event)) return current;
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

const later = (left: string | undefined, right: string): string => (left !== undefined && left > right ? left : right);

/**
 * The feed fields that follow from the publication and the removals. `left_community_ids` follows from the
 * removals and the feed's community only, so it is listed again only when one of them changed: most events
 * change neither, and a list made per event was garbage at once.
 */
function placeInFeed(summary: ProjectChangeSummaryDoc, withdrawn: boolean): void {
  const lastWithdrawal = summary.withdrawals.at(-1);
  const feedCommunityId = summary.published ? summary.community_id : (lastWithdrawal?.community_id ?? null);
  summary.feed_at = summary.published ? summary.changed_at : (lastWithdrawal?.changed_at ?? null);
  if (!withdrawn && feedCommunityId === summary.feed_community_id) return;
  summary.feed_community_id = feedCommunityId;
  summary.left_community_ids = summary.withdrawals
    .map((withdrawal) => withdrawal.community_id)
    .filter((communityId) => communityId !== feedCommunityId);
}

/** The summary as changed by an event not applied to it yet; `withdrawnFrom` is the community it left, if any. */
function changeSummary(
  summary: ProjectChangeSummaryDoc,
  entry: ProjectChangeDoc,
  publication: Publication,
  withdrawnFrom: number | null,
): void {
  summary.published = publication.published;
  summary.community_id = publication.community_id;
  summary.kinds[entry.kind] = later(summary.kinds[entry.kind], entry.changed_at);
  summary.changed_at = later(summary.changed_at, entry.changed_at);
  if (withdrawnFrom !== null) {
    summary.withdrawals = [
      ...summary.withdrawals.filter((withdrawal) => withdrawal.community_id !== withdrawnFrom),
      { community_id: withdrawnFrom, position: entry.position, kinds: { ...summary.kinds }, changed_at: summary.changed_at },
    ];
  }
  summary._position = entry.position;
  placeInFeed(summary, withdrawnFrom !== null);
}

/**
 * A copy of the stored summary that the unit of work may change in place (see ProjectionContext.draft):
 * changeSummary writes into `kinds` and replaces the arrays, which the copy therefore shares.
 */
const ownCopy = (stored: ProjectChangeSummaryDoc | null): ProjectChangeSummaryDoc | null =>
  stored && withFields(stored, { kinds: { ...stored.kinds } });

/** The summary of a project's first reported event, before changeSummary applies it. */
function firstSummary(projectId: number, position: number, publication: Publication, changedAt: string): ProjectChangeSummaryDoc {
  return {
    _id: projectId,
    _position: position,
    published: publication.published,
    community_id: publication.community_id,
    kinds: {},
    changed_at: changedAt,
    withdrawals: [],
    feed_at: null,
    feed_community_id: null,
    left_community_ids: [],
  };
}

/**
 * Applies the event given the project's summary as it stands (null before its first reported event). The
 * summary was just answered by peek or get, so its draft is made at once (see ProjectionContext.draftKnown).
 */
function applyTo(event: Recorded<ReportedEvent>, current: ProjectChangeSummaryDoc | null, ctx: ProjectionContext): void {
  if (alreadyApplied(current, event)) return;
  const position = positionNumber(event);
  const projectId = event.data.project_id;
  const publication = publicationAfter(event, current);
  const withdrawnFrom =
    current?.published === true && !(publication?.published === true && publication.community_id === current.community_id)
      ? current.community_id
      : null;
  const entry: ProjectChangeDoc = {
    _id: projectChangeId(position),
    position,
    project_id: projectId,
    changed_at: event.data.at,
    event_type: event.type,
    kind: isOwnEdit(event) ? 'project' : relatedCollectionOf[event.type],
    withdrawn_from_community_id: withdrawnFrom,
  };
  ctx.put(PROJECT_CHANGES, entry);
  if (!publication) return;
  // The stored summary's copy is made by a function made once, not by a closure per event.
  const summary = current
    ? ctx.draftKnown<ProjectChangeSummaryDoc>(PROJECT_CHANGE_SUMMARIES, projectId, ownCopy)
    : ctx.draftKnown<ProjectChangeSummaryDoc>(PROJECT_CHANGE_SUMMARIES, projectId, () =>
        firstSummary(projectId, position, publication, entry.changed_at),
      );
  changeSummary(summary!, entry, publication, withdrawnFrom);
}

/** The event once the unit of work has read the project's summary from the store. */
async function applyAfterReading(event: Recorded<ReportedEvent>, ctx: ProjectionContext): Promise<void> {
  applyTo(event, await ctx.get<ProjectChangeSummaryDoc>(PROJECT_CHANGE_SUMMARIES, event.data.project_id), ctx);
}

/**
 * The change feed's index (GET /projects/changes) in two shapes. The entries: every reported change of a
 * project in log order, read as sequence pages after a cursor's position; they are keyed by log position and
 * written with the checkpoint of their batch, so a reader that resumes after position P, reading no further
 * than the checkpoint, sees exactly the changes projected after P. The summaries: one per project, read by
 * updated_since pages through the indexes below, newest first, at a cost that does not grow with the catalogue.
 * Which events are reported is decided in src/catalogue/project.ts (changeFeedTreatment).
 *
 * Each entry says whether it withdrew the project from where it was published, so a cursor page decides who
 * may learn of a removal from the entries it reads anyway, without reading history. An entry is a pure set
 * keyed by position; the summary is stamped with its last event's position and put after the entry (a batch
 * is written in the order of last modification, UnitOfWork), so a summary already stamped with an event
 * means its entry is stored too, and applying an event again changes nothing.
 */
export const changeFeedProjection: Projection<ReportedEvent> = {
  name: 'changeFeed',
  // 4: a summary per project, with its removals and feed keys, replaces the publication documents.
  // 5: entries keyed by sequenceId, read as sequence pages rather than searched by position.
  version: 5,
  collections: [PROJECT_CHANGES, PROJECT_CHANGE_SUMMARIES],
  indexes: {
    [PROJECT_CHANGE_SUMMARIES]: [
      // updated_since pages of a client without a restriction, walked backwards (newest first).
      {
        keys: [
          ['feed_at', 1],
          ['_id', 1],
        ],
      },
      // A restricted client's: one range per community of the restriction, merged in feed order.
      {
        keys: [
          ['feed_community_id', 1],
          ['feed_at', 1],
          ['_id', 1],
        ],
      },
      // A restricted client's projects that left its communities for others.
      { keys: [['left_community_ids', 1]] },
    ],
  },
  handles: [...projectOwnEditEventTypes, ...changeFeedRelatedEventTypes],
  apply(event, ctx) {
    try {
      const current = ctx.peek<ProjectChangeSummaryDoc>(PROJECT_CHANGE_SUMMARIES, event.data.project_id);
      if (current === undefined) return applyAfterReading(event, ctx);
      applyTo(event, current, ctx);
      return APPLIED;
    } catch (error) {
      return Promise.reject(error);
    }
  },
};
