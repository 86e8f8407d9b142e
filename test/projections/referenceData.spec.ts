import { describe, expect, it } from 'vitest';
import { CATALOG_METADATA, catalogMetadataProjection, type CatalogMetadataDoc } from '../../projections/catalogMetadata.js';
import { COMMUNITIES, communitiesProjection } from '../../projections/communities.js';
import { DEVELOPERS, developersProjection } from '../../projections/developers.js';
import { STATES, statesProjection } from '../../projections/states.js';
import { SUB_COMMUNITIES, subCommunitiesProjection } from '../../projections/subCommunities.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import {
  communityEvent,
  developerEvent,
  imageRef,
  minute,
  referenceCatalogue,
  stateEvent,
  subCommunityEvent,
  unitTypeCreated,
  unitTypeEvent,
  type StreamEvent,
} from '../support/catalogueEvents.js';
import { projectInBatches, recorded } from '../support/projectionHarness.js';

async function projected(events: StreamEvent[]) {
  const readStore = createEmbeddedReadStore();
  const history = await recorded([...referenceCatalogue(), ...events]);
  for (const projection of [
    statesProjection,
    communitiesProjection,
    subCommunitiesProjection,
    developersProjection,
    catalogMetadataProjection,
  ]) {
    await projectInBatches(readStore, projection, history, 5);
  }
  return readStore;
}

describe('reference data read models', () => {
  it('when a developer is revised and published, then its document shows it with updated_at and search text', async () => {
    const readStore = await projected([
      developerEvent({
        type: 'DeveloperRevised',
        data: { developer_id: 1, changes: { name: 'Emaar', logo: imageRef('logo'), website: 'https://emaar.example' }, at: minute(3) },
      }),
      developerEvent({ type: 'DeveloperPublished', data: { developer_id: 1, at: minute(4) } }),
    ]);
    expect(await readStore.get(DEVELOPERS, 1)).toMatchObject({
      id: 1,
      name: 'Emaar',
      slug: 'emaar',
      website: 'https://emaar.example',
      logo: imageRef('logo'),
      established_year: null,
      published: true,
      created_at: minute(0),
      updated_at: minute(4),
      _search: 'emaar emaar',
    });
  });

  it('when a community moves to another state, then it and its sub-communities carry the new state', async () => {
    const readStore = await projected([
      communityEvent({
        type: 'CommunityRevised',
        data: { community_id: 1, changes: { state_id: 2, location: { latitude: 1, longitude: 2 } }, at: minute(5) },
      }),
    ]);
    expect(await readStore.get(COMMUNITIES, 1)).toMatchObject({
      state_id: 2,
      location: { latitude: 1, longitude: 2 },
      updated_at: minute(5),
    });
    expect(await readStore.get(SUB_COMMUNITIES, 1)).toMatchObject({ community_id: 1, state_id: 2, updated_at: minute(0) });
    expect(await readStore.get(SUB_COMMUNITIES, 2)).toMatchObject({ community_id: 2, state_id: 1 });
  });

  it('when a sub-community moves to another community, then it takes that community state', async () => {
    const readStore = await projected([
      subCommunityEvent({
        type: 'SubCommunityRevised',
        data: { sub_community_id: 1, changes: { community_id: 3, name: 'Yas Acres' }, at: minute(6) },
      }),
      subCommunityEvent({ type: 'SubCommunityPublished', data: { sub_community_id: 1, at: minute(7) } }),
    ]);
    expect(await readStore.get(SUB_COMMUNITIES, 1)).toMatchObject({
      community_id: 3,
      state_id: 2,
      name: 'Yas Acres',
      published: true,
      updated_at: minute(7),
      _search: 'yas acres marina-walk',
    });
  });

  it('when a state is renamed and unpublished, then its document follows', async () => {
    const readStore = await projected([
      stateEvent({ type: 'StatePublished', data: { state_id: 1, at: minute(1) } }),
      stateEvent({ type: 'StateRevised', data: { state_id: 1, changes: { name: 'Dubai Emirate' }, at: minute(2) } }),
      stateEvent({ type: 'StateUnpublished', data: { state_id: 1, at: minute(3) } }),
    ]);
    expect(await readStore.get(STATES, 1)).toEqual({
      _id: 1,
      id: 1,
      name: 'Dubai Emirate',
      slug: 'dubai',
      country_code: 'AE',
      published: false,
      created_at: minute(0),
      updated_at: minute(3),
      _search: 'dubai emirate dubai',
      _position: expect.any(Number),
    });
  });

  it('when unit types are created and revised, then the metadata lists them by sort order with string ids', async () => {
    const readStore = await projected([
      unitTypeCreated(8, { name: 'Duplex', kind: 'other', bedrooms: null, sort_order: 5 }, minute(1)),
      unitTypeEvent({ type: 'UnitTypeRevised', data: { unit_type_id: 6, changes: { name: 'Office Space' }, at: minute(2) } }),
    ]);
    const metadata = (await readStore.get<CatalogMetadataDoc>(CATALOG_METADATA, 'catalog'))!;
    expect(metadata.unit_types.map(({ id, name }) => [id, name])).toEqual([
      ['1', 'Studio'],
      ['8', 'Duplex'],
      ['2', '1 Bedroom'],
      ['3', '2 Bedrooms'],
      ['4', '3 Bedrooms'],
      ['5', '6+ Bedrooms'],
      ['6', 'Office Space'],
      ['7', 'Retail'],
    ]);
    expect(metadata.unit_types[0]).toEqual({ id: '1', name: 'Studio', kind: 'studio', bedrooms: 0, sort_order: 0 });
    expect(metadata).toMatchObject({
      natures: ['off_plan', 'ready'],
      statuses: ['upcoming', 'under_construction', 'completed', 'sold_out'],
      updated_at: minute(2),
    });
  });
});
