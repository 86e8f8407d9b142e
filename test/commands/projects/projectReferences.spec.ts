import { describe, expect, it } from 'vitest';
import * as addFloorPlan from '../../../commands/projects/addFloorPlan.js';
import * as createProject from '../../../commands/projects/createProject.js';
import * as reviseFloorPlan from '../../../commands/projects/reviseFloorPlan.js';
import * as reviseProject from '../../../commands/projects/reviseProject.js';
import * as setRelatedProjects from '../../../commands/projects/setRelatedProjects.js';
import { catalogueFacts } from '../../../src/catalogue/catalogueReferences.js';
import { projectAggregate } from '../../../src/catalogue/project.js';
import type { ApiError } from '../../../src/domain/errors.js';
import { deciderSpec } from '../../support/deciderSpec.js';
import { aFloorPlan, anImage, floorPlanAdded, knownCatalogue, projectCreated, projectDeleted, projectId } from './projectBuilders.js';

/** The rules about what a project command names outside the project, decided on the facts its handler read. */

const fieldsOf = (error: Error) => (error as ApiError).details['fields'];

describe('createProject references', () => {
  const spec = deciderSpec(projectAggregate, createProject.decide, { references: knownCatalogue });
  const required = { name: 'Marina Heights', slug: 'marina-heights', developer_id: 3, state_id: 1, community_id: 2, nature: 'off_plan' };

  it('when the command is read, then it looks up its developer, place and unit types', () => {
    const command = createProject.createProjectSchema.parse({ ...required, sub_community_id: 8, unit_type_ids: [5, 6] });
    expect(createProject.references(command)).toEqual({
      developers: [3],
      states: [1],
      communities: [2],
      subCommunities: [8],
      unitTypes: [5, 6],
    });
  });

  it('when the developer does not exist, then it is refused naming body.developer_id', () => {
    const error = spec
      .given([])
      .when(createProject.createProjectSchema.parse({ ...required, developer_id: 99 }))
      .thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.developer_id': 'developer 99 does not exist' });
  });

  it('when several references are missing, then one refusal names each of them', () => {
    const command = createProject.createProjectSchema.parse({ ...required, developer_id: 99, state_id: 98, unit_type_ids: [5, 97] });
    const error = spec.given([]).when(command).thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({
      'body.developer_id': 'developer 99 does not exist',
      'body.state_id': 'state 98 does not exist',
      'body.community_id': 'community 2 lies in state 1, not in state 98',
      'body.unit_type_ids.1': 'unit type 97 does not exist',
    });
  });

  it('when the sub-community lies in another community, then it is refused naming body.sub_community_id', () => {
    const references = catalogueFacts({
      developers: [3],
      states: [1],
      communities: { 2: { state_id: 1 } },
      subCommunities: { 8: { community_id: 6 } },
    });
    const error = spec
      .given([])
      .when(createProject.createProjectSchema.parse({ ...required, sub_community_id: 8 }), { references })
      .thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.sub_community_id': 'sub-community 8 lies in community 6, not in community 2' });
  });

  it('when a missing unit type is also named twice, then the missing reference is what is reported', () => {
    const error = spec
      .given([])
      .when(createProject.createProjectSchema.parse({ ...required, unit_type_ids: [97, 97] }))
      .thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({
      'body.unit_type_ids.0': 'unit type 97 does not exist',
      'body.unit_type_ids.1': 'unit type 97 does not exist',
    });
  });
});

describe('reviseProject references', () => {
  const spec = deciderSpec(projectAggregate, reviseProject.decide, { references: knownCatalogue });

  it('when only the community moves, then the whole place after the move is looked up', () => {
    const project = projectAggregate.evolve(null, projectCreated({ sub_community_id: 8 }));
    expect(reviseProject.references({ community_id: 5 }, project)).toEqual({
      states: [1],
      communities: [5],
      subCommunities: [8],
      developers: [],
      unitTypes: [],
    });
  });

  it('when the revision touches no reference, then nothing is looked up', () => {
    const project = projectAggregate.evolve(null, projectCreated());
    expect(reviseProject.references({ name: 'x' }, project)).toEqual({ developers: [], unitTypes: [] });
  });

  it('when the state moves away from the community, then it is refused naming body.community_id', () => {
    const references = catalogueFacts({ states: [1, 4], communities: { 2: { state_id: 1 } } });
    const error = spec.given([projectCreated()]).when({ state_id: 4 }, { references }).thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.community_id': 'community 2 lies in state 1, not in state 4' });
  });

  it('when the new developer does not exist, then it is refused naming body.developer_id', () => {
    const error = spec.given([projectCreated()]).when({ developer_id: 99 }).thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.developer_id': 'developer 99 does not exist' });
  });

  it('when a unit type does not exist, then it is refused naming its index', () => {
    const error = spec
      .given([projectCreated()])
      .when({ unit_type_ids: [4, 97] })
      .thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.unit_type_ids.1': 'unit type 97 does not exist' });
  });

  it('when the project is deleted, then PROJECT_DELETED comes before any reference problem', () => {
    spec.given([projectCreated(), projectDeleted()]).when({ developer_id: 99 }).thenThrows('PROJECT_DELETED');
  });
});

describe('floor plan references', () => {
  const add = deciderSpec(projectAggregate, addFloorPlan.decide, { references: knownCatalogue });
  const revise = deciderSpec(projectAggregate, reviseFloorPlan.decide, { references: knownCatalogue });

  it('when a floor plan names a unit type, then that unit type is looked up', () => {
    expect(reviseFloorPlan.references({ floor_plan_id: 7, unit_type_id: 5 })).toEqual({ unitTypes: [5] });
    expect(reviseFloorPlan.references({ floor_plan_id: 7, unit_type_id: null })).toEqual({ unitTypes: [] });
  });

  it('when an added floor plan names a missing unit type, then it is refused naming body.unit_type_id', () => {
    const command = addFloorPlan.addFloorPlanSchema.parse({ title: 'Type X', unit_type_id: 97, image: anImage() });
    const error = add
      .given([projectCreated()])
      .when(command, { allocatedIds: { floorPlan: 17 } })
      .thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.unit_type_id': 'unit type 97 does not exist' });
  });

  it('when a revision names a missing unit type, then that is reported even before an unknown floor plan', () => {
    const error = revise
      .given([projectCreated(), floorPlanAdded(aFloorPlan(7))])
      .when({ floor_plan_id: 8, unit_type_id: 97 })
      .thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.unit_type_id': 'unit type 97 does not exist' });
  });
});

describe('setRelatedProjects references', () => {
  const spec = deciderSpec(projectAggregate, setRelatedProjects.decide, { references: knownCatalogue });

  it('when a related project is not in the catalogue (missing or deleted), then it is refused naming its index', () => {
    const error = spec
      .given([projectCreated()])
      .when({ project_ids: [9, 97] })
      .thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.project_ids.1': 'project 97 does not exist' });
  });

  it('when the list is read, then every named project is looked up, the project itself too', () => {
    expect(setRelatedProjects.references({ project_ids: [9, projectId] })).toEqual({ projects: [9, projectId] });
  });
});
