import { describe, expect, it } from 'vitest';
import { decide as createCommunity, type CreateCommunity } from '../../commands/communities/createCommunity.js';
import { decide as publishCommunity } from '../../commands/communities/publishCommunity.js';
import { decide as reviseCommunity } from '../../commands/communities/reviseCommunity.js';
import { decide as unpublishCommunity } from '../../commands/communities/unpublishCommunity.js';
import { communityAggregate, type CommunityEvent } from '../../src/catalogue/community.js';
import type { ImageRef } from '../../src/catalogue/imageRef.js';
import { catalogueFacts } from '../../src/catalogue/catalogueReferences.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';
import { storedFacts } from '../support/storedFiles.js';

const at = defaultMeta.now;

const banner = (key = 'a1b2c3d4'): ImageRef => ({
  key,
  file_name: 'marina.jpg',
  content_type: 'image/jpeg',
  width: 1920,
  height: 1080,
  size_bytes: 345_678,
});

/** States 1 and 2 exist; state 9 does not. The blob store holds the banners these cases name. */
const references = catalogueFacts({ states: [1, 2], storedFiles: storedFacts(banner(), banner('ffee0011')) });

const aCommunity = (overrides: Partial<CreateCommunity> = {}): CreateCommunity => ({
  state_id: 1,
  name: 'Dubai Marina',
  slug: 'dubai-marina',
  description: 'Waterfront living.',
  banner: banner(),
  location: { latitude: 25.08, longitude: 55.14 },
  ...overrides,
});

const created: CommunityEvent = { type: 'CommunityCreated', data: { community_id: 1, ...aCommunity(), at: '2024-01-01T00:00:00.000Z' } };
const published: CommunityEvent = { type: 'CommunityPublished', data: { community_id: 1, at: '2024-01-02T00:00:00.000Z' } };

describe('createCommunity', () => {
  const spec = deciderSpec(communityAggregate, createCommunity, { references });

  it('when a new community is created, then CommunityCreated carries its fields, id and time', () => {
    spec
      .given([])
      .when(aCommunity(), { id: 3 })
      .then([{ type: 'CommunityCreated', data: { community_id: 3, ...aCommunity(), at } }]);
  });

  it('when it has no banner and no location, then they are recorded as null', () => {
    spec
      .given([])
      .when(aCommunity({ banner: null, location: null }))
      .then([{ type: 'CommunityCreated', data: { community_id: 1, ...aCommunity({ banner: null, location: null }), at } }]);
  });

  it('when the community already exists, then it is refused with CONFLICT', () => {
    spec.given([created]).when(aCommunity()).thenThrows('CONFLICT');
  });
});

describe('reviseCommunity', () => {
  const spec = deciderSpec(communityAggregate, reviseCommunity, { references });

  it('when the banner is replaced by another picture, then CommunityRevised carries the new banner', () => {
    spec
      .given([created])
      .when({ banner: banner('ffee0011'), name: 'Dubai Marina' })
      .then([{ type: 'CommunityRevised', data: { community_id: 1, changes: { banner: banner('ffee0011') }, at } }]);
  });

  it('when banner and location are set to null, then they are cleared', () => {
    spec
      .given([created])
      .when({ banner: null, location: null })
      .then([{ type: 'CommunityRevised', data: { community_id: 1, changes: { banner: null, location: null }, at } }]);
  });

  it('when the community moves to another state, then the change names the new state', () => {
    spec
      .given([created])
      .when({ state_id: 2 })
      .then([{ type: 'CommunityRevised', data: { community_id: 1, changes: { state_id: 2 }, at } }]);
  });

  it('when the same banner and location are sent again, then nothing is emitted', () => {
    spec
      .given([created])
      .when({ banner: banner(), location: { latitude: 25.08, longitude: 55.14 } })
      .then([]);
  });

  it('when no field is given, then it is refused with VALIDATION_FAILED naming the body', () => {
    const error = spec.given([created]).when({}).thenThrows('VALIDATION_FAILED');
    expect(error).toMatchObject({ details: { fields: { body: 'names no field to change' } } });
  });

  it('when the community does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({ name: 'Marina' }).thenThrows('NOT_FOUND');
  });
});

describe('publishCommunity', () => {
  const spec = deciderSpec(communityAggregate, publishCommunity);

  it('when an unpublished community is published, then CommunityPublished is emitted', () => {
    spec
      .given([created])
      .when({})
      .then([{ type: 'CommunityPublished', data: { community_id: 1, at } }]);
  });

  it('when the community is already published, then nothing is emitted', () => {
    spec.given([created, published]).when({}).then([]);
  });

  it('when the community does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({}).thenThrows('NOT_FOUND');
  });
});

describe('unpublishCommunity', () => {
  const spec = deciderSpec(communityAggregate, unpublishCommunity);

  it('when a published community is unpublished, then CommunityUnpublished is emitted', () => {
    spec
      .given([created, published])
      .when({})
      .then([{ type: 'CommunityUnpublished', data: { community_id: 1, at } }]);
  });

  it('when the community is not published, then nothing is emitted', () => {
    spec.given([created]).when({}).then([]);
  });

  it('when the community does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({}).thenThrows('NOT_FOUND');
  });
});
