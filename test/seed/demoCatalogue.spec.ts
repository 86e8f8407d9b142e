import { demoPlans } from '../../src/seed/demoCatalogueData.js';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { ENTITLEMENTS, SCOPES } from '../../src/access/accessContext.js';
import { projectAggregate, type Project } from '../../src/catalogue/project.js';
import type { UnitTypeKind } from '../../src/catalogue/unitType.js';
import { loadAggregate } from '../../src/domain/commandHandler.js';
import type { EventStore, RecordedEvent } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import type { ReadStore } from '../../src/readStore/readStore.js';
import {
  CommandRunner,
  DEMO_CATALOGUE_EPOCH,
  DemoCatalogueWithoutKeys,
  nextDemoProjectOrdinal,
  seedDemoCatalogue,
} from '../../src/seed/demoCatalogue.js';
import { blobStoredFiles } from '../../src/uploads/blobStoredFiles.js';
import { DemoPictureRenders } from '../../src/seed/demoMedia.js';
import { ImportKeys } from '../../src/import/importKeys.js';
import { ndjson, runImport } from '../import/importLines.js';

const SMALL_CATALOGUE = 30;
const cashPlan = { name: 'Editor cash plan', milestones: [{ label: 'Full payment', percent: 100, due: 'On transfer' }] };
const PRESENT = () => new Date('2030-01-01T00:00:00.000Z');
/** The demo pictures, rendered once for the whole file (rendering is deterministic; demoMedia.spec.ts). */
const renders = new DemoPictureRenders();

const openedStores: Array<{ eventStore: EventStore; readStore: ReadStore; blobStore: BlobStore; blobDir: string }> = [];

afterEach(async () => {
  for (const { eventStore, readStore, blobStore, blobDir } of openedStores.splice(0)) {
    await eventStore.close();
    await readStore.close();
    await blobStore.close();
    rmSync(blobDir, { recursive: true, force: true });
  }
});

/** Fresh stores; the demo files go to a blob store in a temporary folder. */
function freshStores() {
  const blobDir = mkdtempSync(join(tmpdir(), 'seed-blobs-'));
  const stores = {
    eventStore: createSqliteEventStore({ file: ':memory:' }),
    readStore: createEmbeddedReadStore(),
    blobStore: createEmbeddedBlobStore({ dataDir: blobDir }),
  };
  openedStores.push({ ...stores, blobDir });
  return { ...stores, clock: PRESENT };
}

async function allEvents(eventStore: EventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  let page = await eventStore.readAll({ maxCount: 5_000 });
  while (page.length > 0) {
    events.push(...page);
    page = await eventStore.readAll({ after: page.at(-1)!.position, maxCount: 5_000 });
  }
  return events;
}

async function seededProjects(eventStore: EventStore, events: RecordedEvent[]): Promise<Project[]> {
  const ids = events.filter((event) => event.type === 'ProjectCreated').map((event) => (event.data as { project_id: number }).project_id);
  const loaded = await Promise.all(ids.map((id) => loadAggregate(eventStore, projectAggregate, id)));
  return loaded.map((project) => project!.state!);
}

function unitTypeKinds(events: RecordedEvent[]): Map<number, UnitTypeKind> {
  return new Map(
    events
      .filter((event) => event.type === 'UnitTypeCreated')
      .map((event) => {
        const data = event.data as { unit_type_id: number; kind: UnitTypeKind };
        return [data.unit_type_id, data.kind];
      }),
  );
}

async function storedKeys(blobStore: BlobStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of blobStore.list()) keys.push(blob.sha256);
  return keys.sort();
}

async function storedBytes(blobStore: BlobStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await blobStore.open(key))!) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface FileRef {
  key: string;
  content_type: string;
  size_bytes: number;
  file_name: string;
  width?: number;
  height?: number;
}

/** Every stored-file ref (ImageRef, stored PdfDocument, VideoFile) anywhere in the events' data, by event type. */
function fileRefs(events: RecordedEvent[]): Array<{ type: string; ref: FileRef }> {
  const found: Array<{ type: string; ref: FileRef }> = [];
  const visit = (type: string, value: unknown): void => {
    if (Array.isArray(value)) value.forEach((item) => visit(type, item));
    else if (value !== null && typeof value === 'object') {
      if ('key' in value && 'content_type' in value) found.push({ type, ref: value as FileRef });
      else Object.values(value).forEach((item) => visit(type, item));
    }
  };
  for (const event of events) visit(event.type, event.data);
  return found;
}

/** Everything but what the store itself makes up (event ids, recording time). */
const content = (event: RecordedEvent) => ({
  stream: event.streamName,
  revision: event.revision,
  type: event.type,
  data: event.data,
  metadata: event.metadata,
});

describe('demo catalogue seed', () => {
  // Two seeds, each rendering every picture it shows afresh: 19 to 29 s at load 13 to 15, past the default timeout.
  it('when the same catalogue is seeded into two fresh stores, then both logs hold identical events', async () => {
    const first = freshStores();
    const second = freshStores();

    // Each run renders its own pictures, so equal keys mean the files were made again byte for byte.
    const seeded = await seedDemoCatalogue(first, { projects: SMALL_CATALOGUE, renders: new DemoPictureRenders() });
    await seedDemoCatalogue(second, { projects: SMALL_CATALOGUE, renders: new DemoPictureRenders() });

    const firstEvents = (await allEvents(first.eventStore)).map(content);
    expect(seeded).toEqual({ projects: SMALL_CATALOGUE, lines: expect.any(Number), commands: expect.any(Number) });
    expect(firstEvents.length).toBeGreaterThan(SMALL_CATALOGUE * 15);
    expect((await allEvents(second.eventStore)).map(content)).toEqual(firstEvents);
    expect(await storedKeys(second.blobStore)).toEqual(await storedKeys(first.blobStore));
  }, 90_000);

  it('when a small catalogue is seeded, then it has the UAE reference data and at least 50 developers', async () => {
    const deps = freshStores();
    await seedDemoCatalogue(deps, { projects: SMALL_CATALOGUE, renders });
    const events = await allEvents(deps.eventStore);
    const names = (type: string) => events.filter((event) => event.type === type).map((event) => (event.data as { name: string }).name);

    expect(names('StateCreated')).toEqual(expect.arrayContaining(['Dubai', 'Abu Dhabi', 'Sharjah', 'Ras Al Khaimah', 'Ajman']));
    expect(names('CommunityCreated').length).toBeGreaterThanOrEqual(24);
    expect(names('SubCommunityCreated').length).toBeGreaterThanOrEqual(48);
    expect(new Set(names('DeveloperCreated')).size).toBeGreaterThanOrEqual(50);
    expect([...unitTypeKinds(events).values()].sort()).toEqual(expect.arrayContaining(['studio', 'bedrooms', 'bedrooms_or_more', 'other']));
  });

  it('when a catalogue is seeded, then it defines the plans starter, professional and enterprise after the reference data', async () => {
    const deps = freshStores();
    await seedDemoCatalogue(deps, { projects: 2, renders });
    const events = await allEvents(deps.eventStore);
    const plans = events.filter((event) => event.type === 'PlanDefined').map((event) => event.data);
    const firstPlan = events.findIndex((event) => event.type === 'PlanDefined');
    const lastUnitType = events.findLastIndex((event) => event.type === 'UnitTypeCreated');

    expect(plans).toEqual([
      {
        plan_id: 1,
        key: 'starter',
        name: 'Starter',
        scopes: [
          'projects:read',
          'projects:sync',
          'developers:read',
          'communities:read',
          'states:read',
          'subcommunities:read',
          'catalog:read',
          'paymentplans:read',
          'media:read',
          'amenities:read',
          'nearby:read',
          'paymentmethods:read',
          'faqs:read',
        ],
        entitlements: ['images'],
        active: true,
        detail_fields: ['overview', 'description', 'project_types', 'map_embed_html'],
        limits: null,
        at: expect.any(String),
      },
      {
        plan_id: 2,
        key: 'professional',
        name: 'Professional',
        scopes: SCOPES.filter((scope) => scope !== 'webhooks:manage'),
        entitlements: ENTITLEMENTS.filter((entitlement) => entitlement !== 'webhooks'),
        active: true,
        detail_fields: null,
        limits: demoPlans[1]!.limits,
        at: expect.any(String),
      },
      {
        plan_id: 3,
        key: 'enterprise',
        name: 'Enterprise',
        scopes: [...SCOPES],
        entitlements: [...ENTITLEMENTS],
        active: true,
        detail_fields: null,
        limits: demoPlans[2]!.limits,
        at: expect.any(String),
      },
    ]);
    expect(firstPlan).toBeGreaterThan(lastUnitType);
    expect(events.slice(firstPlan).find((event) => event.type === 'ProjectCreated')).toBeDefined();
  });

  it('when a small catalogue is seeded, then its projects cover every bedroom kind, missing bedroom data and missing coordinates', async () => {
    const deps = freshStores();
    await seedDemoCatalogue(deps, { projects: SMALL_CATALOGUE, renders });
    const events = await allEvents(deps.eventStore);
    const kinds = unitTypeKinds(events);
    const projects = await seededProjects(deps.eventStore, events);
    const kindsOf = (project: Project) => project.unit_type_ids.map((id) => kinds.get(id));

    expect(projects).toHaveLength(SMALL_CATALOGUE);
    expect(new Set(projects.flatMap(kindsOf))).toEqual(new Set(['studio', 'bedrooms', 'bedrooms_or_more', 'other']));
    expect(projects.some((project) => project.unit_type_ids.length === 0)).toBe(true);
    expect(projects.some((project) => project.unit_type_ids.length > 0 && kindsOf(project).every((kind) => kind === 'other'))).toBe(true);
    expect(projects.some((project) => project.location === null)).toBe(true);
    expect(projects.some((project) => project.location !== null)).toBe(true);
  });

  it('when a small catalogue is seeded, then projects are published and unpublished, in every status and of both natures, with numeric and text areas', async () => {
    const deps = freshStores();
    await seedDemoCatalogue(deps, { projects: SMALL_CATALOGUE, renders });
    const projects = await seededProjects(deps.eventStore, await allEvents(deps.eventStore));
    const areas = projects.flatMap((project) => [project.area_from, project.area_to]);

    expect(new Set(projects.map((project) => project.published))).toEqual(new Set([true, false]));
    expect(new Set(projects.map((project) => project.status))).toEqual(
      new Set(['upcoming', 'under_construction', 'completed', 'sold_out']),
    );
    expect(new Set(projects.map((project) => project.nature))).toEqual(new Set(['off_plan', 'ready']));
    expect(areas.some((area) => typeof area === 'number' && !Number.isInteger(area))).toBe(true);
    expect(areas.some((area) => typeof area === 'string')).toBe(true);
    expect(projects.some((project) => project.starting_from !== null)).toBe(true);
  });

  it('when a small catalogue is seeded, then every kind of related resource is present and payment plans sum to 100', async () => {
    const deps = freshStores();
    await seedDemoCatalogue(deps, { projects: SMALL_CATALOGUE, renders });
    const events = await allEvents(deps.eventStore);
    const types = new Set(events.map((event) => event.type));
    const projects = await seededProjects(deps.eventStore, events);
    const videos = projects.flatMap((project) => (project.video ? [project.video] : []));
    const milestoneSums = projects
      .flatMap((project) => Object.values(project.payment_plans))
      .map((plan) => plan.milestones.reduce((sum, milestone) => sum + milestone.percent, 0));

    for (const type of [
      'FloorPlanAdded',
      'PaymentPlanAdded',
      'GalleryPictureAdded',
      'MasterPlanDocumentAttached',
      'VideoSet',
      'AmenitiesSet',
      'NearbyPlacesSet',
      'PaymentMethodsSet',
      'FaqsSet',
      'VirtualToursSet',
      'FloorPlatesSet',
      'BrochureAttached',
      'RelatedProjectsSet',
    ]) {
      expect(types, type).toContain(type);
    }
    expect(videos.some((video) => video.external_url !== null)).toBe(true);
    expect(videos.some((video) => video.file !== null)).toBe(true);
    expect(milestoneSums.length).toBeGreaterThan(0);
    for (const sum of milestoneSums) expect(sum).toBeCloseTo(100, 6);
    expect(types).toContain('ProjectRevised');
    expect(types).toContain('GalleryPictureReplaced');
  });

  it('when a catalogue is seeded, then every event went through the import or the admin commands: actor seed, synthetic times, unique slugs', async () => {
    const deps = freshStores();
    await seedDemoCatalogue(deps, { projects: SMALL_CATALOGUE, renders });
    const events = await allEvents(deps.eventStore);
    const projects = await seededProjects(deps.eventStore, events);
    // Id allocations, key bindings and slug reservations are the commands' and the import's bookkeeping, without metadata.
    const commandEvents = events.filter((event) =>
      /^(project|state|community|subCommunity|developer|unitType|plan)-/.test(event.streamName),
    );
    const times = commandEvents.map((event) => String(event.metadata.at));

    expect(new Set(projects.map((project) => project.slug)).size).toBe(SMALL_CATALOGUE);
    expect(events.filter((event) => event.type === 'SlugReserved' && event.streamName.startsWith('projectSlug-'))).toHaveLength(
      SMALL_CATALOGUE,
    );
    expect(new Set(commandEvents.map((event) => event.metadata.actor))).toEqual(new Set(['seed']));
    expect(times.every((time) => time > DEMO_CATALOGUE_EPOCH.toISOString() && time < PRESENT().toISOString())).toBe(true);
    expect([...times].sort()).toEqual(times);
  });

  it('when a catalogue is seeded, then its records are bound to demo import keys, so an editor’s import adds to a demo project', async () => {
    const deps = freshStores();
    await seedDemoCatalogue(deps, { projects: 3, renders });
    const keys = await ImportKeys.load(deps.eventStore);
    const project = await loadAggregate(deps.eventStore, projectAggregate, keys.get('project', 'demo-project-1')!.id);
    const paymentPlanLine = { type: 'payment_plan', key: 'editor-pp', data: { project: 'demo-project-1', ...cashPlan } };

    const { report, refusals } = await runImport(deps.eventStore, ndjson(paymentPlanLine));

    expect(project!.state!.slug).toMatch(/-2$/);
    expect(keys.get('state', 'demo-state-dubai')).toBeDefined();
    expect(keys.get('developer', 'demo-developer-azure-crest-developments')).toBeDefined();
    expect(keys.get('floor_plan', 'demo-project-1-floor-plan-1')).toEqual({ id: expect.any(Number), projectId: project!.state!.id });
    expect(refusals).toEqual([]);
    expect(report.created).toBe(1);
    const after = await loadAggregate(deps.eventStore, projectAggregate, project!.state!.id);
    expect(Object.values(after!.state!.payment_plans).map((plan) => plan.name)).toContain(cashPlan.name);
  });

  it('when the demo state exists without its import key, then seeding refuses with DemoCatalogueWithoutKeys and writes nothing', async () => {
    const deps = freshStores();
    const commands = new CommandRunner({ ...deps, storedFiles: blobStoredFiles(deps.blobStore) });
    await commands.create('createState', { name: 'Dubai', slug: 'dubai', country_code: 'AE' });
    const before = await allEvents(deps.eventStore);

    await expect(seedDemoCatalogue(deps, { projects: 1, renders })).rejects.toBeInstanceOf(DemoCatalogueWithoutKeys);

    expect(await allEvents(deps.eventStore)).toEqual(before);
  });

  it('when more projects are seeded later, then reference data is reused and the new projects continue the ordinals', async () => {
    const deps = freshStores();
    await seedDemoCatalogue(deps, { projects: SMALL_CATALOGUE, renders });
    const before = await allEvents(deps.eventStore);
    const startAt = await nextDemoProjectOrdinal(deps.eventStore);

    const more = await seedDemoCatalogue(deps, { projects: 5, startAt, renders });

    const added = (await allEvents(deps.eventStore)).slice(before.length);
    const projects = await seededProjects(deps.eventStore, [...before, ...added]);
    expect(startAt).toBe(SMALL_CATALOGUE);
    expect(more.projects).toBe(5);
    expect(added.filter((event) => /^((State|Community|SubCommunity|Developer|UnitType)Created|PlanDefined)$/.test(event.type))).toEqual(
      [],
    );
    expect(added.filter((event) => event.type === 'ProjectCreated')).toHaveLength(5);
    expect(new Set(projects.map((project) => project.slug)).size).toBe(SMALL_CATALOGUE + 5);
    const lastAt = (events: RecordedEvent[]) =>
      events
        .map((event) => event.metadata.at)
        .filter(Boolean)
        .map(String);
    expect(lastAt(added)[0]! > lastAt(before).at(-1)!).toBe(true);
  });
  it('when a catalogue is seeded, then every file ref names a stored blob with its facts, and the pictures are real pictures of that size', async () => {
    const deps = freshStores();
    await seedDemoCatalogue(deps, { projects: SMALL_CATALOGUE, renders });
    const refs = fileRefs(await allEvents(deps.eventStore));
    const keys = new Set(refs.map(({ ref }) => ref.key));

    for (const type of [
      'CommunityCreated',
      'DeveloperCreated',
      'FloorPlanAdded',
      'GalleryPictureAdded',
      'GalleryPictureReplaced',
      'VideoSet',
      'FloorPlatesSet',
      'MasterPlanDocumentAttached',
      'BrochureAttached',
    ]) {
      expect(
        refs.some((found) => found.type === type),
        type,
      ).toBe(true);
    }
    for (const key of keys) {
      const { ref } = refs.find((found) => found.ref.key === key)!;
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(await deps.blobStore.stat(key), ref.file_name).toMatchObject({ size: ref.size_bytes, contentType: ref.content_type });
      if (ref.content_type.startsWith('image/')) {
        const bytes = await storedBytes(deps.blobStore, key);
        const metadata = await sharp(bytes).metadata();
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(key);
        expect(metadata.autoOrient, ref.file_name).toEqual({ width: ref.width, height: ref.height });
      }
    }
    // Shared masters, each stored once; a brochure per project.
    expect(keys.size).toBeLessThan(refs.length);
    const brochures = refs.filter((found) => found.type === 'BrochureAttached').map((found) => found.ref.key);
    expect(new Set(brochures).size).toBe(brochures.length);
    expect(refs.some(({ ref }) => ref.content_type === 'video/mp4')).toBe(true);
  });
});
