import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/eventStore/eventStore.js';
import { noticeOf, projectEventTypeFor, type ProjectChange } from '../../workers/webhooks/publicEvents.js';
import { projectEvent, type StreamEvent } from '../support/catalogueEvents.js';

function recorded({ stream, event }: StreamEvent): RecordedEvent {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    ...event,
    metadata: {},
    streamName: stream,
    revision: 3,
    position: 10n,
    recordedAt: '',
  };
}

const typed = (type: string, data: object): RecordedEvent =>
  recorded({ stream: 'x-1', event: { type, data: { ...data, at: '2025-01-01T00:00:00.000Z' } } });

describe('noticeOf', () => {
  it('when a project is published, unpublished, deleted, revised or changes status, then it is a project notice of that change', () => {
    expect(noticeOf(recorded(projectEvent('ProjectPublished', 7, {})))).toEqual({ subject: 'project', projectId: 7, change: 'published' });
    expect(noticeOf(recorded(projectEvent('ProjectUnpublished', 7, {})))?.subject).toBe('project');
    expect(noticeOf(recorded(projectEvent('ProjectDeleted', 7, {})))).toEqual({ subject: 'project', projectId: 7, change: 'withdrawn' });
    expect(noticeOf(recorded(projectEvent('ProjectRevised', 7, { changes: { name: 'New' } })))).toMatchObject({ change: 'revised' });
    expect(
      noticeOf(recorded(projectEvent('ProjectStatusChanged', 7, { status: 'completed', previous_status: 'under_construction' }))),
    ).toMatchObject({ change: 'status_changed' });
  });

  it('when a related edit the change feed reports happens, then it is a related edit; image-only and unreported edits give nothing', () => {
    expect(noticeOf(recorded(projectEvent('AmenitiesSet', 7, { items: [] })))).toMatchObject({ change: 'related_edit' });
    expect(noticeOf(recorded(projectEvent('PaymentPlanRemoved', 7, { payment_plan_id: 1 })))).toMatchObject({ change: 'related_edit' });
    expect(noticeOf(recorded(projectEvent('GalleryPictureReplaced', 7, { media_id: 1, image: {} as never })))).toBeNull();
    expect(noticeOf(recorded(projectEvent('FloorPlanImageReplaced', 7, { floor_plan_id: 1, image: {} as never })))).toBeNull();
    expect(noticeOf(recorded(projectEvent('BrochureRemoved', 7, {})))).toBeNull();
    expect(noticeOf(recorded(projectEvent('NearbyPlacesSet', 7, { items: [] })))).toBeNull();
  });

  it('when a project is created (unpublished), then receivers hear nothing', () => {
    expect(noticeOf(typed('ProjectCreated', { project_id: 7 }))).toBeNull();
  });

  it('when a developer or community is revised or published, then it is a notice for it; created or unpublished gives nothing', () => {
    expect(noticeOf(typed('DeveloperRevised', { developer_id: 2, changes: {} }))).toEqual({ subject: 'developer', developerId: 2 });
    expect(noticeOf(typed('DeveloperPublished', { developer_id: 2 }))).toEqual({ subject: 'developer', developerId: 2 });
    expect(noticeOf(typed('DeveloperUnpublished', { developer_id: 2 }))).toBeNull();
    expect(noticeOf(typed('CommunityRevised', { community_id: 3, changes: {} }))).toEqual({ subject: 'community', communityId: 3 });
    expect(noticeOf(typed('CommunityCreated', { community_id: 3 }))).toBeNull();
  });

  it('when the event is of another aggregate (access, webhooks, states), then it is no notice', () => {
    expect(noticeOf(typed('ClientRegistered', { client_id: 1 }))).toBeNull();
    expect(noticeOf(typed('WebhookCreated', { webhook_id: 'wh_1' }))).toBeNull();
    expect(noticeOf(typed('StateRevised', { state_id: 1, changes: {} }))).toBeNull();
  });
});

describe('projectEventTypeFor', () => {
  const seen = { before: false, now: true, withdrawn: false };
  const cases: Array<[ProjectChange, { before: boolean; now: boolean; withdrawn: boolean }, string | null]> = [
    ['published', seen, 'project.created'],
    ['published', { ...seen, now: false }, null],
    ['withdrawn', { before: true, now: false, withdrawn: true }, 'project.deleted'],
    ['withdrawn', { before: false, now: false, withdrawn: false }, null],
    ['revised', seen, 'project.updated'],
    ['revised', { ...seen, now: false }, null],
    ['revised', { before: true, now: true, withdrawn: true }, 'project.updated'],
    ['revised', { before: false, now: true, withdrawn: true }, 'project.created'],
    ['revised', { before: true, now: false, withdrawn: true }, 'project.deleted'],
    ['revised', { before: false, now: false, withdrawn: true }, null],
    ['status_changed', seen, 'project.status_changed'],
    ['status_changed', { ...seen, now: false }, null],
    ['related_edit', seen, 'project.updated'],
    ['related_edit', { ...seen, now: false }, null],
  ];
  it.each(cases)('when the change is %s and the client sees it %o, then it gets %s', (change, visibility, expected) => {
    expect(projectEventTypeFor(change, visibility)).toBe(expected);
  });
});
