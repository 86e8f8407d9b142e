import { describe, expect, it } from 'vitest';
import * as addFloorPlan from '../../../commands/projects/addFloorPlan.js';
import * as removeFloorPlan from '../../../commands/projects/removeFloorPlan.js';
import * as replaceFloorPlanImage from '../../../commands/projects/replaceFloorPlanImage.js';
import * as reviseFloorPlan from '../../../commands/projects/reviseFloorPlan.js';
import { projectAggregate, type ProjectEventOf } from '../../../src/catalogue/project.js';
import { deciderSpec } from '../../support/deciderSpec.js';
import {
  aFloorPlan,
  anImage,
  earlier,
  knownCatalogue,
  floorPlanAdded,
  now,
  projectCreated,
  projectDeleted,
  projectId,
} from './projectBuilders.js';

const floorPlanRemoved = (floorPlanId: number): ProjectEventOf<'FloorPlanRemoved'> => ({
  type: 'FloorPlanRemoved',
  data: { project_id: projectId, floor_plan_id: floorPlanId, at: earlier },
});

describe('addFloorPlan', () => {
  const spec = deciderSpec(projectAggregate, addFloorPlan.decide, { references: knownCatalogue });

  it('when a floor plan is added, then FloorPlanAdded carries it under the allocated id', () => {
    const command = addFloorPlan.addFloorPlanSchema.parse({ title: 'Type B', image: anImage() });
    spec
      .given([projectCreated()])
      .when(command, { allocatedIds: { floorPlan: 17 } })
      .then([
        {
          type: 'FloorPlanAdded',
          data: {
            project_id: projectId,
            floor_plan: { floor_plan_id: 17, title: 'Type B', unit_type_id: null, area: null, price: null, image: anImage() },
            at: now,
          },
        },
      ]);
  });

  it('when the project is deleted, then it is refused with PROJECT_DELETED', () => {
    const command = addFloorPlan.addFloorPlanSchema.parse({ title: 'Type B', image: anImage() });
    spec
      .given([projectCreated(), projectDeleted()])
      .when(command, { allocatedIds: { floorPlan: 17 } })
      .thenThrows('PROJECT_DELETED');
  });

  it('when the image is missing, then the schema refuses it', () => {
    expect(addFloorPlan.addFloorPlanSchema.safeParse({ title: 'Type B' }).success).toBe(false);
  });
});

describe('reviseFloorPlan', () => {
  const spec = deciderSpec(projectAggregate, reviseFloorPlan.decide, { references: knownCatalogue });

  it('when fields are revised, then FloorPlanRevised carries only the ones that change', () => {
    spec
      .given([projectCreated(), floorPlanAdded(aFloorPlan(7))])
      .when({ floor_plan_id: 7, title: 'Type A (corner)', price: 1_800_000, area: '1,300' })
      .then([
        {
          type: 'FloorPlanRevised',
          data: { project_id: projectId, floor_plan_id: 7, changes: { title: 'Type A (corner)', area: '1,300' }, at: now },
        },
      ]);
  });

  it('when the values are the current ones, then nothing is emitted', () => {
    spec
      .given([projectCreated(), floorPlanAdded(aFloorPlan(7))])
      .when({ floor_plan_id: 7, title: 'Type A' })
      .then([]);
  });

  it('when no field is given, then it is refused with VALIDATION_FAILED', () => {
    spec
      .given([projectCreated(), floorPlanAdded(aFloorPlan(7))])
      .when({ floor_plan_id: 7 })
      .thenThrows('VALIDATION_FAILED');
  });

  it('when the floor plan is unknown, then it is refused with NOT_FOUND naming it', () => {
    const error = spec
      .given([projectCreated(), floorPlanAdded(aFloorPlan(7))])
      .when({ floor_plan_id: 8, title: 'x' })
      .thenThrows('NOT_FOUND');
    expect(error.message).toContain('Floor plan 8');
  });

  it('when the floor plan was removed, then it is refused with NOT_FOUND', () => {
    spec
      .given([projectCreated(), floorPlanAdded(aFloorPlan(7)), floorPlanRemoved(7)])
      .when({ floor_plan_id: 7, title: 'x' })
      .thenThrows('NOT_FOUND');
  });

  it('when the body carries an image, then the schema refuses it (images are replaced on their own)', () => {
    expect(reviseFloorPlan.reviseFloorPlanSchema.safeParse({ floor_plan_id: 7, image: anImage() }).success).toBe(false);
  });
});

describe('replaceFloorPlanImage', () => {
  const spec = deciderSpec(projectAggregate, replaceFloorPlanImage.decide, { references: knownCatalogue });

  it('when the image is replaced, then FloorPlanImageReplaced', () => {
    spec
      .given([projectCreated(), floorPlanAdded(aFloorPlan(7))])
      .when({ floor_plan_id: 7, image: anImage('ffee01') })
      .then([{ type: 'FloorPlanImageReplaced', data: { project_id: projectId, floor_plan_id: 7, image: anImage('ffee01'), at: now } }]);
  });

  it('when the image is the current one, then nothing is emitted', () => {
    spec
      .given([projectCreated(), floorPlanAdded(aFloorPlan(7))])
      .when({ floor_plan_id: 7, image: anImage() })
      .then([]);
  });

  it('when the floor plan is unknown, then it is refused with NOT_FOUND naming it', () => {
    const error = spec.given([projectCreated()]).when({ floor_plan_id: 9, image: anImage() }).thenThrows('NOT_FOUND');
    expect(error.message).toContain('Floor plan 9');
  });

  it('when the project is deleted, then it is refused with PROJECT_DELETED', () => {
    spec
      .given([projectCreated(), floorPlanAdded(aFloorPlan(7)), projectDeleted()])
      .when({ floor_plan_id: 7, image: anImage('ffee01') })
      .thenThrows('PROJECT_DELETED');
  });
});

describe('removeFloorPlan', () => {
  const spec = deciderSpec(projectAggregate, removeFloorPlan.decide);

  it('when a floor plan is removed, then FloorPlanRemoved', () => {
    spec
      .given([projectCreated(), floorPlanAdded(aFloorPlan(7))])
      .when({ floor_plan_id: 7 })
      .then([{ type: 'FloorPlanRemoved', data: { project_id: projectId, floor_plan_id: 7, at: now } }]);
  });

  it('when the floor plan is unknown, then it is refused with NOT_FOUND naming it', () => {
    const error = spec.given([projectCreated()]).when({ floor_plan_id: 7 }).thenThrows('NOT_FOUND');
    expect(error.message).toContain('Floor plan 7');
  });
});
