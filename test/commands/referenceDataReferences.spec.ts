import { describe, expect, it } from 'vitest';
import * as createCommunity from '../../commands/communities/createCommunity.js';
import * as reviseCommunity from '../../commands/communities/reviseCommunity.js';
import * as createSubCommunity from '../../commands/subCommunities/createSubCommunity.js';
import * as reviseSubCommunity from '../../commands/subCommunities/reviseSubCommunity.js';
import { catalogueFacts } from '../../src/catalogue/catalogueReferences.js';
import { communityAggregate, type CommunityEvent } from '../../src/catalogue/community.js';
import { subCommunityAggregate, type SubCommunityEvent } from '../../src/catalogue/subCommunity.js';
import type { ApiError } from '../../src/domain/errors.js';
import { deciderSpec } from '../support/deciderSpec.js';

/** Where a community or sub-community lies must exist; decided on the facts the handler read. */

const earlier = '2024-01-01T00:00:00.000Z';
const references = catalogueFacts({ states: [1], communities: { 4: { state_id: 1 } } });
const fieldsOf = (error: Error) => (error as ApiError).details['fields'];

const communityCreated: CommunityEvent = {
  type: 'CommunityCreated',
  data: {
    community_id: 1,
    state_id: 1,
    name: 'Dubai Marina',
    slug: 'dubai-marina',
    description: '',
    banner: null,
    location: null,
    at: earlier,
  },
};
const subCommunityCreated: SubCommunityEvent = {
  type: 'SubCommunityCreated',
  data: { sub_community_id: 1, community_id: 4, name: 'Marina Promenade', slug: 'marina-promenade', description: '', at: earlier },
};

describe('community references', () => {
  const create = deciderSpec(communityAggregate, createCommunity.decide, { references });
  const revise = deciderSpec(communityAggregate, reviseCommunity.decide, { references });

  it('when a community names a state, then that state is looked up; a revision without one looks up nothing', () => {
    expect(createCommunity.references(createCommunity.createCommunitySchema.parse({ state_id: 9, name: 'x', slug: 'x' }))).toEqual({
      states: [9],
      storedFiles: [],
    });
    expect(reviseCommunity.references({ name: 'x' }, null)).toEqual({ states: [], storedFiles: [] });
  });

  it('when a community is created in a state that does not exist, then it is refused naming body.state_id', () => {
    const command = createCommunity.createCommunitySchema.parse({ state_id: 9, name: 'Nowhere', slug: 'nowhere' });
    const error = create.given([]).when(command).thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.state_id': 'no such state' });
  });

  it('when a community is moved to a state that does not exist, then it is refused naming body.state_id', () => {
    const error = revise.given([communityCreated]).when({ state_id: 9 }).thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.state_id': 'no such state' });
  });

  it('when a missing community is moved to a missing state, then the state is what is reported', () => {
    revise.given([]).when({ state_id: 9 }).thenThrows('VALIDATION_FAILED');
  });
});

describe('sub-community references', () => {
  const create = deciderSpec(subCommunityAggregate, createSubCommunity.decide, { references });
  const revise = deciderSpec(subCommunityAggregate, reviseSubCommunity.decide, { references });

  it('when a sub-community names a community, then that community is looked up', () => {
    expect(reviseSubCommunity.references({ community_id: 7 })).toEqual({ communities: [7] });
  });

  it('when a sub-community is created in a community that does not exist, then it is refused naming body.community_id', () => {
    const command = createSubCommunity.createSubCommunitySchema.parse({ community_id: 7, name: 'Nowhere', slug: 'nowhere' });
    const error = create.given([]).when(command).thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.community_id': 'no such community' });
  });

  it('when a sub-community is moved to a community that does not exist, then it is refused naming body.community_id', () => {
    const error = revise.given([subCommunityCreated]).when({ community_id: 7 }).thenThrows('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual({ 'body.community_id': 'no such community' });
  });
});
