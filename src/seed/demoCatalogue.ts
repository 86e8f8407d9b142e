import { z } from 'zod';
import type { BlobStore } from '../blobStore/blobStore.js';
import { projectAggregate, type Project, type ProjectStatus } from '../catalogue/project.js';
import { loadAggregate } from '../domain/commandHandler.js';
import { idSequenceStream } from '../domain/idAllocator.js';
import { slugHolder } from '../domain/slugReservations.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { RecordImport } from '../import/catalogueImport.js';
import type { ImportRecordType } from '../import/importLines.js';
import type { AdminDeps, AdminRoute, AdminRouteResult } from '../http/adminRoute.js';
import { accessRoutes } from '../http/adminRoutes/accessRoutes.js';
import { currencyRateRoutes } from '../http/adminRoutes/currencyRateRoutes.js';
import { projectRoutes } from '../http/adminRoutes/projectRoutes.js';
import { referenceDataRoutes } from '../http/adminRoutes/referenceDataRoutes.js';
import type { Logger } from '../logger.js';
import { currencyRateAggregate, currencyRateId } from '../pdf/currencyRate.js';
import type { ReadStore } from '../readStore/readStore.js';
import { blobStoredFiles } from '../uploads/blobStoredFiles.js';
import {
  amenityCatalogue,
  demoCurrencyRates,
  demoDeveloperNames,
  demoPlans,
  demoStates,
  demoUnitMixes,
  demoUnitTypes,
  faqCatalogue,
  nearbyCatalogue,
  paymentMethodCatalogue,
  projectNamePrefixes,
  projectNameSuffixes,
  type DemoCommunity,
} from './demoCatalogueData.js';
import {
  DemoMedia,
  FACADE_VARIANTS,
  FLOOR_PLAN_VARIANTS,
  FLOOR_PLATE_VARIANTS,
  demoBrochurePdf,
  demoMasterPlanPdf,
  type DemoBrochure,
  type DemoPicture,
  type DemoPictureRenders,
  type StoredDemoFile,
} from './demoMedia.js';
import { Random, mixSeed } from './random.js';

/** Where the demo history starts; it moves forward a minute or so per command. */
export const DEMO_CATALOGUE_EPOCH = new Date('2024-01-01T00:00:00.000Z');

export interface SeedDeps {
  eventStore: EventStore;
  readStore: ReadStore;
  /**
   * Where the demo's pictures, documents and video are stored before a command names them (src/seed/demoMedia.ts),
   * as an upload stores a file before its command is sent.
   */
  blobStore: BlobStore;
  /** The present: the synthetic history of the seed never gets later than this. */
  clock: () => Date;
}

export interface SeedOptions {
  projects: number;
  logger?: Logger;
  /** Ordinal of the first project (0 for a fresh catalogue); see nextDemoProjectOrdinal. */
  startAt?: number;
  /** Pictures already rendered, to reuse (tests that seed many catalogues share one). */
  renders?: DemoPictureRenders;
}

export interface SeedResult {
  projects: number;
  /** Import lines: the catalogue's records and their parts. */
  lines: number;
  /** Admin commands run: plans, currency rates, brochures and the later edits. */
  commands: number;
}

const SEED_ACTOR = 'seed';
const RANDOM_SEED = 0x5eed_2024;
const MINUTE_MS = 60_000;
/** Reference data takes the first day; then every project ordinal gets its own hour of history. */
const PROJECT_TIMELINE_START_MS = DEMO_CATALOGUE_EPOCH.getTime() + 24 * 60 * MINUTE_MS;
const PROJECT_SLOT_MS = 60 * MINUTE_MS;
const PROGRESS_EVERY = 500;
/**
 * From this many projects on, nearly every picture of the pool is shown somewhere, so all are rendered
 * ahead in the background while the commands run; smaller seeds render only what they show.
 */
const RENDER_AHEAD_FROM = 100;
/** See ProjectPlan: the files of this many projects are made while the commands of the current one run. */
const PLAN_AHEAD = 256;
/** See attachBrochures: brochures are attached this many at a time (which bounds what waits in memory). */
const BROCHURE_BATCH = 1000;
/** Draws the timing of the brochure commands. */
const BROCHURE_SEED = 0xb40c_4e5e;

/**
 * Seeds a realistic UAE-style demo catalogue, and the plans starter, professional and enterprise, the way
 * editors build one: the records (reference data, projects with their lists, floor plans, payment plans,
 * gallery pictures) through the bulk import (src/import/), as lines keyed `demo-project-<ordinal>` and so on
 * that the import parses by its line schema and decides by the commands' own slices; what happens to them
 * afterwards (brochures, edits of earlier projects, deletions) and the plans and currency rates through the
 * admin commands, each body parsed by the route's own schema and run by the route's handler. So seed data
 * passes the same validation and write-side rules (ids, unique slugs, references) as editor input.
 * Deterministic: a fixed-seed PRNG per project ordinal and a synthetic clock, each import line stamped with
 * its record's time on it. Reference data (found by its import key) and plans (by key) that already exist
 * are reused, so seeding more later only appends projects.
 */
export async function seedDemoCatalogue(deps: SeedDeps, options: SeedOptions): Promise<SeedResult> {
  const startAt = options.startAt ?? 0;
  if (!Number.isInteger(options.projects) || options.projects < 0) throw new RangeError('projects must be a whole number >= 0');
  if (!Number.isInteger(startAt) || startAt < 0) throw new RangeError('startAt must be a whole number >= 0');

  const clock = new SyntheticClock(DEMO_CATALOGUE_EPOCH.getTime(), deps.clock);
  const storedFiles = blobStoredFiles(deps.blobStore);
  const commands = new CommandRunner({ eventStore: deps.eventStore, readStore: deps.readStore, clock: clock.now, storedFiles });
  const importer = await RecordImport.open({ eventStore: deps.eventStore, storedFiles, clock: clock.now }, { actor: SEED_ACTOR });
  // As an upload does, the seed tells the stored-file check the facts of each file it has just stored.
  const media = new DemoMedia(deps.blobStore, { renders: options.renders, onStored: (key, facts) => storedFiles.remember(key, facts) });
  if (importer.boundId('state', demoKeys.state(demoStates[0]!.slug)) === undefined) {
    if ((await idBySlug(deps.eventStore, 'state', demoStates[0]!.slug)) !== null) throw new DemoCatalogueWithoutKeys();
    media.renderAhead(referencePictures());
  }
  if (options.projects >= RENDER_AHEAD_FROM) media.renderAhead(projectPictures());
  const reference = await ensureReferenceData(importer, clock, media);
  await ensurePlans(commands);
  await ensureCurrencyRates(commands);
  options.logger?.info({ projects: options.projects, startAt }, 'reference data ready; seeding projects');

  const seeded: SeededProject[] = [];
  const end = startAt + options.projects;
  const plans: ProjectPlan[] = [];
  const brochures: PendingBrochure[] = [];
  const brochureRandom = new Random(mixSeed(BROCHURE_SEED, startAt));
  let planned = startAt;
  for (let ordinal = startAt; ordinal < end; ordinal++) {
    for (; planned < Math.min(end, ordinal + 1 + PLAN_AHEAD); planned++) plans.push(planProject(reference, planned));
    const plan = plans.shift()!;
    clock.moveTo(PROJECT_TIMELINE_START_MS + ordinal * PROJECT_SLOT_MS);
    const project = await seedProject(importer, clock, plan, reference, seeded);
    seeded.push(project);
    if (plan.brochure) brochures.push({ project, slug: plan.slug, stored: plan.brochure });
    if (brochures.length === BROCHURE_BATCH) await attachBrochures(commands, clock, brochureRandom, media, brochures.splice(0));
    await editEarlierProjects(commands, clock, plan.random, seeded, reference);
    const done = ordinal - startAt + 1;
    if (done % PROGRESS_EVERY === 0) options.logger?.info({ projects: done, of: options.projects }, 'seeding projects');
  }
  await attachBrochures(commands, clock, brochureRandom, media, brochures);
  return { projects: seeded.length, lines: importer.lines, commands: commands.count };
}

/**
 * The demo's first state exists but not under its import key: the catalogue was seeded through the commands
 * alone (before the seed used the import) or an editor made that state, so the import keys the demo's
 * projects name are not bound, and its reference data cannot be imported either (the slugs are taken).
 */
export class DemoCatalogueWithoutKeys extends Error {
  constructor() {
    super(
      `The state "${demoStates[0]!.slug}" exists without the demo's import key ${demoKeys.state(demoStates[0]!.slug)}: this catalogue was ` +
        'not seeded through the import, so demo projects cannot be added to it. Seed a fresh DATA_DIR instead.',
    );
    this.name = 'DemoCatalogueWithoutKeys';
  }
}

/**
 * The first ordinal not yet used by any project: ids are allocated one by one from the project id
 * sequence, so its length counts every project ever created, which keeps demo slugs unique.
 */
export async function nextDemoProjectOrdinal(eventStore: EventStore): Promise<number> {
  return (await eventStore.readStream(idSequenceStream(projectAggregate.category))).length;
}

// Commands through the admin routes.

const createdSchema = z.looseObject({ id: z.number().int().positive() });

/** Runs admin operations as the seed; also used for the demo client (src/seed/demoClient.ts). */
export class CommandRunner {
  count = 0;
  private readonly routes = new Map<string, AdminRoute>(
    [...referenceDataRoutes, ...projectRoutes, ...accessRoutes, ...currencyRateRoutes].map((route) => [route.operationId, route]),
  );

  constructor(readonly deps: AdminDeps) {}

  /** Parses params and body with the route's schemas (as the admin router does), then runs its handler. */
  async run(operationId: string, params: Record<string, number | string>, body?: unknown): Promise<AdminRouteResult> {
    const route = this.routes.get(operationId);
    if (!route) throw new Error(`The admin route tables have no operation ${operationId}.`);
    const parsedParams = route.params.safeParse(params);
    const parsedBody = route.body?.safeParse(body ?? {});
    if (!parsedParams.success || (parsedBody && !parsedBody.success)) {
      const issues = [...(parsedParams.error?.issues ?? []), ...(parsedBody?.error?.issues ?? [])];
      throw new Error(`Seed data for ${operationId} does not pass its schema: ${JSON.stringify(issues)}`);
    }
    this.count += 1;
    return route.handle({ params: parsedParams.data, body: parsedBody?.data, actor: SEED_ACTOR }, this.deps);
  }

  async create(operationId: string, body: unknown): Promise<number> {
    return createdSchema.parse((await this.run(operationId, {}, body)).data).id;
  }
}

/**
 * Moves forward by a minute or so per command, never backwards, and never past the present (`present`):
 * a large seed run today ends at today rather than in the future.
 */
class SyntheticClock {
  private at: number;

  constructor(
    start: number,
    private readonly present: () => Date,
  ) {
    this.at = start;
  }

  readonly now = (): Date => new Date(Math.min(this.at, this.present().getTime()));

  tick(random: Random): void {
    this.at += random.int(30, 90) * 1000;
  }

  moveTo(time: number): void {
    this.at = Math.max(this.at, time);
  }
}

// Reference data.

interface ReferenceCommunity {
  key: string;
  stateKey: string;
  stateName: string;
  demo: DemoCommunity;
  subCommunityKeys: string[];
}

interface ReferenceData {
  /** Where the demo's files come from. */
  media: DemoMedia;
  communitiesByState: Map<string, ReferenceCommunity[]>;
  developers: Array<{ key: string; name: string }>;
  unitTypeIds: Map<string, number>;
}

/** The import keys of the demo's records: a record whose key is bound already is the demo's, and reused. */
const demoKeys = {
  state: (slug: string) => `demo-state-${slug}`,
  community: (slug: string) => `demo-community-${slug}`,
  subCommunity: (slug: string) => `demo-sub-community-${slug}`,
  developer: (slug: string) => `demo-developer-${slug}`,
  unitType: (name: string) => `demo-unit-type-${kebab(name)}`,
  project: (ordinal: number) => `demo-project-${ordinal}`,
};

/** Imports the reference data the catalogue does not have yet, as one batch. */
async function ensureReferenceData(importer: RecordImport, clock: SyntheticClock, media: DemoMedia): Promise<ReferenceData> {
  const random = new Random(RANDOM_SEED);
  /*
   * The clock moves by one tick for the create and one for the publish, as an editor's two commands would,
   * and the line is stamped with the create's time (an import line states both).
   */
  const ensure = async (type: ImportRecordType, key: string, published: boolean | null, data: () => Promise<object>) => {
    if (importer.boundId(type, key) !== undefined) return;
    clock.tick(random);
    const at = clock.now();
    const fields = await data();
    await importer.add({ type, key, data: published === null ? fields : { ...fields, published } }, at);
    if (published) clock.tick(random);
  };

  const communitiesByState = new Map<string, ReferenceCommunity[]>();
  let subCommunityCount = 0;
  for (const state of demoStates) {
    const stateKey = demoKeys.state(state.slug);
    await ensure('state', stateKey, true, async () => ({ name: state.name, slug: state.slug, country_code: 'AE' }));
    const communities: ReferenceCommunity[] = [];
    for (const demo of state.communities) {
      const slug = kebab(demo.name);
      const key = demoKeys.community(slug);
      await ensure('community', key, true, async () => ({
        state: stateKey,
        name: demo.name,
        slug,
        description: `${demo.name} is one of the most sought-after communities in ${state.name}, with homes, schools, retail and leisure close at hand.`,
        banner: await pictureRef(media, { kind: 'banner', name: demo.name }, `${slug}-banner`),
        location: { latitude: demo.latitude, longitude: demo.longitude },
      }));
      const subCommunityKeys: string[] = [];
      for (const name of demo.subCommunities) {
        const subSlug = `${slug}-${kebab(name)}`;
        const subKey = demoKeys.subCommunity(subSlug);
        // A few sub-communities stay unpublished, as drafts do in a real catalogue.
        const published = subCommunityCount++ % 12 !== 11;
        await ensure('sub_community', subKey, published, async () => ({
          community: key,
          name,
          slug: subSlug,
          description: `${name}, a neighbourhood of ${demo.name}.`,
        }));
        subCommunityKeys.push(subKey);
      }
      communities.push({ key, stateKey, stateName: state.name, demo, subCommunityKeys });
    }
    communitiesByState.set(state.slug, communities);
  }

  const developers: ReferenceData['developers'] = [];
  for (const [index, name] of demoDeveloperNames.entries()) {
    const slug = kebab(name);
    const key = demoKeys.developer(slug);
    // One developer in twenty is still being set up by the editors.
    await ensure('developer', key, index % 20 !== 19, async () => ({
      name,
      slug,
      description: `${name} has delivered residential and mixed-use communities across the UAE.`,
      website: index % 7 === 3 ? null : `https://www.${slug.replaceAll('-', '')}.example`,
      logo: hasLogo(index) ? await pictureRef(media, { kind: 'logo', name }, `${slug}-logo`) : null,
      established_year: index % 11 === 5 ? null : random.int(1975, 2021),
    }));
    developers.push({ key, name });
  }

  for (const [index, unitType] of demoUnitTypes.entries()) {
    await ensure('unit_type', demoKeys.unitType(unitType.name), null, async () => ({ ...unitType, sort_order: (index + 1) * 10 }));
  }
  await importer.write();
  // Ids, for the commands that edit floor plans later.
  const unitTypeIds = new Map(demoUnitTypes.map(({ name }) => [name, importer.boundId('unit_type', demoKeys.unitType(name))!]));
  return { media, communitiesByState, developers, unitTypeIds };
}

/** The live owner of a slug; a reservation whose owner stream does not exist is an orphan and ignored. */
async function idBySlug(eventStore: EventStore, resourceType: string, slug: string): Promise<number | null> {
  const resourceId = await slugHolder(eventStore, resourceType, slug);
  if (resourceId === null) return null;
  const owner = await eventStore.readStream(`${resourceType}-${resourceId}`);
  return owner.length > 0 ? resourceId : null;
}

/**
 * Plans come after the reference data, stamped with its last moment and drawing nothing from the PRNG, so
 * the catalogue's own history is the same with or without them.
 */
async function ensurePlans(commands: CommandRunner): Promise<void> {
  for (const plan of demoPlans) {
    if ((await idBySlug(commands.deps.eventStore, 'plan', plan.key)) === null) await commands.create('createPlan', plan);
  }
}

/** A rate an editor has set or removed since is theirs: only a currency that never had one is set. */
async function ensureCurrencyRates(commands: CommandRunner): Promise<void> {
  for (const { code, per_aed } of demoCurrencyRates) {
    const history = await loadAggregate(commands.deps.eventStore, currencyRateAggregate, currencyRateId(code));
    if (history === null) await commands.run('setCurrencyRate', { currencyCode: code }, { per_aed });
  }
}

// Projects.

interface SeededProject {
  id: number;
  key: string;
  communityKey: string;
  status: ProjectStatus;
  published: boolean;
  deleted: boolean;
}

/** Share of projects per state, roughly as the UAE market splits. */
const STATE_WEIGHTS: Array<[stateSlug: string, weight: number]> = [
  ['dubai', 50],
  ['abu-dhabi', 20],
  ['sharjah', 12],
  ['ras-al-khaimah', 7],
  ['ajman', 6],
  ['umm-al-quwain', 3],
  ['fujairah', 2],
];

const STATUS_LABELS: Record<ProjectStatus, string> = {
  upcoming: 'Launching soon',
  under_construction: 'Under construction',
  completed: 'Completed',
  sold_out: 'Sold out',
};

const STATUS_WEIGHTS: Array<[ProjectStatus, number]> = [
  ['upcoming', 20],
  ['under_construction', 40],
  ['completed', 30],
  ['sold_out', 10],
];

/**
 * What a project will be, drawn from its ordinal's PRNG before any of its lines is built: the fields of its
 * import line that createProject takes, and its brochure. The seed plans PLAN_AHEAD projects ahead, so that their pictures are rendered and
 * their brochures stored while the commands of earlier projects run.
 */
interface ProjectPlan {
  ordinal: number;
  /** The project's PRNG, drawn on by its commands after the plan. */
  random: Random;
  key: string;
  body: Record<string, unknown>;
  slug: string;
  name: string;
  mix: readonly string[];
  status: ProjectStatus;
  communityKey: string;
  communityName: string;
  brochure: Promise<StoredDemoFile> | null;
}

function planProject(reference: ReferenceData, ordinal: number): ProjectPlan {
  const random = new Random(mixSeed(RANDOM_SEED, ordinal));
  const community = random.pick(reference.communitiesByState.get(random.weighted(STATE_WEIGHTS))!);
  const developer = reference.developers[Math.floor(reference.developers.length * random.next() ** 1.6)]!;
  const status = random.weighted(STATUS_WEIGHTS);
  const building = status === 'upcoming' || status === 'under_construction';
  // Mostly off-plan while being built and ready once completed, with some of the other kind (resales, phases).
  const typicalNature = random.chance(0.88);
  const nature = building === typicalNature ? 'off_plan' : 'ready';
  // Cycling through the mixes and the missing-coordinates case guarantees every kind in any small catalogue.
  const mix = demoUnitMixes[ordinal % demoUnitMixes.length]!;
  const residential = mix.some((name) => name.includes('Bedroom') || name === 'Studio' || name === 'Duplex');
  const villas = mix.some((name) => /^[456]/.test(name));
  const name = `${random.pick(projectNamePrefixes)} ${residential ? random.pick(projectNameSuffixes.slice(0, -1)) : 'Business Centre'}`;
  const slug = `${kebab(name)}-${ordinal + 1}`;
  const withCoordinates = ordinal % 7 !== 3 && random.chance(0.92);
  const location = withCoordinates
    ? {
        latitude: round(community.demo.latitude + random.float(-0.012, 0.012), 6),
        longitude: round(community.demo.longitude + random.float(-0.012, 0.012), 6),
      }
    : null;
  const currency = random.chance(0.05) ? 'USD' : 'AED';
  const basePrice = villas ? random.int(2_500, 25_000) * 1000 : residential ? random.int(420, 3_500) * 1000 : random.int(750, 6_000) * 1000;
  const startingFrom = random.chance(0.08) ? null : currency === 'USD' ? Math.round(basePrice / 3.6725 / 1000) * 1000 : basePrice;
  const [areaFrom, areaTo] = areaRange(random, villas);
  const completionYear = building ? random.int(2025, 2030) : random.int(2012, 2024);

  const body = {
    name,
    slug,
    developer: developer.key,
    state: community.stateKey,
    community: community.key,
    sub_community: random.chance(0.7) ? random.pick(community.subCommunityKeys) : null,
    nature,
    status,
    unit_types: mix.map(demoKeys.unitType),
    starting_from: startingFrom,
    currency,
    location,
    map_embed_html: random.chance(0.6) ? mapEmbed(location ?? community.demo) : null,
    area_from: areaFrom,
    area_to: areaTo,
    completion_date: random.chance(0.1) ? null : `${completionYear}-${pad(random.int(1, 12))}-${pad(random.int(1, 28))}`,
    overview: `${name} by ${developer.name} brings ${villas ? 'spacious family villas' : residential ? 'contemporary apartments' : 'flexible commercial space'} to ${community.demo.name}.`,
    description: `${name} offers ${mix.length > 0 ? mix.join(', ') : 'a range of units'} in ${community.demo.name}, with landscaped courtyards, resident amenities and quick access to the main roads. Handover is planned for ${completionYear}.`,
    master_plan: `Set within ${community.demo.name}, ${name} sits around a central podium with shaded walkways and retail at street level.`,
    property_no: `PRJ-${100_000 + ordinal}`,
    license_no: random.chance(0.85) ? String(random.int(1000, 9999)) : '',
    project_types: projectTypes(mix, villas),
    video_description: random.chance(0.5) ? `A walk through ${name} and its amenities.` : '',
    down_payment_percent: random.chance(0.75) ? random.pick([5, 10, 15, 20, 24, 30]) : null,
    service_charges: random.chance(0.6) ? `AED ${random.int(10, 28)} per sq ft per year` : null,
  };
  const brochureContent: DemoBrochure = {
    name,
    developer: developer.name,
    place: `${community.demo.name}, ${community.stateName}`,
    highlights: [
      mix.length > 0 ? mix.join(', ') : 'Offices and retail space',
      `${STATUS_LABELS[status]}, handover ${completionYear}`,
      startingFrom === null ? 'Prices on request' : `Starting from ${currency} ${startingFrom.toLocaleString('en-US')}`,
      `Freehold ${nature === 'off_plan' ? 'off-plan' : 'ready'} homes in ${community.demo.name}`,
    ],
  };
  const brochure = random.chance(0.75) ? reference.media.fileAhead(demoBrochurePdf(brochureContent)) : null;
  // Its pictures are rendered next, before the rest of the pool: every facade scene of its brand, the
  // floor plans of its unit types.
  const floorPlanTypes = mix.length > 0 ? mix.slice(0, 4) : [null];
  reference.media.renderAhead(
    [
      ...Array.from({ length: FACADE_VARIANTS }, (_, scene) => facade(name, scene)),
      ...floorPlanTypes.map((unitType, index): DemoPicture => ({
        kind: 'floorPlan',
        unitType,
        variant: (ordinal + index) % FLOOR_PLAN_VARIANTS,
      })),
    ],
    'soon',
  );
  return {
    ordinal,
    random,
    key: demoKeys.project(ordinal),
    body,
    slug,
    name,
    mix,
    status,
    communityKey: community.key,
    communityName: community.demo.name,
    brochure,
  };
}

/**
 * Imports the project, its floor plans, payment plans and gallery pictures as one batch, written before the
 * commands that follow act on the log (edits of earlier projects, brochures); its lists, video,
 * master plan, related projects and publication are fields of its own line. Each part moves the clock as
 * its own command would, and the lines of parts are stamped with their times, the project's with its
 * creation's.
 */
async function seedProject(
  importer: RecordImport,
  clock: SyntheticClock,
  plan: ProjectPlan,
  reference: ReferenceData,
  earlier: readonly SeededProject[],
): Promise<SeededProject> {
  const { random } = plan;
  clock.tick(random);
  const createdAt = clock.now();
  const { fields, parts } = await projectParts(clock, random, { ...plan, reference, earlier });
  const published = random.chance(0.85);
  if (published) clock.tick(random);
  await importer.add({ type: 'project', key: plan.key, data: { ...plan.body, ...fields, published } }, createdAt);
  for (const part of parts) await importer.add(part.line, part.at);
  await importer.write();
  return {
    id: importer.boundId('project', plan.key)!,
    key: plan.key,
    communityKey: plan.communityKey,
    status: plan.status,
    published,
    deleted: false,
  };
}

/** The project line's fields beyond createProject's, and the lines of the project's parts. */
async function projectParts(
  clock: SyntheticClock,
  random: Random,
  project: {
    key: string;
    ordinal: number;
    slug: string;
    name: string;
    mix: readonly string[];
    reference: ReferenceData;
    communityKey: string;
    communityName: string;
    earlier: readonly SeededProject[];
  },
): Promise<{ fields: Record<string, unknown>; parts: Array<{ line: unknown; at: Date }> }> {
  const fields: Record<string, unknown> = {};
  const parts: Array<{ line: unknown; at: Date }> = [];
  const set = (field: string, value: unknown) => {
    clock.tick(random);
    fields[field] = value;
  };
  const part = (type: ImportRecordType, key: string, data: object) => {
    clock.tick(random);
    parts.push({ line: { type, key: `${project.key}-${key}`, data: { project: project.key, ...data } }, at: clock.now() });
  };
  const { media } = project.reference;

  const plannedTypes = project.mix.length > 0 ? project.mix.slice(0, 4) : random.chance(0.6) ? [null] : [];
  for (const [index, unitTypeName] of plannedTypes.entries()) {
    part('floor_plan', `floor-plan-${index + 1}`, {
      title: `Type ${String.fromCharCode(65 + index)}${unitTypeName ? ` - ${unitTypeName}` : ' - Typical floor'}`,
      unit_type: unitTypeName ? demoKeys.unitType(unitTypeName) : null,
      area: area(random, unitTypeName),
      price: random.chance(0.7) ? random.int(400, 9_000) * 1000 : null,
      image: await pictureRef(
        media,
        { kind: 'floorPlan', unitType: unitTypeName, variant: (project.ordinal + index) % FLOOR_PLAN_VARIANTS },
        `${project.slug}-floor-plan-${index + 1}`,
      ),
    });
  }

  const paymentPlans = random.sample(paymentPlanTemplates, random.int(1, 2));
  for (const [index, plan] of paymentPlans.entries()) part('payment_plan', `payment-plan-${index + 1}`, plan);

  const pictures = random.int(3, 6);
  for (let position = 0; position < pictures; position++) {
    part('gallery_picture', `gallery-${position + 1}`, {
      caption: random.chance(0.8) ? random.pick(galleryCaptions) : null,
      position,
      image: await pictureRef(media, facade(project.name, project.ordinal + position), `${project.slug}-gallery-${position + 1}`),
    });
  }
  if (random.chance(0.6)) {
    const masterPlan = await media.file(demoMasterPlanPdf(project.communityName));
    set('master_plan_document', documentRef(masterPlan, `${project.slug}-master-plan.pdf`));
  }

  if (random.chance(0.65)) {
    const external = random.chance(0.5);
    set('video', {
      title: `${project.name} walkthrough`,
      description: random.chance(0.6) ? `Tour the show apartment and the amenities of ${project.name}.` : null,
      external_url: external ? `https://www.youtube.com/watch?v=${random.hex(11)}` : null,
      file: external ? null : documentRef(await media.video(), `${project.slug}-walkthrough.mp4`),
      thumbnail: random.chance(0.7) ? await pictureRef(media, facade(project.name, 0), `${project.slug}-video-thumbnail`) : null,
    });
  }
  if (random.chance(0.8)) set('amenities', random.sample(amenityCatalogue, random.int(4, 9)));
  if (random.chance(0.75)) {
    set(
      'nearby_places',
      random.sample(nearbyCatalogue, random.int(3, 6)).map((place) => ({ ...place, distance_km: round(random.float(0.2, 25), 1) })),
    );
  }
  if (random.chance(0.6)) set('payment_methods', random.sample(paymentMethodCatalogue, random.int(2, 4)));
  if (random.chance(0.6)) set('faqs', random.sample(faqCatalogue, random.int(3, 5)));
  if (random.chance(0.35)) {
    set(
      'virtual_tours',
      random.sample(['Show apartment', 'Lobby and amenities', 'Penthouse'], random.int(1, 2)).map((title) => ({
        title,
        url: `https://tours.example.com/${project.slug}/${kebab(title)}`,
      })),
    );
  }
  if (random.chance(0.3)) {
    const items = [];
    const plates = random.int(1, 3);
    for (let index = 0; index < plates; index++) {
      const plate: DemoPicture = { kind: 'floorPlate', variant: (project.ordinal + index) % FLOOR_PLATE_VARIANTS };
      items.push({
        title: `Typical floor plate ${index + 1}`,
        floors: random.chance(0.8) ? `${index * 10 + 1}-${index * 10 + 10}` : null,
        image: random.chance(0.85) ? await pictureRef(media, plate, `${project.slug}-floor-plate-${index + 1}`) : null,
      });
    }
    set('floor_plates', items);
  }

  const candidates = project.earlier.filter((other) => !other.deleted);
  if (candidates.length > 0 && random.chance(0.4)) {
    const neighbours = candidates.filter((other) => other.communityKey === project.communityKey);
    const pool = neighbours.length > 0 ? neighbours : candidates.slice(-50);
    set(
      'related_projects',
      random.sample(pool, random.int(1, 4)).map((other) => other.key),
    );
  }
  return { fields, parts };
}

interface PendingBrochure {
  project: SeededProject;
  slug: string;
  stored: Promise<StoredDemoFile>;
}

/**
 * Most projects have a brochure of their own, attached in batches after the projects: a put waits for the
 * disk (fsync), far longer while the commands write the log, so brochures are stored in the background
 * from the moment their project is planned, and whatever is left is stored many at once before the batch
 * is attached, in project order. A project deleted meanwhile gets none.
 */
async function attachBrochures(
  commands: CommandRunner,
  clock: SyntheticClock,
  random: Random,
  media: DemoMedia,
  pending: readonly PendingBrochure[],
): Promise<void> {
  const live = pending.filter(({ project }) => !project.deleted);
  const stored = await Promise.all(live.map((pending) => media.hurry(pending.stored)));
  for (const [index, { project, slug }] of live.entries()) {
    clock.tick(random);
    await commands.run('attachBrochure', { projectId: project.id }, documentRef(stored[index]!, `${slug}-brochure.pdf`));
  }
}

/** Later edits to projects seeded earlier in this run, so the history and the change feed have edits in them. */
async function editEarlierProjects(
  commands: CommandRunner,
  clock: SyntheticClock,
  random: Random,
  seeded: readonly SeededProject[],
  reference: ReferenceData,
): Promise<void> {
  const editable = seeded.slice(0, -1).filter((project) => !project.deleted);
  if (editable.length === 0) return;
  const edits = random.int(0, 2);
  for (let edit = 0; edit < edits; edit++) {
    const target = random.pick(editable);
    if (target.deleted) continue;
    const params = { projectId: target.id };
    const state = (await loadAggregate(commands.deps.eventStore, projectAggregate, target.id))!.state!;
    clock.tick(random);
    const roll = random.next();
    if (roll < 0.3) {
      await commands.run('reviseProject', params, projectRevision(random, state));
    } else if (roll < 0.45) {
      const floorPlan = random.pickFrom(Object.values(state.floor_plans));
      if (floorPlan) {
        const unitType = [...reference.unitTypeIds].find(([, id]) => id === floorPlan.unit_type_id)?.[0] ?? null;
        const image = await replacementPicture(
          reference.media,
          floorPlan.image.key,
          (variant) => ({ kind: 'floorPlan', unitType, variant }),
          random.int(0, FLOOR_PLAN_VARIANTS - 1),
          FLOOR_PLAN_VARIANTS,
          `${state.slug}-floor-plan-${floorPlan.floor_plan_id}-v2`,
        );
        await commands.run('replaceFloorPlanImage', { ...params, floorPlanId: floorPlan.floor_plan_id }, { image });
      }
    } else if (roll < 0.6) {
      const picture = random.pickFrom(Object.values(state.gallery));
      if (picture) {
        const image = await replacementPicture(
          reference.media,
          picture.image.key,
          (variant) => facade(state.name, variant),
          random.int(0, FACADE_VARIANTS - 1),
          FACADE_VARIANTS,
          `${state.slug}-gallery-${picture.media_id}-v2`,
        );
        await commands.run('replaceGalleryPicture', { ...params, mediaId: picture.media_id }, { image });
      }
    } else if (roll < 0.7) {
      const next = nextStatus[target.status];
      if (next) {
        await commands.run('changeProjectStatus', params, { status: next });
        target.status = next;
      }
    } else if (roll < 0.77) {
      const plan = random.pickFrom(Object.values(state.payment_plans));
      if (plan)
        await commands.run('revisePaymentPlan', { ...params, paymentPlanId: plan.payment_plan_id }, random.pick(paymentPlanTemplates));
    } else if (roll < 0.83) {
      const picture = random.pickFrom(Object.values(state.gallery));
      if (picture)
        await commands.run('reviseGalleryPicture', { ...params, mediaId: picture.media_id }, { caption: random.pick(galleryCaptions) });
    } else if (roll < 0.87) {
      const floorPlan = random.pickFrom(Object.values(state.floor_plans));
      if (floorPlan) {
        await commands.run(
          'reviseFloorPlan',
          { ...params, floorPlanId: floorPlan.floor_plan_id },
          { price: random.int(400, 9_000) * 1000 },
        );
      }
    } else if (roll < 0.9) {
      const pictures = Object.values(state.gallery);
      if (pictures.length > 3) await commands.run('removeGalleryPicture', { ...params, mediaId: random.pick(pictures).media_id });
    } else if (roll < 0.93) {
      await commands.run('setAmenities', params, { items: random.sample(amenityCatalogue, random.int(3, 10)) });
    } else if (roll < 0.96) {
      await commands.run(target.published ? 'unpublishProject' : 'publishProject', params);
      target.published = !target.published;
    } else if (roll < 0.98) {
      await commands.run('setFaqs', params, { items: random.sample(faqCatalogue, random.int(2, 6)) });
    } else {
      await commands.run('deleteProject', params);
      target.deleted = true;
      target.published = false;
    }
  }
}

const nextStatus: Record<ProjectStatus, ProjectStatus | null> = {
  upcoming: 'under_construction',
  under_construction: 'completed',
  completed: 'sold_out',
  sold_out: null,
};

function projectRevision(random: Random, project: Project): Record<string, unknown> {
  switch (random.int(0, 3)) {
    case 0:
      return { starting_from: random.int(420, 9_000) * 1000 };
    case 1:
      return { description: `${project.description} Prices were updated for the new release.` };
    case 2:
      return { area_from: round(random.float(350, 1200), 2), area_to: `${random.int(1300, 4500).toLocaleString('en-US')} sq ft` };
    default:
      return { down_payment_percent: random.pick([10, 20]), service_charges: `AED ${random.int(10, 28)} per sq ft per year` };
  }
}

const galleryCaptions = [
  'Exterior view',
  'Lobby',
  'Pool deck',
  'Living room',
  'Master bedroom',
  'Kitchen',
  'Gym',
  'Aerial view',
  'Sunset terrace',
  'Kids play area',
];

const paymentPlanTemplates = [
  {
    name: '60/40 plan',
    milestones: [
      { label: 'Down payment', percent: 20, due: 'On booking' },
      { label: 'During construction', percent: 40, due: 'In 8 instalments' },
      { label: 'On handover', percent: 40, due: 'On handover' },
    ],
  },
  {
    name: 'Post-handover plan',
    milestones: [
      { label: 'Down payment', percent: 10, due: 'On booking' },
      { label: 'During construction', percent: 40, due: null },
      { label: 'Post handover', percent: 50, due: 'Over 3 years after handover' },
    ],
  },
  {
    name: 'Three equal payments',
    milestones: [
      { label: 'First payment', percent: 33.33, due: 'On booking' },
      { label: 'Second payment', percent: 33.33, due: 'In 12 months' },
      { label: 'Final payment', percent: 33.34, due: 'On handover' },
    ],
  },
  {
    name: '1% monthly',
    milestones: [
      { label: 'Down payment', percent: 24, due: 'On booking' },
      { label: 'Monthly instalments', percent: 56, due: '1% every month' },
      { label: 'On handover', percent: 20, due: 'On handover' },
    ],
  },
  {
    name: 'Cash',
    milestones: [{ label: 'Full payment', percent: 100, due: 'On transfer' }],
  },
];

function areaRange(random: Random, villas: boolean): [number | string | null, number | string | null] {
  const from = villas ? random.int(2_200, 5_000) : random.int(380, 1_100);
  const to = from + random.int(200, villas ? 9_000 : 2_000);
  switch (random.int(0, 4)) {
    case 0:
      return [from, to];
    case 1:
      return [round(from + random.next(), 2), round(to + random.next(), 2)];
    case 2:
      return [`${from.toLocaleString('en-US')}.5 sq ft`, `${to.toLocaleString('en-US')} sq ft`];
    case 3:
      return [from, null];
    default:
      return [null, null];
  }
}

function area(random: Random, unitTypeName: string | null): number | string | null {
  const size = unitTypeName?.startsWith('6') ? random.int(6_000, 12_000) : random.int(400, 4_000);
  switch (random.int(0, 3)) {
    case 0:
      return size;
    case 1:
      return round(size + random.next(), 2);
    case 2:
      return `${size.toLocaleString('en-US')}.5 sq ft`;
    default:
      return null;
  }
}

function projectTypes(mix: readonly string[], villas: boolean): string[] {
  const types: string[] = [];
  if (mix.some((name) => name === 'Studio' || /^[123] /.test(name))) types.push('Apartments');
  if (villas) types.push('Villas', 'Townhouses');
  if (mix.includes('Duplex')) types.push('Duplexes');
  if (mix.includes('Office')) types.push('Offices');
  if (mix.includes('Retail')) types.push('Retail');
  return types;
}

function mapEmbed(point: { latitude: number; longitude: number }): string {
  const box = [point.longitude - 0.01, point.latitude - 0.01, point.longitude + 0.01, point.latitude + 0.01].map((value) =>
    value.toFixed(4),
  );
  return `<iframe width="600" height="450" src="https://www.openstreetmap.org/export/embed.html?bbox=${box.join('%2C')}&amp;layer=mapnik" loading="lazy"></iframe>`;
}

// Files: what the demo shows, stored through the blob store first (src/seed/demoMedia.ts).

/** Developers whose logo the editors have not added yet. */
const hasLogo = (developerIndex: number): boolean => developerIndex % 9 !== 4;

/**
 * A project's facade pictures: the day scene and the small one carry its name's first word (its brand) on
 * the building; the other scenes (the costlier ones to render) show one of a few generic buildings, so that
 * a first start renders a few hundred masters rather than a thousand.
 */
function facade(projectName: string, scene: number): DemoPicture {
  const variant = scene % FACADE_VARIANTS;
  const generic = GENERIC_FACADE_SCENES.includes(variant);
  const brand = projectName.split(' ')[0]!;
  return { kind: 'facade', name: generic ? GENERIC_BUILDINGS[brandIndex(brand) % GENERIC_BUILDINGS.length]! : brand, variant };
}

const GENERIC_FACADE_SCENES = [1, 2, 3];
const GENERIC_BUILDINGS = ['The Residences', 'Sky Tower', 'Bay Views', 'Park Heights', 'Marina Lofts', 'Garden Court'];
const brandIndex = (brand: string): number => Math.max(0, projectNamePrefixes.indexOf(brand));

/** Every picture of the reference data: a banner per community, a logo per developer that has one. */
function referencePictures(): DemoPicture[] {
  return [
    ...demoStates.flatMap((state) => state.communities.map((community): DemoPicture => ({ kind: 'banner', name: community.name }))),
    ...demoDeveloperNames.flatMap((name, index): DemoPicture[] => (hasLogo(index) ? [{ kind: 'logo', name }] : [])),
  ];
}

/** Every picture projects show: the facades of each brand, the floor plans of each unit type, the floor plates. */
function projectPictures(): DemoPicture[] {
  const unitTypes = [...demoUnitTypes.map((unitType) => unitType.name), null];
  return [
    ...uniquePictures(
      projectNamePrefixes.flatMap((prefix) => Array.from({ length: FACADE_VARIANTS }, (_, scene) => facade(prefix, scene))),
    ),
    ...unitTypes.flatMap((unitType) =>
      Array.from({ length: FLOOR_PLAN_VARIANTS }, (_, variant): DemoPicture => ({ kind: 'floorPlan', unitType, variant })),
    ),
    ...Array.from({ length: FLOOR_PLATE_VARIANTS }, (_, variant): DemoPicture => ({ kind: 'floorPlate', variant })),
  ];
}

/** The generic facade scenes are shared by several brands: each is listed once. */
function uniquePictures(pictures: DemoPicture[]): DemoPicture[] {
  return [...new Map(pictures.map((picture) => [JSON.stringify(picture), picture])).values()];
}

/** An ImageRef as an upload records it: the stored file's key and facts, under a file name of its own. */
async function pictureRef(media: DemoMedia, picture: DemoPicture, baseName: string) {
  const stored = await media.picture(picture);
  return { ...stored, file_name: `${baseName}.${stored.content_type === 'image/jpeg' ? 'jpg' : 'png'}` };
}

/**
 * The picture of the first variant from `first` on whose key is not `current`, so that a replaced picture
 * really changes (and gets a new address).
 */
async function replacementPicture(
  media: DemoMedia,
  current: string,
  pictureOf: (variant: number) => DemoPicture,
  first: number,
  variants: number,
  baseName: string,
) {
  for (let step = 0; step < variants; step++) {
    const ref = await pictureRef(media, pictureOf((first + step) % variants), baseName);
    if (ref.key !== current) return ref;
  }
  throw new Error('Every variant of the picture has the same bytes.');
}

/** A stored PdfDocument or VideoFile: the stored file's facts under a file name of its own. */
const documentRef = (stored: StoredDemoFile, fileName: string) => ({ ...stored, file_name: fileName });

// Helpers.

function kebab(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

const pad = (value: number) => String(value).padStart(2, '0');
