import { assertNever } from '../../src/domain/decider.js';
import type { CommunityEvent } from '../../src/catalogue/community.js';
import type { DeveloperEvent } from '../../src/catalogue/developer.js';
import { changeFeedTreatment, type ProjectEvent, type ProjectEventType } from '../../src/catalogue/project.js';
import type { RecordedEvent } from '../../src/eventStore/eventStore.js';
import type { WebhookEventType } from '../../src/webhooks/webhook.js';

/**
 * Which catalogue events concern receivers, and as what. Receivers see the catalogue as /v1 shows it to
 * their client, so only published records count, and a project's appearance and disappearance in that view
 * are its creation and deletion:
 *
 * - ProjectPublished: `project.created` (the project appears; also on a later re-publication).
 * - ProjectUnpublished, and ProjectDeleted of a published project: `project.deleted` (it disappears).
 * - ProjectRevised, the related edits the change feed reports (payment plans, gallery, floor plans, amenities,
 *   FAQs) of a published project: `project.updated`. A revision moving a published project to another
 *   community is, per client, `project.updated` when it sees the project in both, `project.created` when only in
 *   the new one, `project.deleted` when only in the old one.
 * - ProjectStatusChanged of a published project: `project.status_changed`.
 * - ProjectCreated (projects start unpublished) and the edits the change feed does not report (image-only
 *   changes, video, brochure, documents, nearby places, payment methods, virtual tours, floor plates, related
 *   projects): nothing.
 * - DeveloperRevised, DeveloperPublished of a published developer: `developer.updated`; the same for
 *   communities and `community.updated`. Unpublishing one sends nothing (there is no public type for it).
 */
export type CatalogueNotice =
  | { subject: 'project'; projectId: number; change: ProjectChange }
  | { subject: 'developer'; developerId: number }
  | { subject: 'community'; communityId: number };

/** What happened to the project, before knowing who sees it. */
export type ProjectChange = 'published' | 'withdrawn' | 'revised' | 'status_changed' | 'related_edit';

type CatalogueEvent = ProjectEvent | DeveloperEvent | CommunityEvent;

const projectEventTypes: ReadonlySet<string> = new Set(Object.keys(changeFeedTreatment));
const developerEventTypes: ReadonlySet<string> = new Set<DeveloperEvent['type']>([
  'DeveloperCreated',
  'DeveloperRevised',
  'DeveloperPublished',
  'DeveloperUnpublished',
]);
const communityEventTypes: ReadonlySet<string> = new Set<CommunityEvent['type']>([
  'CommunityCreated',
  'CommunityRevised',
  'CommunityPublished',
  'CommunityUnpublished',
]);

function isCatalogueEvent(event: RecordedEvent): event is RecordedEvent<CatalogueEvent> {
  return projectEventTypes.has(event.type) || developerEventTypes.has(event.type) || communityEventTypes.has(event.type);
}

/** The notice a stored event gives receivers, or null when it gives none whoever they are. */
export function noticeOf(event: RecordedEvent): CatalogueNotice | null {
  if (!isCatalogueEvent(event)) return null;
  const catalogueEvent = { type: event.type, data: event.data } as CatalogueEvent;
  switch (catalogueEvent.type) {
    case 'DeveloperRevised':
    case 'DeveloperPublished':
      return { subject: 'developer', developerId: catalogueEvent.data.developer_id };
    case 'DeveloperCreated':
    case 'DeveloperUnpublished':
      return null;
    case 'CommunityRevised':
    case 'CommunityPublished':
      return { subject: 'community', communityId: catalogueEvent.data.community_id };
    case 'CommunityCreated':
    case 'CommunityUnpublished':
      return null;
    default: {
      const change = projectChangeOf(catalogueEvent.type);
      return change === null ? null : { subject: 'project', projectId: catalogueEvent.data.project_id, change };
    }
  }
}

function projectChangeOf(type: ProjectEventType): ProjectChange | null {
  switch (type) {
    case 'ProjectPublished':
      return 'published';
    case 'ProjectUnpublished':
    case 'ProjectDeleted':
      return 'withdrawn';
    case 'ProjectRevised':
      return 'revised';
    case 'ProjectStatusChanged':
      return 'status_changed';
    case 'ProjectCreated':
      return null;
    default:
      return changeFeedTreatment[type] === 'related_edit' ? 'related_edit' : null;
  }
}

/**
 * Where the project can be seen by one client, around the event: `before` is whether the client saw it
 * where the event took it out of (only known for events that withdrew it from a community: unpublished,
 * deleted or moved while published; false otherwise), `now` whether it sees it as published now.
 */
export interface ProjectVisibility {
  before: boolean;
  now: boolean;
  /** The event withdrew the project from a community it was published in (the change feed's record). */
  withdrawn: boolean;
}

/** The public type one client gets for a project change, or null when it gets nothing. */
export function projectEventTypeFor(change: ProjectChange, visibility: ProjectVisibility): WebhookEventType | null {
  const { before, now, withdrawn } = visibility;
  switch (change) {
    case 'published':
      return now ? 'project.created' : null;
    case 'withdrawn':
      return before ? 'project.deleted' : null;
    case 'revised':
      if (!withdrawn) return now ? 'project.updated' : null;
      // Moved to another community while published.
      if (before && now) return 'project.updated';
      if (now) return 'project.created';
      return before ? 'project.deleted' : null;
    case 'status_changed':
      return now ? 'project.status_changed' : null;
    case 'related_edit':
      return now ? 'project.updated' : null;
    default:
      return assertNever(change);
  }
}
