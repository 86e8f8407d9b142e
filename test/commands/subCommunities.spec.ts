import { describe, it } from 'vitest';
import { decide as createSubCommunity, type CreateSubCommunity } from '../../commands/subCommunities/createSubCommunity.js';
import { decide as publishSubCommunity } from '../../commands/subCommunities/publishSubCommunity.js';
import { decide as reviseSubCommunity } from '../../commands/subCommunities/reviseSubCommunity.js';
import { decide as unpublishSubCommunity } from '../../commands/subCommunities/unpublishSubCommunity.js';
import { subCommunityAggregate, type SubCommunityEvent } from '../../src/catalogue/subCommunity.js';
import { catalogueFacts } from '../../src/catalogue/catalogueReferences.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;

/** Communities 4 and 5 exist (in state 1). */
const references = catalogueFacts({ communities: { 4: { state_id: 1 }, 5: { state_id: 1 } } });

const aSubCommunity = (overrides: Partial<CreateSubCommunity> = {}): CreateSubCommunity => ({
  community_id: 4,
  name: 'Marina Promenade',
  slug: 'marina-promenade',
  description: '',
  ...overrides,
});

const created: SubCommunityEvent = {
  type: 'SubCommunityCreated',
  data: { sub_community_id: 1, ...aSubCommunity(), at: '2024-01-01T00:00:00.000Z' },
};
const published: SubCommunityEvent = { type: 'SubCommunityPublished', data: { sub_community_id: 1, at: '2024-01-02T00:00:00.000Z' } };

describe('createSubCommunity', () => {
  const spec = deciderSpec(subCommunityAggregate, createSubCommunity, { references });

  it('when a new sub-community is created, then SubCommunityCreated carries its fields, id and time', () => {
    spec
      .given([])
      .when(aSubCommunity(), { id: 9 })
      .then([{ type: 'SubCommunityCreated', data: { sub_community_id: 9, ...aSubCommunity(), at } }]);
  });

  it('when the sub-community already exists, then it is refused with CONFLICT', () => {
    spec.given([created]).when(aSubCommunity()).thenThrows('CONFLICT');
  });
});

describe('reviseSubCommunity', () => {
  const spec = deciderSpec(subCommunityAggregate, reviseSubCommunity, { references });

  it('when it moves to another community and gets a description, then SubCommunityRevised carries both', () => {
    spec
      .given([created])
      .when({ community_id: 5, description: 'Along the water.' })
      .then([
        { type: 'SubCommunityRevised', data: { sub_community_id: 1, changes: { community_id: 5, description: 'Along the water.' }, at } },
      ]);
  });

  it('when nothing differs from the current values, then nothing is emitted', () => {
    spec.given([created]).when({ community_id: 4, name: 'Marina Promenade' }).then([]);
  });

  it('when no field is given, then it is refused with VALIDATION_FAILED', () => {
    spec.given([created]).when({}).thenThrows('VALIDATION_FAILED');
  });

  it('when the sub-community does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({ name: 'Promenade' }).thenThrows('NOT_FOUND');
  });
});

describe('publishSubCommunity', () => {
  const spec = deciderSpec(subCommunityAggregate, publishSubCommunity);

  it('when an unpublished sub-community is published, then SubCommunityPublished is emitted', () => {
    spec
      .given([created])
      .when({})
      .then([{ type: 'SubCommunityPublished', data: { sub_community_id: 1, at } }]);
  });

  it('when it is already published, then nothing is emitted', () => {
    spec.given([created, published]).when({}).then([]);
  });

  it('when the sub-community does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({}).thenThrows('NOT_FOUND');
  });
});

describe('unpublishSubCommunity', () => {
  const spec = deciderSpec(subCommunityAggregate, unpublishSubCommunity);

  it('when a published sub-community is unpublished, then SubCommunityUnpublished is emitted', () => {
    spec
      .given([created, published])
      .when({})
      .then([{ type: 'SubCommunityUnpublished', data: { sub_community_id: 1, at } }]);
  });

  it('when it is not published, then nothing is emitted', () => {
    spec.given([created]).when({}).then([]);
  });

  it('when the sub-community does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({}).thenThrows('NOT_FOUND');
  });
});
