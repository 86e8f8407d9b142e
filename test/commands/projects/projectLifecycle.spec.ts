import { describe, expect, it } from 'vitest';
import { projectAggregate } from '../../../src/catalogue/project.js';
import type { ApiError } from '../../../src/domain/errors.js';
import * as changeProjectStatus from '../../../commands/projects/changeProjectStatus.js';
import * as createProject from '../../../commands/projects/createProject.js';
import * as deleteProject from '../../../commands/projects/deleteProject.js';
import * as publishProject from '../../../commands/projects/publishProject.js';
import * as reviseProject from '../../../commands/projects/reviseProject.js';
import * as unpublishProject from '../../../commands/projects/unpublishProject.js';
import { deciderSpec } from '../../support/deciderSpec.js';
import { knownCatalogue, now, projectCreated, projectDeleted, projectFields, projectId, projectPublished } from './projectBuilders.js';

describe('createProject', () => {
  const spec = deciderSpec(projectAggregate, createProject.decide, { references: knownCatalogue });
  const required = { name: 'Marina Heights', slug: 'marina-heights', developer_id: 3, state_id: 1, community_id: 2, nature: 'off_plan' };

  it('when a project is created with only the required fields, then ProjectCreated carries them with the defaults', () => {
    spec
      .given([])
      .when(createProject.createProjectSchema.parse(required), { id: 42 })
      .then([{ type: 'ProjectCreated', data: { project_id: 42, ...projectFields(), status: 'upcoming', at: now } }]);
  });

  it('when a project is created with unit types and a price, then they are in the event as given', () => {
    const command = createProject.createProjectSchema.parse({
      ...required,
      unit_type_ids: [5, 6],
      starting_from: 1_250_000,
      area_from: '750.6',
      area_to: 1400.4,
      status: 'under_construction',
    });
    spec
      .given([])
      .when(command, { id: 42 })
      .then([
        {
          type: 'ProjectCreated',
          data: {
            project_id: 42,
            ...projectFields({ unit_type_ids: [5, 6], starting_from: 1_250_000, area_from: '750.6', area_to: 1400.4 }),
            status: 'under_construction',
            at: now,
          },
        },
      ]);
  });

  it('when a unit type is named twice, then it is refused naming body.unit_type_ids', () => {
    const error = spec
      .given([])
      .when(createProject.createProjectSchema.parse({ ...required, unit_type_ids: [5, 5] }))
      .thenThrows('VALIDATION_FAILED');
    expect((error as ApiError).details).toEqual({ fields: { 'body.unit_type_ids': 'names 5 more than once' } });
  });

  it('when the project already exists, then it is refused with CONFLICT', () => {
    spec.given([projectCreated()]).when(createProject.createProjectSchema.parse(required)).thenThrows('CONFLICT');
  });

  it('when the body has an unknown field or a bad slug, then the schema refuses it', () => {
    expect(createProject.createProjectSchema.safeParse({ ...required, published: true }).success).toBe(false);
    expect(createProject.createProjectSchema.safeParse({ ...required, slug: 'Marina Heights' }).success).toBe(false);
  });
});

describe('reviseProject', () => {
  const spec = deciderSpec(projectAggregate, reviseProject.decide, { references: knownCatalogue });

  it('when some fields are revised, then ProjectRevised carries only the ones that change', () => {
    spec
      .given([projectCreated()])
      .when({ name: 'Marina Heights II', starting_from: 990_000, currency: 'AED' })
      .then([
        {
          type: 'ProjectRevised',
          data: { project_id: projectId, changes: { name: 'Marina Heights II', starting_from: 990_000 }, at: now },
        },
      ]);
  });

  it('when the revision repeats the current values, then nothing is emitted', () => {
    spec
      .given([projectCreated({ unit_type_ids: [5] })])
      .when({ name: 'Marina Heights', unit_type_ids: [5] })
      .then([]);
  });

  it('when the change set is empty, then it is refused with VALIDATION_FAILED', () => {
    spec.given([projectCreated()]).when({}).thenThrows('VALIDATION_FAILED');
  });

  it('when unit types repeat, then it is refused naming body.unit_type_ids', () => {
    const error = spec
      .given([projectCreated()])
      .when({ unit_type_ids: [4, 7, 4] })
      .thenThrows('VALIDATION_FAILED');
    expect((error as ApiError).details).toEqual({ fields: { 'body.unit_type_ids': 'names 4 more than once' } });
  });

  it('when the project does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({ name: 'x' }).thenThrows('NOT_FOUND');
  });

  it('when the project is deleted, then it is refused with 409 PROJECT_DELETED', () => {
    const error = spec.given([projectCreated(), projectDeleted()]).when({ name: 'x' }).thenThrows('PROJECT_DELETED');
    expect((error as ApiError).status).toBe(409);
  });

  it('when the body names status, published or deleted, then the schema refuses it', () => {
    for (const body of [{ status: 'completed' }, { published: true }, { deleted: true }]) {
      expect(reviseProject.reviseProjectSchema.safeParse(body).success).toBe(false);
    }
  });
});

describe('publishProject and unpublishProject', () => {
  const publish = deciderSpec(projectAggregate, publishProject.decide);
  const unpublish = deciderSpec(projectAggregate, unpublishProject.decide);

  it('when an unpublished project is published, then ProjectPublished', () => {
    publish
      .given([projectCreated()])
      .when({})
      .then([{ type: 'ProjectPublished', data: { project_id: projectId, at: now } }]);
  });

  it('when a published project is published again, then nothing is emitted', () => {
    publish.given([projectCreated(), projectPublished()]).when({}).then([]);
  });

  it('when a deleted project is published, then it is refused with PROJECT_DELETED', () => {
    publish.given([projectCreated(), projectDeleted()]).when({}).thenThrows('PROJECT_DELETED');
  });

  it('when a missing project is published, then it is refused with NOT_FOUND', () => {
    publish.given([]).when({}).thenThrows('NOT_FOUND');
  });

  it('when a published project is unpublished, then ProjectUnpublished', () => {
    unpublish
      .given([projectCreated(), projectPublished()])
      .when({})
      .then([{ type: 'ProjectUnpublished', data: { project_id: projectId, at: now } }]);
  });

  it('when an unpublished project is unpublished, then nothing is emitted', () => {
    unpublish.given([projectCreated()]).when({}).then([]);
  });

  it('when a deleted project is unpublished, then it is refused with PROJECT_DELETED', () => {
    unpublish.given([projectCreated(), projectPublished(), projectDeleted()]).when({}).thenThrows('PROJECT_DELETED');
  });
});

describe('changeProjectStatus', () => {
  const spec = deciderSpec(projectAggregate, changeProjectStatus.decide);

  it('when the status changes, then ProjectStatusChanged carries the new and the previous status', () => {
    spec
      .given([projectCreated({ status: 'under_construction' })])
      .when({ status: 'completed' })
      .then([
        {
          type: 'ProjectStatusChanged',
          data: { project_id: projectId, status: 'completed', previous_status: 'under_construction', at: now },
        },
      ]);
  });

  it('when the status is the current one, then nothing is emitted', () => {
    spec
      .given([projectCreated({ status: 'sold_out' })])
      .when({ status: 'sold_out' })
      .then([]);
  });

  it('when the project is deleted, then it is refused with PROJECT_DELETED', () => {
    spec.given([projectCreated(), projectDeleted()]).when({ status: 'completed' }).thenThrows('PROJECT_DELETED');
  });

  it('when the status is not one of the four, then the schema refuses it', () => {
    expect(changeProjectStatus.changeProjectStatusSchema.safeParse({ status: 'cancelled' }).success).toBe(false);
  });
});

describe('deleteProject', () => {
  const spec = deciderSpec(projectAggregate, deleteProject.decide);

  it('when a project is deleted, then ProjectDeleted, and the folded project is deleted and unpublished', () => {
    spec
      .given([projectCreated(), projectPublished()])
      .when({})
      .then([{ type: 'ProjectDeleted', data: { project_id: projectId, at: now } }]);
    const folded = [projectCreated(), projectPublished(), projectDeleted()].reduce(projectAggregate.evolve, null);
    expect(folded).toMatchObject({ deleted: true, published: false });
  });

  it('when the project is already deleted, then it is refused with PROJECT_DELETED', () => {
    spec.given([projectCreated(), projectDeleted()]).when({}).thenThrows('PROJECT_DELETED');
  });

  it('when the project does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({}).thenThrows('NOT_FOUND');
  });
});
