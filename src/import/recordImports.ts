import * as createCommunity from '../../commands/communities/createCommunity.js';
import * as publishCommunity from '../../commands/communities/publishCommunity.js';
import * as reviseCommunity from '../../commands/communities/reviseCommunity.js';
import * as unpublishCommunity from '../../commands/communities/unpublishCommunity.js';
import * as createDeveloper from '../../commands/developers/createDeveloper.js';
import * as publishDeveloper from '../../commands/developers/publishDeveloper.js';
import * as reviseDeveloper from '../../commands/developers/reviseDeveloper.js';
import * as unpublishDeveloper from '../../commands/developers/unpublishDeveloper.js';
import * as addFloorPlan from '../../commands/projects/addFloorPlan.js';
import * as addGalleryPicture from '../../commands/projects/addGalleryPicture.js';
import * as addPaymentPlan from '../../commands/projects/addPaymentPlan.js';
import * as attachBrochure from '../../commands/projects/attachBrochure.js';
import * as attachMasterPlanDocument from '../../commands/projects/attachMasterPlanDocument.js';
import * as changeProjectStatus from '../../commands/projects/changeProjectStatus.js';
import * as createProject from '../../commands/projects/createProject.js';
import * as publishProject from '../../commands/projects/publishProject.js';
import * as removeBrochure from '../../commands/projects/removeBrochure.js';
import * as removeMasterPlanDocument from '../../commands/projects/removeMasterPlanDocument.js';
import * as removeVideo from '../../commands/projects/removeVideo.js';
import * as replaceFloorPlanImage from '../../commands/projects/replaceFloorPlanImage.js';
import * as replaceGalleryPicture from '../../commands/projects/replaceGalleryPicture.js';
import * as reviseFloorPlan from '../../commands/projects/reviseFloorPlan.js';
import * as reviseGalleryPicture from '../../commands/projects/reviseGalleryPicture.js';
import * as revisePaymentPlan from '../../commands/projects/revisePaymentPlan.js';
import * as reviseProject from '../../commands/projects/reviseProject.js';
import * as setAmenities from '../../commands/projects/setAmenities.js';
import * as setFaqs from '../../commands/projects/setFaqs.js';
import * as setFloorPlates from '../../commands/projects/setFloorPlates.js';
import * as setNearbyPlaces from '../../commands/projects/setNearbyPlaces.js';
import * as setPaymentMethods from '../../commands/projects/setPaymentMethods.js';
import * as setRelatedProjects from '../../commands/projects/setRelatedProjects.js';
import * as setVideo from '../../commands/projects/setVideo.js';
import * as setVirtualTours from '../../commands/projects/setVirtualTours.js';
import * as unpublishProject from '../../commands/projects/unpublishProject.js';
import * as createState from '../../commands/states/createState.js';
import * as publishState from '../../commands/states/publishState.js';
import * as reviseState from '../../commands/states/reviseState.js';
import * as unpublishState from '../../commands/states/unpublishState.js';
import * as createSubCommunity from '../../commands/subCommunities/createSubCommunity.js';
import * as publishSubCommunity from '../../commands/subCommunities/publishSubCommunity.js';
import * as reviseSubCommunity from '../../commands/subCommunities/reviseSubCommunity.js';
import * as unpublishSubCommunity from '../../commands/subCommunities/unpublishSubCommunity.js';
import * as createUnitType from '../../commands/unitTypes/createUnitType.js';
import * as reviseUnitType from '../../commands/unitTypes/reviseUnitType.js';
import type { CatalogueSlice } from '../catalogue/catalogueCommands.js';
import { noCatalogueFacts, type CatalogueFacts } from '../catalogue/catalogueReferences.js';
import { communityAggregate } from '../catalogue/community.js';
import { developerAggregate } from '../catalogue/developer.js';
import { projectAggregate, type Project } from '../catalogue/project.js';
import { stateAggregate } from '../catalogue/state.js';
import { subCommunityAggregate } from '../catalogue/subCommunity.js';
import { unitTypeAggregate } from '../catalogue/unitType.js';
import { assertNever, type Aggregate } from '../domain/decider.js';
import { ApiError, ValidationFailed } from '../domain/errors.js';
import type { DomainEvent, NewEvent } from '../eventStore/eventStore.js';
import type { ImportBatch, LineChanges } from './importBatch.js';
import type { ImportLine, ImportLineOf, ImportRecordType } from './importLines.js';

/** What an accepted line did to its record. */
export type LineOutcome = 'created' | 'revised' | 'unchanged';

/** A refused line's error: the spec's error object (`{ code, message, details }`), its fields named as in the line. */
export interface LineError {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

/** A refusal of the line; nothing of it is written. */
export class LineRefused extends Error {
  constructor(readonly error: LineError) {
    super(error.message);
    this.name = 'LineRefused';
  }
}

/** How the field paths of a command's errors (`body.developer_id`) read in the line (`data.developer`); longest prefix wins. */
type FieldNames = Record<string, string>;

/** One command of a line: its slice decides on the state the commands before it left (a promise only when it read the log). */
interface Step<State> {
  decide(state: State, meta: StepMeta, batch: ImportBatch): DomainEvent[] | Promise<DomainEvent[]>;
}

interface StepMeta {
  now: string;
  actor: string;
  id: number;
  allocatedIds: Record<string, number>;
}

function step<Command, State, Event extends DomainEvent>(
  slice: CatalogueSlice<Command, State, Event>,
  command: Command,
  fields: FieldNames,
): Step<State> {
  return new CommandStep(slice, command, fields);
}

/** A class rather than closures: a project line builds a dozen steps, and each closure made per line costs. */
class CommandStep<Command, State, Event extends DomainEvent> implements Step<State> {
  constructor(
    private readonly slice: CatalogueSlice<Command, State, Event>,
    private readonly command: Command,
    private readonly fields: FieldNames,
  ) {}

  decide(state: State, meta: StepMeta, batch: ImportBatch): DomainEvent[] | Promise<DomainEvent[]> {
    const references = this.slice.references ? batch.facts(this.slice.references(this.command, state)) : noCatalogueFacts;
    if (references instanceof Promise) return references.then((facts) => this.decideWith(state, meta, facts));
    return this.decideWith(state, meta, references);
  }

  private decideWith(state: State, meta: StepMeta, references: CatalogueFacts): DomainEvent[] {
    try {
      return this.slice.decide(this.command, state, { ...meta, references });
    } catch (error) {
      throw error instanceof ApiError ? refusalOf(error, this.fields) : error;
    }
  }
}

function refusalOf(error: ApiError, names: FieldNames): LineRefused {
  const fields = error.details.fields as Record<string, string> | undefined;
  const details = fields ? { ...error.details, fields: renamedFields(fields, names) } : error.details;
  return new LineRefused({ code: error.code, message: error.message, details });
}

function renamedFields(fields: Record<string, string>, names: FieldNames): Record<string, string> {
  const prefixes = Object.keys(names).sort((a, b) => b.length - a.length);
  const renamed: Record<string, string> = {};
  for (const [path, problem] of Object.entries(fields)) {
    const prefix = prefixes.find((candidate) => path === candidate || path.startsWith(`${candidate}.`));
    renamed[prefix === undefined ? path : names[prefix]! + path.slice(prefix.length)] = problem;
  }
  return renamed;
}

/** The import context of one line: its batch, clock and actor. */
export interface LineContext {
  batch: ImportBatch;
  now: string;
  actor: string;
}

/** Runs the steps on the record's state; nothing reaches the batch unless every step accepted. */
async function decideSteps<State, Event extends DomainEvent>(
  context: LineContext,
  aggregate: Aggregate<State, Event>,
  id: number,
  before: { state: State; revision: number | null },
  steps: ReadonlyArray<Step<State>>,
  allocatedIds: Record<string, number> = {},
): Promise<{ state: State; events: NewEvent[] }> {
  const meta: StepMeta = { now: context.now, actor: context.actor, id, allocatedIds };
  let state = before.state;
  const events: NewEvent[] = [];
  const metadata = { actor: context.actor, at: context.now };
  for (const next of steps) {
    const decided = next.decide(state, meta, context.batch);
    for (const event of decided instanceof Promise ? await decided : decided) {
      state = aggregate.evolve(state, event as Event);
      events.push({ type: event.type, data: event.data, metadata });
    }
  }
  return { state, events };
}

/** Resolves the keys a line names; every key not bound yet is reported at once, at its field. */
class KeyResolver {
  private readonly problems: Record<string, string> = {};

  constructor(private readonly batch: ImportBatch) {}

  id(type: ImportRecordType, key: string, field: string): number {
    const binding = this.batch.binding(type, key);
    if (binding) return binding.id;
    this.problems[field] = `names no ${type.replace('_', '-')} "${key}" of an earlier line or import`;
    return 0;
  }

  ids(type: ImportRecordType, keys: readonly string[], field: string): number[] {
    return keys.map((key, index) => this.id(type, key, `${field}.${index}`));
  }

  orFail(): void {
    if (Object.keys(this.problems).length > 0) {
      throw refusalOf(new ValidationFailed(this.problems, 'The line names records that no earlier line or import has.'), {});
    }
  }
}

/** A record with a stream of its own: created under a new id (or the id its key was bound to), or revised. */
async function importOwnRecord<State extends object, Event extends DomainEvent>(
  context: LineContext,
  line: { type: ImportRecordType; key: string },
  aggregate: Aggregate<State | null, Event>,
  steps: { create: ReadonlyArray<Step<State | null>>; revise: ReadonlyArray<Step<State | null>> },
): Promise<LineOutcome> {
  const { batch } = context;
  const binding = batch.binding(line.type, line.key);
  const id = binding?.id ?? (await batch.peekId(aggregate.category));
  // A key bound by a batch that crashed before appending the record's events names a record still to create.
  const before = binding ? await batch.load(aggregate, id) : { state: null, revision: null };
  const exists = before.state !== null;
  const { state, events } = await decideSteps(context, aggregate, id, before, exists ? steps.revise : steps.create);
  const slugs = await slugChanges(batch, aggregate, id, before.state, state);
  batch.apply({
    stream: { aggregate: aggregate as Aggregate<unknown, DomainEvent>, id, before, state, events },
    ...(binding ? {} : { binding: { type: line.type, key: line.key, id }, takesIdOf: aggregate.category }),
    ...slugs,
  });
  return !exists ? 'created' : events.length > 0 ? 'revised' : 'unchanged';
}

/** The slug reservation (checked now) and release a change of the record's slug needs. */
async function slugChanges<State, Event extends DomainEvent>(
  batch: ImportBatch,
  aggregate: Aggregate<State, Event>,
  id: number,
  before: State,
  after: State,
): Promise<Pick<LineChanges, 'reserve' | 'release'>> {
  const rule = aggregate.slug;
  if (!rule) return {};
  const slugBefore = rule.of(before);
  const slugAfter = rule.of(after);
  if (slugAfter === slugBefore) return {};
  const base = { resourceType: rule.resourceType, resourceId: id, aggregate: aggregate as Aggregate<unknown, DomainEvent> };
  const reserve = slugAfter === undefined ? undefined : { ...base, slug: slugAfter };
  if (reserve) {
    try {
      await batch.assertSlugAvailable(reserve);
    } catch (error) {
      throw error instanceof ApiError ? refusalOf(error, {}) : error;
    }
  }
  return { ...(reserve ? { reserve } : {}), ...(slugBefore === undefined ? {} : { release: { ...base, slug: slugBefore } }) };
}

type Publication<State> = { publish: CatalogueSlice<object, State, DomainEvent>; unpublish: CatalogueSlice<object, State, DomainEvent> };

function publication<State>(slices: Publication<State>, published: boolean): Step<State> {
  return step(published ? slices.publish : slices.unpublish, {}, { body: 'data.published' });
}

const DATA: FieldNames = { body: 'data' };

async function importState(context: LineContext, line: ImportLineOf<'state'>): Promise<LineOutcome> {
  const { published, ...fields } = line.data;
  const publishing = publication({ publish: publishState, unpublish: unpublishState }, published);
  return importOwnRecord(context, line, stateAggregate, {
    create: [step(createState, fields, DATA), publishing],
    revise: [step(reviseState, fields, DATA), publishing],
  });
}

async function importCommunity(context: LineContext, line: ImportLineOf<'community'>): Promise<LineOutcome> {
  const keys = new KeyResolver(context.batch);
  const { published, state, ...rest } = line.data;
  const fields = { ...rest, state_id: keys.id('state', state, 'data.state') };
  keys.orFail();
  const names = { 'body.state_id': 'data.state', ...DATA };
  const publishing = publication({ publish: publishCommunity, unpublish: unpublishCommunity }, published);
  return importOwnRecord(context, line, communityAggregate, {
    create: [step(createCommunity, fields, names), publishing],
    revise: [step(reviseCommunity, fields, names), publishing],
  });
}

async function importSubCommunity(context: LineContext, line: ImportLineOf<'sub_community'>): Promise<LineOutcome> {
  const keys = new KeyResolver(context.batch);
  const { published, community, ...rest } = line.data;
  const fields = { ...rest, community_id: keys.id('community', community, 'data.community') };
  keys.orFail();
  const names = { 'body.community_id': 'data.community', ...DATA };
  const publishing = publication({ publish: publishSubCommunity, unpublish: unpublishSubCommunity }, published);
  return importOwnRecord(context, line, subCommunityAggregate, {
    create: [step(createSubCommunity, fields, names), publishing],
    revise: [step(reviseSubCommunity, fields, names), publishing],
  });
}

async function importDeveloper(context: LineContext, line: ImportLineOf<'developer'>): Promise<LineOutcome> {
  const { published, ...fields } = line.data;
  const publishing = publication({ publish: publishDeveloper, unpublish: unpublishDeveloper }, published);
  return importOwnRecord(context, line, developerAggregate, {
    create: [step(createDeveloper, fields, DATA), publishing],
    revise: [step(reviseDeveloper, fields, DATA), publishing],
  });
}

async function importUnitType(context: LineContext, line: ImportLineOf<'unit_type'>): Promise<LineOutcome> {
  return importOwnRecord(context, line, unitTypeAggregate, {
    create: [step(createUnitType, line.data, DATA)],
    revise: [step(reviseUnitType, line.data, DATA)],
  });
}

const PROJECT_FIELDS: FieldNames = {
  'body.developer_id': 'data.developer',
  'body.state_id': 'data.state',
  'body.community_id': 'data.community',
  'body.sub_community_id': 'data.sub_community',
  'body.unit_type_ids': 'data.unit_types',
  ...DATA,
};

const listFields = (field: string): FieldNames => ({ 'body.items': `data.${field}`, body: `data.${field}` });

async function importProject(context: LineContext, line: ImportLineOf<'project'>): Promise<LineOutcome> {
  const keys = new KeyResolver(context.batch);
  const {
    developer,
    state,
    community,
    sub_community,
    unit_types,
    published,
    amenities,
    nearby_places,
    payment_methods,
    faqs,
    virtual_tours,
    floor_plates,
    related_projects,
    video,
    brochure,
    master_plan_document,
    status,
    ...rest
  } = line.data;
  const core = {
    ...rest,
    developer_id: keys.id('developer', developer, 'data.developer'),
    state_id: keys.id('state', state, 'data.state'),
    community_id: keys.id('community', community, 'data.community'),
    sub_community_id: sub_community === null ? null : keys.id('sub_community', sub_community, 'data.sub_community'),
    unit_type_ids: keys.ids('unit_type', unit_types, 'data.unit_types'),
  };
  const relatedIds = keys.ids('project', related_projects, 'data.related_projects');
  keys.orFail();
  const collections: Array<Step<Project | null>> = [
    step(setAmenities, { items: amenities }, listFields('amenities')),
    step(setNearbyPlaces, { items: nearby_places }, listFields('nearby_places')),
    step(setPaymentMethods, { items: payment_methods }, listFields('payment_methods')),
    step(setFaqs, { items: faqs }, listFields('faqs')),
    step(setVirtualTours, { items: virtual_tours }, listFields('virtual_tours')),
    step(setFloorPlates, { items: floor_plates }, listFields('floor_plates')),
    video === null ? step(removeVideo, {}, {}) : step(setVideo, video, { body: 'data.video' }),
    brochure === null ? step(removeBrochure, {}, {}) : step(attachBrochure, brochure, { body: 'data.brochure' }),
    master_plan_document === null
      ? step(removeMasterPlanDocument, {}, {})
      : step(attachMasterPlanDocument, master_plan_document, { body: 'data.master_plan_document' }),
    step(setRelatedProjects, { project_ids: relatedIds }, { 'body.project_ids': 'data.related_projects', body: 'data.related_projects' }),
    step(published ? publishProject : unpublishProject, {}, { body: 'data.published' }),
  ];
  return importOwnRecord(context, line, projectAggregate, {
    create: [step(createProject, { ...core, status }, PROJECT_FIELDS), ...collections],
    revise: [
      step(reviseProject, core, PROJECT_FIELDS),
      step(changeProjectStatus, { status }, { 'body.status': 'data.status', ...DATA }),
      ...collections,
    ],
  });
}

/** The parts of a project with ids of their own: a line adds one (or revises the one its key names). */
interface ProjectPart<Line extends ImportLine> {
  /** The id sequence of the part (allocatedIds' purpose). */
  sequence: 'floorPlan' | 'paymentPlan' | 'media';
  exists(project: Project, id: number): boolean;
  add(line: Line, resolve: KeyResolver): Step<Project | null>;
  revise(line: Line, id: number, resolve: KeyResolver): Array<Step<Project | null>>;
}

async function importProjectPart<Line extends ImportLineOf<'floor_plan' | 'payment_plan' | 'gallery_picture'>>(
  context: LineContext,
  line: Line,
  part: ProjectPart<Line>,
): Promise<LineOutcome> {
  const { batch } = context;
  const keys = new KeyResolver(batch);
  const projectId = keys.id('project', line.data.project, 'data.project');
  keys.orFail();
  const binding = batch.binding(line.type, line.key);
  if (binding && binding.projectId !== projectId) {
    throw refusalOf(
      new ValidationFailed(
        { 'data.project': `names another project than the one "${line.key}" was imported into (project ${binding.projectId})` },
        'A part stays with the project it was imported into.',
      ),
      {},
    );
  }
  const before = await batch.load(projectAggregate, projectId);
  const id = binding?.id ?? (await batch.peekId(part.sequence));
  const exists = binding !== undefined && before.state !== null && part.exists(before.state, id);
  const resolver = new KeyResolver(batch);
  const steps = exists ? part.revise(line, id, resolver) : [part.add(line, resolver)];
  resolver.orFail();
  const { state, events } = await decideSteps(context, projectAggregate, projectId, before, steps, { [part.sequence]: id });
  batch.apply({
    stream: { aggregate: projectAggregate as Aggregate<unknown, DomainEvent>, id: projectId, before, state, events },
    ...(binding ? {} : { binding: { type: line.type, key: line.key, id, projectId }, takesIdOf: part.sequence }),
  });
  return !exists ? 'created' : events.length > 0 ? 'revised' : 'unchanged';
}

const floorPlanPart: ProjectPart<ImportLineOf<'floor_plan'>> = {
  sequence: 'floorPlan',
  exists: (project, id) => project.floor_plans[id] !== undefined,
  add({ data: { project: _project, unit_type, ...fields } }, resolve) {
    const unit_type_id = unit_type === null ? null : resolve.id('unit_type', unit_type, 'data.unit_type');
    return step(addFloorPlan, { ...fields, unit_type_id }, { 'body.unit_type_id': 'data.unit_type', ...DATA });
  },
  revise({ data: { project: _project, unit_type, image, ...fields } }, floor_plan_id, resolve) {
    const unit_type_id = unit_type === null ? null : resolve.id('unit_type', unit_type, 'data.unit_type');
    return [
      step(reviseFloorPlan, { ...fields, unit_type_id, floor_plan_id }, { 'body.unit_type_id': 'data.unit_type', ...DATA }),
      step(replaceFloorPlanImage, { floor_plan_id, image }, DATA),
    ];
  },
};

const paymentPlanPart: ProjectPart<ImportLineOf<'payment_plan'>> = {
  sequence: 'paymentPlan',
  exists: (project, id) => project.payment_plans[id] !== undefined,
  add: ({ data: { project: _project, ...fields } }) => step(addPaymentPlan, fields, DATA),
  revise: ({ data: { project: _project, ...fields } }, payment_plan_id) => [step(revisePaymentPlan, { ...fields, payment_plan_id }, DATA)],
};

const galleryPicturePart: ProjectPart<ImportLineOf<'gallery_picture'>> = {
  sequence: 'media',
  exists: (project, id) => project.gallery[id] !== undefined,
  add: ({ data: { project: _project, ...fields } }) => step(addGalleryPicture, fields, DATA),
  revise({ data: { project: _project, image, caption, position } }, media_id) {
    return [
      step(reviseGalleryPicture, { media_id, caption, ...(position === undefined ? {} : { position }) }, DATA),
      step(replaceGalleryPicture, { media_id, image }, DATA),
    ];
  },
};

/** Decides one parsed line into the batch, or throws LineRefused (and the batch is left as it was). */
export function importLine(context: LineContext, line: ImportLine): Promise<LineOutcome> {
  switch (line.type) {
    case 'state':
      return importState(context, line);
    case 'community':
      return importCommunity(context, line);
    case 'sub_community':
      return importSubCommunity(context, line);
    case 'developer':
      return importDeveloper(context, line);
    case 'unit_type':
      return importUnitType(context, line);
    case 'project':
      return importProject(context, line);
    case 'floor_plan':
      return importProjectPart(context, line, floorPlanPart);
    case 'payment_plan':
      return importProjectPart(context, line, paymentPlanPart);
    case 'gallery_picture':
      return importProjectPart(context, line, galleryPicturePart);
    default:
      return assertNever(line);
  }
}
