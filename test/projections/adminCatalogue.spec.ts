import { describe, expect, it } from 'vitest';
import {
  ADMIN_COMMUNITIES,
  ADMIN_DEVELOPERS,
  ADMIN_PROJECTS,
  ADMIN_STATES,
  ADMIN_SUB_COMMUNITIES,
  ADMIN_UNIT_TYPES,
  adminCatalogueProjection,
  type AdminProjectDoc,
} from '../../projections/adminCatalogue.js';
import { communityAggregate } from '../../src/catalogue/community.js';
import { developerAggregate } from '../../src/catalogue/developer.js';
import { projectAggregate, type Project } from '../../src/catalogue/project.js';
import { stateAggregate } from '../../src/catalogue/state.js';
import { subCommunityAggregate } from '../../src/catalogue/subCommunity.js';
import { unitTypeAggregate } from '../../src/catalogue/unitType.js';
import type { Aggregate } from '../../src/domain/decider.js';
import type { DomainEvent, RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { Doc, ReadStore } from '../../src/readStore/readStore.js';
import { catalogueHistory, developerEvent, minute, projectCreated, projectEvent, referenceCatalogue } from '../support/catalogueEvents.js';
import { projectInBatches, readModelOf, recorded } from '../support/projectionHarness.js';

const history = await recorded(catalogueHistory({ projects: 12, seed: 3 }));

async function projected(events: readonly RecordedEvent[] = history, batchSize = 7): Promise<ReadStore> {
  const readStore = createEmbeddedReadStore();
  await projectInBatches(readStore, adminCatalogueProjection, events, batchSize);
  return readStore;
}

/** Each stream of an aggregate's category folded as the write side folds it: id → state and revision. */
function writeSide<State>(aggregate: Aggregate<State | null, DomainEvent>): Map<number, { state: State; revision: number }> {
  const folded = new Map<number, { state: State; revision: number }>();
  for (const event of history) {
    if (!event.streamName.startsWith(`${aggregate.category}-`)) continue;
    const id = Number(event.streamName.slice(aggregate.category.length + 1));
    const state = aggregate.evolve(folded.get(id)?.state ?? aggregate.initialState(), event) as State;
    folded.set(id, { state, revision: event.revision });
  }
  return folded;
}

const withoutBookkeeping = ({ _id, id, revision, created_at, updated_at, _search, _position, ...state }: Doc) => ({ id, revision, state });

describe('admin catalogue read model', () => {
  it.each([
    ['developers', ADMIN_DEVELOPERS, developerAggregate],
    ['states', ADMIN_STATES, stateAggregate],
    ['communities', ADMIN_COMMUNITIES, communityAggregate],
    ['sub-communities', ADMIN_SUB_COMMUNITIES, subCommunityAggregate],
    ['unit types', ADMIN_UNIT_TYPES, unitTypeAggregate],
  ] as const)(
    'when the history is projected, then every one of the %s is its stream folded by the write side, with the stream revision',
    async (_label, collection, aggregate) => {
      const readStore = await projected();
      const expected = [...writeSide(aggregate as Aggregate<object | null, DomainEvent>)].map(([id, { state, revision }]) => ({
        id,
        revision,
        state,
      }));
      const { items } = await readStore.find(collection, { sort: [['_id', 1]] });
      expect(expected.length).toBeGreaterThan(0);
      expect(items.map(withoutBookkeeping)).toEqual(expected.sort((a, b) => a.id - b.id));
    },
  );

  it('when the history is projected, then each project, deleted and unpublished ones too, holds its summary and the revision of its stream', async () => {
    const readStore = await projected();
    const expected = writeSide<Project>(projectAggregate as Aggregate<Project | null, DomainEvent>);
    const { items } = await readStore.find<AdminProjectDoc>(ADMIN_PROJECTS, { sort: [['_id', 1]] });
    expect(items).toHaveLength(expected.size);
    for (const project of items) {
      const { state, revision } = expected.get(project.id)!;
      const {
        name,
        slug,
        developer_id,
        state_id,
        community_id,
        sub_community_id,
        nature,
        status,
        published,
        deleted,
        created_at,
        updated_at,
      } = state;
      expect(project).toMatchObject({
        revision,
        ...{ name, slug, developer_id, state_id, community_id, sub_community_id, nature, status, published, deleted },
        ...{ created_at, updated_at },
      });
    }
    expect(items.some((project) => project.deleted)).toBe(true);
    expect(items.some((project) => !project.published && !project.deleted)).toBe(true);
  });

  it("when a project's collection is edited, then its revision and edited_at move while updated_at stays; a developer's rename reaches its search text", async () => {
    const events = await recorded([
      ...referenceCatalogue(),
      projectCreated(1, { name: 'Creek Views', developer_id: 1 }, minute(1)),
      projectEvent('AmenitiesSet', 1, { items: [{ name: 'Pool', icon: null }] }, minute(2)),
      developerEvent({ type: 'DeveloperRevised', data: { developer_id: 1, changes: { name: 'Emaar Group' }, at: minute(3) } }),
    ]);
    const readStore = await projected(events, 2);
    expect(await readStore.get(ADMIN_PROJECTS, 1)).toMatchObject({
      revision: 1,
      created_at: minute(1),
      updated_at: minute(1),
      edited_at: minute(2),
      _search: 'creek views project-1 emaar group dubai marina',
    });
    expect((await readStore.find(ADMIN_PROJECTS, { text: 'emaar group' })).total).toBe(1);
  });

  it('when every event is applied twice, then the read model is the same as applying it once', async () => {
    const once = await projected();
    const twice = createEmbeddedReadStore();
    await projectInBatches(
      twice,
      adminCatalogueProjection,
      history.flatMap((event) => [event, event]),
      9,
    );
    await projectInBatches(twice, adminCatalogueProjection, history, 13);
    expect(await readModelOf(twice, [adminCatalogueProjection])).toEqual(await readModelOf(once, [adminCatalogueProjection]));
  });
});
