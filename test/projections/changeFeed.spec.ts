import { afterEach, describe, expect, it } from 'vitest';
import {
  PROJECT_CHANGE_SUMMARIES,
  PROJECT_CHANGES,
  changeFeedProjection,
  type ProjectChangeDoc,
  type ProjectChangeSummaryDoc,
} from '../../projections/changeFeed.js';
import { PROJECTS, projectsProjection, type ProjectDoc } from '../../projections/projects.js';
import { startProjector, type Projector } from '../../src/projectionEngine/runtime.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { sequenceId, type ReadStore } from '../../src/readStore/readStore.js';
import {
  appendEvents,
  imageRef,
  minute,
  projectCreated,
  projectEvent,
  referenceCatalogue,
  type StreamEvent,
} from '../support/catalogueEvents.js';
import { projectInBatches, readModelOf, recorded, silentLogger } from '../support/projectionHarness.js';

let running: { eventStore: EventStore; readStore: ReadStore; projector: Projector } | null = null;

afterEach(async () => {
  await running?.projector.stop();
  await running?.eventStore.close();
  await running?.readStore.close();
  running = null;
});

/** A live projector over fresh stores; `append` returns once the appended events are projected. */
async function liveCatalogue() {
  const eventStore = createSqliteEventStore({ file: ':memory:' });
  const readStore = createEmbeddedReadStore();
  const projector = await startProjector({
    eventStore,
    readStore,
    projections: [projectsProjection, changeFeedProjection],
    logger: silentLogger(),
  });
  running = { eventStore, readStore, projector };
  const append = async (events: StreamEvent[]) => {
    const position = await appendEvents(eventStore, events);
    await projector.waitForPosition(position, 5_000);
    return position;
  };
  const changes = async () =>
    (
      await readStore.find<ProjectChangeDoc>(PROJECT_CHANGES, {
        sort: [
          ['changed_at', 1],
          ['position', 1],
        ],
      })
    ).items;
  const project = async (id: number) => (await readStore.get<ProjectDoc>(PROJECTS, id))!;
  const summary = async (id: number) => readStore.get<ProjectChangeSummaryDoc>(PROJECT_CHANGE_SUMMARIES, id);
  await append(referenceCatalogue());
  return { append, changes, project, summary };
}

describe('change feed', () => {
  it('when the project itself is edited, then each edit is an entry of kind project and updated_at follows', async () => {
    const feed = await liveCatalogue();
    const created = await feed.append([projectCreated(1, {}, minute(1))]);
    await feed.append([
      projectEvent('ProjectRevised', 1, { changes: { name: 'Marina Vista' } }, minute(2)),
      projectEvent('ProjectPublished', 1, {}, minute(3)),
      projectEvent('ProjectStatusChanged', 1, { status: 'completed', previous_status: 'under_construction' }, minute(4)),
      projectEvent('ProjectUnpublished', 1, {}, minute(5)),
      projectEvent('ProjectDeleted', 1, {}, minute(6)),
    ]);
    const changes = await feed.changes();
    expect(changes.map(({ event_type, kind, changed_at }) => [event_type, kind, changed_at])).toEqual([
      ['ProjectCreated', 'project', minute(1)],
      ['ProjectRevised', 'project', minute(2)],
      ['ProjectPublished', 'project', minute(3)],
      ['ProjectStatusChanged', 'project', minute(4)],
      ['ProjectUnpublished', 'project', minute(5)],
      ['ProjectDeleted', 'project', minute(6)],
    ]);
    expect(changes[0]).toEqual({
      _id: sequenceId(Number(created)),
      position: Number(created),
      project_id: 1,
      changed_at: minute(1),
      event_type: 'ProjectCreated',
      kind: 'project',
      withdrawn_from_community_id: null,
    });
    expect(changes.map((change) => change.withdrawn_from_community_id)).toEqual([null, null, null, null, 1, null]);
    expect((await feed.project(1)).updated_at).toBe(minute(6));
  });

  it('when payment plans, gallery, floor plans, amenities or FAQs are edited, then each edit is reported without moving updated_at', async () => {
    const feed = await liveCatalogue();
    await feed.append([projectCreated(1, {}, minute(1))]);
    const plan = { payment_plan_id: 5, name: 'Plan', milestones: [{ label: 'All', percent: 100, due: null }] };
    await feed.append([
      projectEvent('PaymentPlanAdded', 1, { payment_plan: plan }, minute(10)),
      projectEvent('PaymentPlanRevised', 1, { payment_plan_id: 5, changes: { name: 'Easy' } }, minute(11)),
      projectEvent('PaymentPlanRemoved', 1, { payment_plan_id: 5 }, minute(12)),
      projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 6, caption: null, position: 0, image: imageRef('a') } }, minute(13)),
      projectEvent('GalleryPictureRevised', 1, { media_id: 6, changes: { caption: 'Lobby' } }, minute(14)),
      projectEvent('GalleryPictureRemoved', 1, { media_id: 6 }, minute(15)),
      projectEvent(
        'FloorPlanAdded',
        1,
        { floor_plan: { floor_plan_id: 7, title: 'A', unit_type_id: null, area: null, price: null, image: imageRef('f') } },
        minute(16),
      ),
      projectEvent('FloorPlanRevised', 1, { floor_plan_id: 7, changes: { title: 'B' } }, minute(17)),
      projectEvent('FloorPlanRemoved', 1, { floor_plan_id: 7 }, minute(18)),
      projectEvent('AmenitiesSet', 1, { items: [{ name: 'Pool', icon: null }] }, minute(19)),
      projectEvent('FaqsSet', 1, { items: [{ question: 'Q', answer: 'A' }] }, minute(20)),
    ]);
    const related = (await feed.changes()).slice(1);
    expect(related.map(({ kind, changed_at }) => [kind, changed_at])).toEqual([
      ['payment_plans', minute(10)],
      ['payment_plans', minute(11)],
      ['payment_plans', minute(12)],
      ['media', minute(13)],
      ['media', minute(14)],
      ['media', minute(15)],
      ['floor_plans', minute(16)],
      ['floor_plans', minute(17)],
      ['floor_plans', minute(18)],
      ['amenities', minute(19)],
      ['faqs', minute(20)],
    ]);
    expect((await feed.project(1)).updated_at).toBe(minute(1));
  });

  it('when only an image is replaced or another collection is edited, then nothing is reported', async () => {
    const feed = await liveCatalogue();
    await feed.append([
      projectCreated(1, {}, minute(1)),
      projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 6, caption: null, position: 0, image: imageRef('a') } }, minute(2)),
      projectEvent(
        'FloorPlanAdded',
        1,
        { floor_plan: { floor_plan_id: 7, title: 'A', unit_type_id: null, area: null, price: null, image: imageRef('f') } },
        minute(3),
      ),
    ]);
    const before = await feed.changes();
    const pdf = { key: 'k', file_name: 'x.pdf', content_type: 'application/pdf' as const, size_bytes: 1 };
    await feed.append([
      projectEvent('GalleryPictureReplaced', 1, { media_id: 6, image: imageRef('b') }, minute(30)),
      projectEvent('FloorPlanImageReplaced', 1, { floor_plan_id: 7, image: imageRef('g') }, minute(31)),
      projectEvent(
        'VideoSet',
        1,
        { video: { title: 'T', description: null, external_url: null, file: null, thumbnail: null } },
        minute(32),
      ),
      projectEvent('VideoRemoved', 1, {}, minute(33)),
      projectEvent('NearbyPlacesSet', 1, { items: [] }, minute(34)),
      projectEvent('PaymentMethodsSet', 1, { items: [] }, minute(35)),
      projectEvent('VirtualToursSet', 1, { items: [] }, minute(36)),
      projectEvent('FloorPlatesSet', 1, { items: [] }, minute(37)),
      projectEvent('RelatedProjectsSet', 1, { project_ids: [] }, minute(38)),
      projectEvent('BrochureAttached', 1, { brochure: pdf }, minute(39)),
      projectEvent('BrochureRemoved', 1, {}, minute(40)),
      projectEvent('MasterPlanDocumentAttached', 1, { document: pdf }, minute(41)),
      projectEvent('MasterPlanDocumentRemoved', 1, {}, minute(42)),
    ]);
    expect(await feed.changes()).toEqual(before);
    expect((await feed.project(1)).updated_at).toBe(minute(1));
  });

  it('when a project is taken out of where it was published, then that entry names the community; other entries name none', async () => {
    const feed = await liveCatalogue();
    await feed.append([
      projectCreated(1, { community_id: 1, state_id: 1 }, minute(1)),
      projectEvent('ProjectDeleted', 1, {}, minute(2)),
      projectCreated(2, { community_id: 1, state_id: 1 }, minute(3)),
      projectEvent('ProjectPublished', 2, {}, minute(4)),
      projectEvent('ProjectRevised', 2, { changes: { community_id: 2 } }, minute(5)),
      projectEvent('ProjectRevised', 2, { changes: { name: 'Renamed' } }, minute(6)),
      projectEvent(
        'PaymentPlanAdded',
        2,
        { payment_plan: { payment_plan_id: 5, name: 'Plan', milestones: [{ label: 'All', percent: 100, due: null }] } },
        minute(7),
      ),
      projectEvent('ProjectDeleted', 2, {}, minute(8)),
      projectCreated(3, { community_id: 1, state_id: 1 }, minute(9)),
      projectEvent('ProjectPublished', 3, {}, minute(10)),
      projectEvent('ProjectUnpublished', 3, {}, minute(11)),
      projectEvent('ProjectRevised', 3, { changes: { community_id: 3, state_id: 2 } }, minute(12)),
      projectEvent('ProjectPublished', 3, {}, minute(13)),
      projectEvent('ProjectRevised', 3, { changes: { community_id: 3 } }, minute(14)),
      projectEvent('ProjectDeleted', 3, {}, minute(15)),
    ]);
    const withdrawn = (await feed.changes()).map((change) => [change.project_id, change.event_type, change.withdrawn_from_community_id]);
    expect(withdrawn).toEqual([
      [1, 'ProjectCreated', null],
      [1, 'ProjectDeleted', null],
      [2, 'ProjectCreated', null],
      [2, 'ProjectPublished', null],
      [2, 'ProjectRevised', 1],
      [2, 'ProjectRevised', null],
      [2, 'PaymentPlanAdded', null],
      [2, 'ProjectDeleted', 2],
      [3, 'ProjectCreated', null],
      [3, 'ProjectPublished', null],
      [3, 'ProjectUnpublished', 1],
      [3, 'ProjectRevised', null],
      [3, 'ProjectPublished', null],
      [3, 'ProjectRevised', null],
      [3, 'ProjectDeleted', 3],
    ]);
  });

  it('when a project is published, moved, edited and withdrawn, then its summary keeps the latest change per kind and each removal with the changes up to it', async () => {
    const feed = await liveCatalogue();
    const plan = { payment_plan_id: 5, name: 'Plan', milestones: [{ label: 'All', percent: 100, due: null }] };
    await feed.append([projectCreated(1, { community_id: 1, state_id: 1 }, minute(1)), projectEvent('ProjectPublished', 1, {}, minute(2))]);
    expect(await feed.summary(1)).toMatchObject({
      published: true,
      community_id: 1,
      kinds: { project: minute(2) },
      changed_at: minute(2),
      withdrawals: [],
      feed_at: minute(2),
      feed_community_id: 1,
      left_community_ids: [],
    });
    await feed.append([
      projectEvent('PaymentPlanAdded', 1, { payment_plan: plan }, minute(3)),
      projectEvent('ProjectRevised', 1, { changes: { community_id: 2 } }, minute(4)),
      projectEvent('AmenitiesSet', 1, { items: [] }, minute(5)),
    ]);
    const moved = await feed.summary(1);
    expect(moved).toMatchObject({
      published: true,
      community_id: 2,
      kinds: { project: minute(4), payment_plans: minute(3), amenities: minute(5) },
      changed_at: minute(5),
      withdrawals: [{ community_id: 1, kinds: { project: minute(4), payment_plans: minute(3) }, changed_at: minute(4) }],
      feed_at: minute(5),
      feed_community_id: 2,
      left_community_ids: [1],
    });
    await feed.append([
      projectEvent('ProjectUnpublished', 1, {}, minute(6)),
      projectEvent('FaqsSet', 1, { items: [] }, minute(7)),
      projectEvent('ProjectRevised', 1, { changes: { community_id: 1 } }, minute(8)),
    ]);
    // A move while unpublished withdraws nothing: the feed still counts from the removal from community 2.
    expect(await feed.summary(1)).toMatchObject({
      published: false,
      community_id: 1,
      changed_at: minute(8),
      withdrawals: [
        { community_id: 1, changed_at: minute(4) },
        { community_id: 2, kinds: { project: minute(6), payment_plans: minute(3), amenities: minute(5) }, changed_at: minute(6) },
      ],
      feed_at: minute(6),
      feed_community_id: 2,
      left_community_ids: [1],
    });
    await feed.append([projectEvent('ProjectPublished', 1, {}, minute(9)), projectEvent('ProjectDeleted', 1, {}, minute(10))]);
    expect(await feed.summary(1)).toMatchObject({
      withdrawals: [{ community_id: 2 }, { community_id: 1, changed_at: minute(10) }],
      feed_at: minute(10),
      feed_community_id: 1,
      left_community_ids: [2],
    });
  });

  it('when a project is never published, then its summary has no place in the feed; an event of a project never created has no summary', async () => {
    const feed = await liveCatalogue();
    await feed.append([
      projectCreated(1, {}, minute(1)),
      projectEvent('ProjectRevised', 1, { changes: { name: 'Draft' } }, minute(2)),
      projectEvent('AmenitiesSet', 9, { items: [] }, minute(3)),
    ]);
    expect(await feed.summary(1)).toMatchObject({ published: false, changed_at: minute(2), feed_at: null, feed_community_id: null });
    expect(await feed.summary(9)).toBeNull();
    expect((await feed.changes()).map((change) => change.project_id)).toEqual([1, 1, 9]);
  });

  it('when every event is applied twice, then the entries and summaries are the same as applying each once', async () => {
    const plan = { payment_plan_id: 5, name: 'Plan', milestones: [{ label: 'All', percent: 100, due: null }] };
    const history = await recorded([
      ...referenceCatalogue(),
      projectCreated(1, { community_id: 1, state_id: 1 }, minute(1)),
      projectEvent('ProjectPublished', 1, {}, minute(2)),
      projectEvent('PaymentPlanAdded', 1, { payment_plan: plan }, minute(3)),
      projectEvent('ProjectRevised', 1, { changes: { community_id: 2 } }, minute(4)),
      projectEvent('ProjectUnpublished', 1, {}, minute(5)),
      projectEvent('ProjectPublished', 1, {}, minute(6)),
      projectCreated(2, { community_id: 1, state_id: 1 }, minute(7)),
      projectEvent('ProjectPublished', 2, {}, minute(8)),
      projectEvent('FaqsSet', 2, { items: [] }, minute(9)),
      projectEvent('ProjectDeleted', 2, {}, minute(10)),
      projectEvent('ProjectDeleted', 1, {}, minute(11)),
    ]);
    const once = createEmbeddedReadStore();
    const twice = createEmbeddedReadStore();
    try {
      await projectInBatches(once, changeFeedProjection, history, 4);
      await projectInBatches(
        twice,
        changeFeedProjection,
        history.flatMap((event) => [event, event]),
        5,
      );
      await projectInBatches(twice, changeFeedProjection, history, 3);
      const model = await readModelOf(once, [changeFeedProjection]);
      expect(model[PROJECT_CHANGE_SUMMARIES]).toHaveLength(2);
      expect(await readModelOf(twice, [changeFeedProjection])).toEqual(model);
    } finally {
      await once.close();
      await twice.close();
    }
  });
});
