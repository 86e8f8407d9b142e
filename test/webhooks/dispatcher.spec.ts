import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rebuildProjections } from '../../src/projectionEngine/rebuild.js';
import { allProjections } from '../../projections/index.js';
import { webhookDeliveryJobSchema } from '../../src/webhooks/webhookDeliveries.js';
import {
  clientEvent,
  communityEvent,
  referenceCatalogue,
  stateEvent,
  subCommunityEvent,
  clientRegistered,
  developerEvent,
  imageRef,
  minute,
  planDefined,
  projectCreated,
  projectEvent,
  type StreamEvent,
} from '../support/catalogueEvents.js';
import { startDispatcherHarness, webhookCreated, webhookIdOf, type DispatcherHarness } from './dispatcherHarness.js';

const everything = [
  'project.created',
  'project.updated',
  'project.status_changed',
  'project.deleted',
  'developer.updated',
  'community.updated',
] as const;

/** Plan 1 grants webhooks; clients 1 (whole catalogue) and 2 (restricted to state 2) are on it. */
function subscribers(): StreamEvent[] {
  return [
    planDefined(1, { entitlements: ['webhooks'], scopes: ['webhooks:manage'] }),
    clientRegistered(1),
    clientRegistered(2),
    clientEvent({
      type: 'ClientRestrictionSet',
      data: { client_id: 2, restriction: { states: [{ state_id: 2, community_ids: [] }] }, at: minute(0) },
    }),
  ];
}

/** The reference catalogue with every state, community, sub-community and developer published (as apiFixture's). */
function publishedReferenceCatalogue(): StreamEvent[] {
  const at = minute(0);
  return [
    ...referenceCatalogue(),
    ...[1, 2].map((id) => stateEvent({ type: 'StatePublished', data: { state_id: id, at } })),
    ...[1, 2, 3].map((id) => communityEvent({ type: 'CommunityPublished', data: { community_id: id, at } })),
    ...[1, 2].map((id) => subCommunityEvent({ type: 'SubCommunityPublished', data: { sub_community_id: id, at } })),
    ...[1, 2].map((id) => developerEvent({ type: 'DeveloperPublished', data: { developer_id: id, at } })),
  ];
}

const publishedProject = (id: number): StreamEvent[] => [projectCreated(id), projectEvent('ProjectPublished', id, {}, minute(1))];

async function deliveries(harness: DispatcherHarness) {
  return (await harness.jobs()).map((job) => {
    const delivery = webhookDeliveryJobSchema.parse(job.data);
    return { jobId: job.id, ...delivery, parsed: JSON.parse(delivery.body) as { id: string; type: string; created_at: string; data: any } };
  });
}

describe('webhook dispatcher', () => {
  let harness: DispatcherHarness;
  beforeEach(async () => {
    harness = await startDispatcherHarness();
    await harness.given([...publishedReferenceCatalogue(), ...subscribers()]);
  });
  afterEach(async () => {
    await harness.close();
  });

  it('when a published project is revised, then each active subscribed webhook whose client sees it gets one delivery, with the summary and sequence', async () => {
    await harness.given([
      webhookCreated(webhookIdOf(1), 1, everything),
      webhookCreated(webhookIdOf(2), 1, ['developer.updated']),
      webhookCreated(webhookIdOf(3), 2, everything),
      ...publishedProject(10),
      projectEvent('ProjectRevised', 10, { changes: { name: 'Marina Heights' } }, minute(2)),
    ]);
    const sent = await deliveries(harness);
    expect(sent.map((delivery) => [delivery.webhook_id, delivery.event_type])).toEqual([
      [webhookIdOf(1), 'project.created'],
      [webhookIdOf(1), 'project.updated'],
    ]);
    const updated = sent[1]!;
    expect(updated.jobId).toBe(`${updated.event_id}.${webhookIdOf(1)}`);
    expect(updated.event_id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(updated.parsed).toMatchObject({ id: updated.event_id, type: 'project.updated', created_at: minute(2) });
    expect(updated.parsed.data).toMatchObject({ id: 10, slug: 'project-10', name: 'Marina Heights', community: { id: 1 }, sequence: 2 });
    expect(Object.keys(updated.parsed)).toEqual(['id', 'type', 'created_at', 'data']);
  });

  it('when a project is unpublished and then deleted, then receivers get project.deleted once with id and slug only', async () => {
    await harness.given([webhookCreated(webhookIdOf(1), 1, everything), ...publishedProject(11)]);
    await harness.given([projectEvent('ProjectUnpublished', 11, {}, minute(3)), projectEvent('ProjectDeleted', 11, {}, minute(4))]);
    const sent = await deliveries(harness);
    expect(sent.map((delivery) => delivery.event_type)).toEqual(['project.created', 'project.deleted']);
    expect(sent[1]!.parsed.data).toEqual({ id: 11, slug: 'project-11', sequence: 2 });
  });

  it('when a project moves into the community of a restricted client, then that client gets project.created and the other project.updated', async () => {
    await harness.given([
      webhookCreated(webhookIdOf(1), 1, everything),
      webhookCreated(webhookIdOf(3), 2, everything),
      ...publishedProject(12),
    ]);
    await harness.given([projectEvent('ProjectRevised', 12, { changes: { community_id: 3, state_id: 2 } }, minute(5))]);
    const moved = (await deliveries(harness)).filter((delivery) => delivery.parsed.created_at === minute(5));
    expect(moved.map((delivery) => [delivery.webhook_id, delivery.event_type])).toEqual([
      [webhookIdOf(1), 'project.updated'],
      [webhookIdOf(3), 'project.created'],
    ]);
  });

  it('when a client is in Evaluation Mode, then it hears only of the projects of its sample', async () => {
    await harness.given([
      clientRegistered(3),
      clientEvent({ type: 'EvaluationStarted', data: { client_id: 3, sample_project_ids: [16], at: minute(0) } }),
      webhookCreated(webhookIdOf(4), 3, everything),
      ...publishedProject(16),
      ...publishedProject(17),
    ]);
    const sent = await deliveries(harness);
    expect(sent.map((delivery) => [delivery.webhook_id, delivery.parsed.data.id])).toEqual([[webhookIdOf(4), 16]]);
  });

  it('when an edit is image-only, of an unpublished project or before the webhook existed, then nothing is enqueued', async () => {
    await harness.given([...publishedProject(13), projectEvent('ProjectRevised', 13, { changes: { name: 'Before' } }, minute(2))]);
    await harness.given([
      webhookCreated(webhookIdOf(1), 1, everything),
      projectEvent('GalleryPictureReplaced', 13, { media_id: 1, image: imageRef('a'.repeat(64)) }, minute(3)),
      projectCreated(14),
      projectEvent('ProjectRevised', 14, { changes: { name: 'Draft' } }, minute(3)),
    ]);
    expect(await deliveries(harness)).toEqual([]);
  });

  it('when a published developer is revised, then developer.updated carries its representation', async () => {
    await harness.given([webhookCreated(webhookIdOf(1), 1, ['developer.updated'])]);
    await harness.given([
      developerEvent({ type: 'DeveloperRevised', data: { developer_id: 1, changes: { name: 'Emaar' }, at: minute(6) } }),
    ]);
    const [sent] = await deliveries(harness);
    expect(sent?.parsed).toMatchObject({ type: 'developer.updated', data: { id: 1, name: 'Emaar', slug: 'emaar', sequence: 2 } });
  });

  it('when the dispatcher restarts, or the read models are rebuilt, then nothing is enqueued again', async () => {
    await harness.given([webhookCreated(webhookIdOf(1), 1, everything), ...publishedProject(15)]);
    const before = await deliveries(harness);
    expect(before).toHaveLength(1);
    await harness.restartDispatcher();
    await rebuildProjections({ eventStore: harness.eventStore, readStore: harness.readStore, projections: allProjections });
    await harness.given([
      projectEvent('ProjectStatusChanged', 15, { status: 'completed', previous_status: 'under_construction' }, minute(7)),
    ]);
    const after = await deliveries(harness);
    expect(after.map((delivery) => delivery.event_type)).toEqual(['project.created', 'project.status_changed']);
  });
});
