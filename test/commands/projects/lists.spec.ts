import { describe, expect, it } from 'vitest';
import * as setAmenities from '../../../commands/projects/setAmenities.js';
import * as setFaqs from '../../../commands/projects/setFaqs.js';
import * as setFloorPlates from '../../../commands/projects/setFloorPlates.js';
import * as setNearbyPlaces from '../../../commands/projects/setNearbyPlaces.js';
import * as setPaymentMethods from '../../../commands/projects/setPaymentMethods.js';
import * as setRelatedProjects from '../../../commands/projects/setRelatedProjects.js';
import * as setVirtualTours from '../../../commands/projects/setVirtualTours.js';
import { projectAggregate, type Project, type ProjectEvent } from '../../../src/catalogue/project.js';
import type { ApiError } from '../../../src/domain/errors.js';
import type { CatalogueFacts } from '../../../src/catalogue/catalogueReferences.js';
import { deciderSpec, type DecideMeta } from '../../support/deciderSpec.js';
import { anImage, earlier, knownCatalogue, now, projectCreated, projectDeleted, projectId } from './projectBuilders.js';

/** A list command's decide; one whose list names stored files reads the facts about them (see setFloorPlates). */
type ListDecide<Item> = (
  command: { items: Item[] },
  state: Project | null,
  meta: DecideMeta & { references: CatalogueFacts },
) => ProjectEvent[];

/** A whole-list command with a sample list: deciding it, and the event that sets a list at a time. */
function listCommand<Item>(name: string, decide: ListDecide<Item>, listSet: (items: Item[], at: string) => ProjectEvent, items: Item[]) {
  const spec = deciderSpec(projectAggregate, decide, { references: knownCatalogue });
  return {
    name,
    setAt: (at: string) => listSet(items, at),
    clearedAt: (at: string) => listSet([], at),
    whenSet: (given: ProjectEvent[]) => spec.given(given).when({ items }),
    whenCleared: (given: ProjectEvent[]) => spec.given(given).when({ items: [] }),
  };
}

const stamped = (at: string) => ({ project_id: projectId, at });

const listCommands = [
  listCommand('setAmenities', setAmenities.decide, (items, at) => ({ type: 'AmenitiesSet', data: { ...stamped(at), items } }), [
    { name: 'Pool', icon: 'pool' },
    { name: 'Gym', icon: null },
  ]),
  listCommand('setNearbyPlaces', setNearbyPlaces.decide, (items, at) => ({ type: 'NearbyPlacesSet', data: { ...stamped(at), items } }), [
    { name: 'Marina Mall', category: 'shopping', distance_km: 1.2 },
  ]),
  listCommand(
    'setPaymentMethods',
    setPaymentMethods.decide,
    (items, at) => ({ type: 'PaymentMethodsSet', data: { ...stamped(at), items } }),
    [{ name: 'Bank transfer', description: null }],
  ),
  listCommand('setFaqs', setFaqs.decide, (items, at) => ({ type: 'FaqsSet', data: { ...stamped(at), items } }), [
    { question: 'When is handover?', answer: 'Q4 2026.' },
  ]),
  listCommand('setVirtualTours', setVirtualTours.decide, (items, at) => ({ type: 'VirtualToursSet', data: { ...stamped(at), items } }), [
    { title: '2 BR tour', url: 'https://tours.example.com/2br' },
  ]),
  listCommand('setFloorPlates', setFloorPlates.decide, (items, at) => ({ type: 'FloorPlatesSet', data: { ...stamped(at), items } }), [
    { title: 'Typical floor', floors: '5-12', image: anImage() },
  ]),
];

describe.each(listCommands)('$name', (list) => {
  it('when the list is set, then the event carries the whole list', () => {
    list.whenSet([projectCreated()]).then([list.setAt(now)]);
  });

  it('when an empty list is set, then the event clears the list', () => {
    list.whenCleared([projectCreated(), list.setAt(earlier)]).then([list.clearedAt(now)]);
  });

  it('when the current list is sent again, then nothing is emitted', () => {
    list.whenSet([projectCreated(), list.setAt(earlier)]).then([]);
  });

  it('when the project is deleted, then it is refused with PROJECT_DELETED', () => {
    list.whenSet([projectCreated(), projectDeleted()]).thenThrows('PROJECT_DELETED');
  });

  it('when the project does not exist, then it is refused with NOT_FOUND', () => {
    list.whenSet([]).thenThrows('NOT_FOUND');
  });
});

describe('list item schemas', () => {
  it('when an item has an unknown field, then the schema refuses it', () => {
    expect(setAmenities.setAmenitiesSchema.safeParse({ items: [{ name: 'Pool', icon: null, colour: 'blue' }] }).success).toBe(false);
  });

  it('when a virtual tour address is not http(s), then the schema refuses it', () => {
    expect(setVirtualTours.setVirtualToursSchema.safeParse({ items: [{ title: 't', url: 'ftp://tours.example.com' }] }).success).toBe(
      false,
    );
  });
});

describe('setRelatedProjects', () => {
  const spec = deciderSpec(projectAggregate, setRelatedProjects.decide, { references: knownCatalogue });

  it('when related projects are set, then RelatedProjectsSet keeps their order', () => {
    spec
      .given([projectCreated()])
      .when({ project_ids: [9, 4] })
      .then([{ type: 'RelatedProjectsSet', data: { project_id: projectId, project_ids: [9, 4], at: now } }]);
  });

  it('when the current list is sent again, then nothing is emitted', () => {
    spec
      .given([projectCreated(), { type: 'RelatedProjectsSet', data: { project_id: projectId, project_ids: [9, 4], at: earlier } }])
      .when({ project_ids: [9, 4] })
      .then([]);
  });

  it('when a project is named twice, then it is refused naming body.project_ids', () => {
    const error = spec
      .given([projectCreated()])
      .when({ project_ids: [9, 4, 9] })
      .thenThrows('VALIDATION_FAILED');
    expect((error as ApiError).details).toEqual({ fields: { 'body.project_ids': 'names 9 more than once' } });
  });

  it('when the project names itself, then it is refused naming body.project_ids', () => {
    const error = spec
      .given([projectCreated()])
      .when({ project_ids: [projectId] })
      .thenThrows('VALIDATION_FAILED');
    expect((error as ApiError).details).toEqual({ fields: { 'body.project_ids': 'a project cannot be related to itself' } });
  });

  it('when the project is deleted, then it is refused with PROJECT_DELETED', () => {
    spec
      .given([projectCreated(), projectDeleted()])
      .when({ project_ids: [9] })
      .thenThrows('PROJECT_DELETED');
  });
});
