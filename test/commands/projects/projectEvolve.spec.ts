import { describe, expect, it } from 'vitest';
import {
  changeFeedRelatedEventTypes,
  changeFeedSilentEventTypes,
  projectAggregate,
  projectEventTypes,
  projectOwnEditEventTypes,
  type Project,
  type ProjectEvent,
} from '../../../src/catalogue/project.js';
import {
  aFloorPlan,
  aGalleryPicture,
  anImage,
  aPaymentPlan,
  earlier,
  floorPlanAdded,
  galleryPictureAdded,
  now,
  paymentPlanAdded,
  projectCreated,
  projectId,
} from './projectBuilders.js';

const fold = (events: ProjectEvent[]): Project | null => events.reduce(projectAggregate.evolve, projectAggregate.initialState());
const stamp = { project_id: projectId, at: now };

describe('project evolve', () => {
  it('when collection items are added, revised, replaced and removed, then the folded project holds the result', () => {
    const project = fold([
      projectCreated(),
      floorPlanAdded(aFloorPlan(7)),
      floorPlanAdded(aFloorPlan(8, { title: 'Type B' })),
      { type: 'FloorPlanRevised', data: { ...stamp, floor_plan_id: 7, changes: { price: 2_000_000 } } },
      { type: 'FloorPlanImageReplaced', data: { ...stamp, floor_plan_id: 7, image: anImage('new7') } },
      { type: 'FloorPlanRemoved', data: { ...stamp, floor_plan_id: 8 } },
      paymentPlanAdded(aPaymentPlan(31)),
      { type: 'PaymentPlanRemoved', data: { ...stamp, payment_plan_id: 31 } },
      galleryPictureAdded(aGalleryPicture(50)),
      { type: 'GalleryPictureReplaced', data: { ...stamp, media_id: 50, image: anImage('new50') } },
      { type: 'AmenitiesSet', data: { ...stamp, items: [{ name: 'Pool', icon: null }] } },
      { type: 'RelatedProjectsSet', data: { ...stamp, project_ids: [4] } },
    ]);

    expect(project).toMatchObject({
      floor_plans: { 7: aFloorPlan(7, { price: 2_000_000, image: anImage('new7') }) },
      payment_plans: {},
      gallery: { 50: aGalleryPicture(50, { image: anImage('new50') }) },
      amenities: [{ name: 'Pool', icon: null }],
      related_project_ids: [4],
    });
    expect(Object.keys(project?.floor_plans ?? {})).toEqual(['7']);
  });

  it("when only collections change, then the project's updated_at stays at its last own edit", () => {
    const project = fold([projectCreated(), floorPlanAdded(aFloorPlan(7)), { type: 'FaqsSet', data: { ...stamp, items: [] } }]);
    expect(project).toMatchObject({ created_at: earlier, updated_at: earlier });

    const revised = fold([projectCreated(), { type: 'ProjectRevised', data: { ...stamp, changes: { name: 'New name' } } }]);
    expect(revised).toMatchObject({ name: 'New name', updated_at: now });
  });

  it('when an event other than ProjectCreated comes first, then there is still no project', () => {
    expect(fold([{ type: 'ProjectPublished', data: stamp }])).toBeNull();
  });
});

describe('change feed treatment of project events', () => {
  it('when the groups are listed, then they follow the spec and cover every event type exactly once', () => {
    expect(projectOwnEditEventTypes).toEqual([
      'ProjectCreated',
      'ProjectRevised',
      'ProjectPublished',
      'ProjectUnpublished',
      'ProjectStatusChanged',
      'ProjectDeleted',
    ]);
    expect([...changeFeedRelatedEventTypes].sort()).toEqual(
      [
        'PaymentPlanAdded',
        'PaymentPlanRevised',
        'PaymentPlanRemoved',
        'GalleryPictureAdded',
        'GalleryPictureRevised',
        'GalleryPictureRemoved',
        'FloorPlanAdded',
        'FloorPlanRevised',
        'FloorPlanRemoved',
        'AmenitiesSet',
        'FaqsSet',
      ].sort(),
    );
    expect(changeFeedSilentEventTypes).toContain('FloorPlanImageReplaced');
    expect(changeFeedSilentEventTypes).toContain('GalleryPictureReplaced');
    const grouped = [...projectOwnEditEventTypes, ...changeFeedRelatedEventTypes, ...changeFeedSilentEventTypes];
    expect(grouped.sort()).toEqual([...projectEventTypes].sort());
    expect(new Set(grouped).size).toBe(projectEventTypes.length);
  });
});
