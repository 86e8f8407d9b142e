import { z } from 'zod';
import { addFloorPlanSchema, decide as addFloorPlan } from '../../../commands/projects/addFloorPlan.js';
import { addGalleryPictureSchema, decide as addGalleryPicture } from '../../../commands/projects/addGalleryPicture.js';
import { addPaymentPlanSchema, decide as addPaymentPlan } from '../../../commands/projects/addPaymentPlan.js';
import { attachBrochureSchema, decide as attachBrochure } from '../../../commands/projects/attachBrochure.js';
import {
  attachMasterPlanDocumentSchema,
  decide as attachMasterPlanDocument,
} from '../../../commands/projects/attachMasterPlanDocument.js';
import { changeProjectStatusSchema, decide as changeProjectStatus } from '../../../commands/projects/changeProjectStatus.js';
import { createProjectSchema, decide as createProject, type CreateProject } from '../../../commands/projects/createProject.js';
import { decide as deleteProject } from '../../../commands/projects/deleteProject.js';
import { decide as publishProject } from '../../../commands/projects/publishProject.js';
import { decide as removeBrochure } from '../../../commands/projects/removeBrochure.js';
import { decide as removeFloorPlan } from '../../../commands/projects/removeFloorPlan.js';
import { decide as removeGalleryPicture } from '../../../commands/projects/removeGalleryPicture.js';
import { decide as removeMasterPlanDocument } from '../../../commands/projects/removeMasterPlanDocument.js';
import { decide as removePaymentPlan } from '../../../commands/projects/removePaymentPlan.js';
import { decide as removeVideo } from '../../../commands/projects/removeVideo.js';
import {
  decide as replaceFloorPlanImage,
  replaceFloorPlanImageSchema,
} from '../../../commands/projects/replaceFloorPlanImage.js';
import {
  decide as replaceGalleryPicture,
  replaceGalleryPictureSchema,
} from '../../../commands/projects/replaceGalleryPicture.js';
import { decide as reviseFloorPlan, reviseFloorPlanSchema } from '../../../commands/projects/reviseFloorPlan.js';
import {
  decide as reviseGalleryPicture,
  reviseGalleryPictureSchema,
} from '../../../commands/projects/reviseGalleryPicture.js';
import { decide as revisePaymentPlan, revisePaymentPlanSchema } from '../../../commands/projects/revisePaymentPlan.js';
import { decide as reviseProject, reviseProjectSchema, type ReviseProject } from '../../../commands/projects/reviseProject.js';
import { decide as setAmenities, setAmenitiesSchema } from '../../../commands/projects/setAmenities.js';
import { decide as setFaqs, setFaqsSchema } from '../../../commands/projects/setFaqs.js';
import { decide as setFloorPlates, setFloorPlatesSchema } from '../../../commands/projects/setFloorPlates.js';
import { decide as setNearbyPlaces, setNearbyPlacesSchema } from '../../../commands/projects/setNearbyPlaces.js';
import { decide as setPaymentMethods, setPaymentMethodsSchema } from '../../../commands/projects/setPaymentMethods.js';
import { decide as setRelatedProjects, setRelatedProjectsSchema } from '../../../commands/projects/setRelatedProjects.js';
import { decide as setVideo, setVideoSchema } from '../../../commands/projects/setVideo.js';
import { decide as setVirtualTours, setVirtualToursSchema } from '../../../commands/projects/setVirtualTours.js';
import { decide as unpublishProject } from '../../../commands/projects/unpublishProject.js';
import { communityAggregate } from '../../catalogue/community.js';
import { developerAggregate } from '../../catalogue/developer.js';
import { imageRefSchema } from '../../catalogue/imageRef.js';
import {
  activeProject,
  amenitySchema,
  faqSchema,
  floorPlanFieldsSchema,
  floorPlateSchema,
  galleryPictureFieldsSchema,
  nearbyPlaceSchema,
  paymentMethodSchema,
  paymentPlanFieldsSchema,
  pdfDocumentSchema,
  projectAggregate,
  projectFieldsSchema,
  projectStatuses,
  videoSchema,
  virtualTourSchema,
  type Project,
  type ProjectEvent,
  type ProjectFields,
} from '../../catalogue/project.js';
import { stateAggregate } from '../../catalogue/state.js';
import { subCommunityAggregate } from '../../catalogue/subCommunity.js';
import { unitTypeAggregate } from '../../catalogue/unitType.js';
import { createAggregate, loadAggregate, updateAggregate } from '../../domain/commandHandler.js';
import type { CommandMeta } from '../../domain/decider.js';
import { NotFound, ValidationFailed } from '../../domain/errors.js';
import type { EventStore } from '../../eventStore/eventStore.js';
import type { AdminRoute, AdminRouteResult } from '../adminRoute.js';
import { noParams, pathId } from './adminSchemas.js';

const TAG = 'Projects';

// Representation: the write-side project with its revision; collections keyed by id become lists.

const idSchema = z.number().int().positive();
const timestampSchema = z.iso.datetime({ offset: true });

const projectResponseSchema = projectFieldsSchema
  .extend({
    id: idSchema.meta({ description: 'Allocated by the service.' }),
    revision: z
      .number()
      .int()
      .nonnegative()
      .meta({ description: "Revision of the project's event stream; also sent as ETag, send it back as If-Match." }),
    status: z.enum(projectStatuses),
    published: z.boolean().meta({ description: 'Visible to API clients; starts false.' }),
    deleted: z.boolean().meta({ description: 'Soft-deleted: kept for history, refuses every further command.' }),
    created_at: timestampSchema,
    updated_at: timestampSchema.meta({ description: "The project's own last edit; edits of its collections leave it." }),
    floor_plans: z.array(floorPlanFieldsSchema.extend({ floor_plan_id: idSchema, image: imageRefSchema })).meta({ description: 'By id.' }),
    payment_plans: z.array(paymentPlanFieldsSchema.extend({ payment_plan_id: idSchema })).meta({ description: 'By id.' }),
    gallery: z
      .array(galleryPictureFieldsSchema.extend({ media_id: idSchema, image: imageRefSchema }))
      .meta({ description: 'By position, then media id.' }),
    master_plan_document: pdfDocumentSchema.nullable(),
    video: videoSchema.nullable(),
    amenities: z.array(amenitySchema),
    nearby_places: z.array(nearbyPlaceSchema),
    payment_methods: z.array(paymentMethodSchema),
    faqs: z.array(faqSchema),
    virtual_tours: z.array(virtualTourSchema),
    floor_plates: z.array(floorPlateSchema),
    brochure: pdfDocumentSchema.nullable(),
    related_project_ids: z.array(idSchema),
  })
  .meta({ id: 'AdminProject', description: 'A project as the write side holds it, with all its collections.' });

function representation(revision: number, project: Project | null): AdminRouteResult {
  if (!project) throw new NotFound();
  const { floor_plans, payment_plans, gallery, ...fields } = project;
  const data: z.input<typeof projectResponseSchema> = {
    ...fields,
    revision,
    // Integer keys enumerate in ascending order, so these lists come out by id.
    floor_plans: Object.values(floor_plans),
    payment_plans: Object.values(payment_plans),
    gallery: Object.values(gallery).sort((a, b) => a.position - b.position || a.media_id - b.media_id),
  };
  return { data, revision };
}

// Referenced ids. They are checked before deciding, so a dangling reference never reaches the event log;
// every problem of a request is reported in one 422.

type Problems = Record<string, string>;

function throwIfAny(problems: Problems): void {
  if (Object.keys(problems).length > 0) throw new ValidationFailed(problems);
}

async function exists(eventStore: EventStore, aggregate: { streamName(id: number): string }, id: number): Promise<boolean> {
  return (await eventStore.readStream(aggregate.streamName(id))).length > 0;
}

/** The community must lie in the state and the sub-community in the community. */
async function placeProblems(
  eventStore: EventStore,
  place: Pick<ProjectFields, 'state_id' | 'community_id' | 'sub_community_id'>,
): Promise<Problems> {
  const [stateExists, community, subCommunity] = await Promise.all([
    exists(eventStore, stateAggregate, place.state_id),
    loadAggregate(eventStore, communityAggregate, place.community_id),
    place.sub_community_id === null ? null : loadAggregate(eventStore, subCommunityAggregate, place.sub_community_id),
  ]);
  const problems: Problems = {};
  if (!stateExists) problems['body.state_id'] = `state ${place.state_id} does not exist`;
  if (!community?.state) {
    problems['body.community_id'] = `community ${place.community_id} does not exist`;
  } else if (community.state.state_id !== place.state_id) {
    problems['body.community_id'] = `community ${place.community_id} lies in state ${community.state.state_id}, not in state ${place.state_id}`;
  }
  if (place.sub_community_id !== null) {
    if (!subCommunity?.state) {
      problems['body.sub_community_id'] = `sub-community ${place.sub_community_id} does not exist`;
    } else if (subCommunity.state.community_id !== place.community_id) {
      problems['body.sub_community_id'] = `sub-community ${place.sub_community_id} lies in community ${subCommunity.state.community_id}, not in community ${place.community_id}`;
    }
  }
  return problems;
}

async function unitTypeProblems(eventStore: EventStore, unitTypeIds: readonly number[], field: string): Promise<Problems> {
  const found = await Promise.all(unitTypeIds.map((id) => exists(eventStore, unitTypeAggregate, id)));
  return Object.fromEntries(
    unitTypeIds.flatMap((id, index) => (found[index] ? [] : [[`${field}.${index}`, `unit type ${id} does not exist`]])),
  );
}

async function developerProblems(eventStore: EventStore, developerId: number): Promise<Problems> {
  return (await exists(eventStore, developerAggregate, developerId))
    ? {}
    : { 'body.developer_id': `developer ${developerId} does not exist` };
}

async function createProblems(command: CreateProject, eventStore: EventStore): Promise<Problems> {
  const parts = await Promise.all([
    developerProblems(eventStore, command.developer_id),
    placeProblems(eventStore, command),
    unitTypeProblems(eventStore, command.unit_type_ids, 'body.unit_type_ids'),
  ]);
  return Object.assign({}, ...parts);
}

/** Only what the revision touches is checked; a moved place is checked as a whole, as it will be after the change. */
async function reviseProblems(command: ReviseProject, eventStore: EventStore, project: Project): Promise<Problems> {
  const movesPlace = command.state_id !== undefined || command.community_id !== undefined || command.sub_community_id !== undefined;
  const place = {
    state_id: command.state_id ?? project.state_id,
    community_id: command.community_id ?? project.community_id,
    sub_community_id: command.sub_community_id === undefined ? project.sub_community_id : command.sub_community_id,
  };
  const parts = await Promise.all([
    command.developer_id === undefined ? {} : developerProblems(eventStore, command.developer_id),
    movesPlace ? placeProblems(eventStore, place) : {},
    command.unit_type_ids === undefined ? {} : unitTypeProblems(eventStore, command.unit_type_ids, 'body.unit_type_ids'),
  ]);
  return Object.assign({}, ...parts);
}

async function floorPlanUnitTypeProblems(command: { unit_type_id?: number | null }, eventStore: EventStore): Promise<Problems> {
  const id = command.unit_type_id;
  if (id === undefined || id === null) return {};
  return (await exists(eventStore, unitTypeAggregate, id)) ? {} : { 'body.unit_type_id': `unit type ${id} does not exist` };
}

/** A deleted project has left the catalogue, so it cannot be related to. */
async function relatedProjectProblems(command: { project_ids: number[] }, eventStore: EventStore): Promise<Problems> {
  const related = await Promise.all(command.project_ids.map((id) => loadAggregate(eventStore, projectAggregate, id)));
  return Object.fromEntries(
    command.project_ids.flatMap((id, index) => {
      const project = related[index]?.state;
      return project && !project.deleted ? [] : [[`body.project_ids.${index}`, `project ${id} does not exist`]];
    }),
  );
}

// Routes.

const projectParams = z.object({ projectId: pathId }).strict();
const floorPlanParams = z.object({ projectId: pathId, floorPlanId: pathId }).strict();
const paymentPlanParams = z.object({ projectId: pathId, paymentPlanId: pathId }).strict();
const galleryParams = z.object({ projectId: pathId, mediaId: pathId }).strict();

type ProjectDecide<Command> = (command: Command, state: Project | null, meta: CommandMeta & { id: number }) => ProjectEvent[];

interface ProjectCommandRoute<Params extends z.ZodType<{ projectId: number }>, Body extends z.ZodType, Command> {
  method: 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  params: Params;
  body?: Body;
  successStatus?: 200 | 201;
  /** Purposes of ids the command needs allocated (new collection items). */
  allocate?: Array<'floorPlan' | 'paymentPlan' | 'media'>;
  command(params: z.infer<Params>, body: z.infer<Body>): Command;
  decide: ProjectDecide<Command>;
  /** Reference checks; they see the project as it is, and the command is then decided on exactly that revision. */
  problems?(command: Command, eventStore: EventStore, project: Project): Promise<Problems>;
}

/**
 * A command on an existing project. A command that changes nothing answers the current state and
 * revision, so retrying an edit is harmless.
 */
function projectCommand<Params extends z.ZodType<{ projectId: number }>, Body extends z.ZodType, Command>(
  route: ProjectCommandRoute<Params, Body, Command>,
): AdminRoute<Params, Body> {
  return {
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    tag: TAG,
    params: route.params,
    ...(route.body ? { body: route.body } : {}),
    successStatus: route.successStatus ?? 200,
    response: projectResponseSchema,
    async handle({ params, body, expectedRevision, actor }, deps) {
      const projectId: number = params.projectId;
      const command = route.command(params, body);
      let pinnedRevision = expectedRevision;
      if (route.problems) {
        const loaded = await loadAggregate(deps.eventStore, projectAggregate, projectId);
        // Missing and deleted projects are refused as such before any reference is looked at.
        const project = activeProject(loaded?.state ?? null, projectId);
        throwIfAny(await route.problems(command, deps.eventStore, project));
        pinnedRevision = expectedRevision ?? loaded?.revision;
      }
      const result = await updateAggregate(deps, {
        aggregate: projectAggregate,
        id: projectId,
        ...(pinnedRevision === undefined ? {} : { expectedRevision: pinnedRevision }),
        actor,
        ...(route.allocate ? { allocate: route.allocate } : {}),
        decide: (state, meta) => route.decide(command, state, meta),
      });
      return representation(result.revision, result.state);
    },
  };
}

const createProjectRoute: AdminRoute<typeof noParams, typeof createProjectSchema> = {
  method: 'post',
  path: '/projects',
  operationId: 'createProject',
  summary: 'Create a project (its id is allocated by the service; it starts unpublished)',
  tag: TAG,
  params: noParams,
  body: createProjectSchema,
  successStatus: 201,
  response: projectResponseSchema,
  async handle({ body, actor }, deps) {
    throwIfAny(await createProblems(body, deps.eventStore));
    const result = await createAggregate(deps, {
      aggregate: projectAggregate,
      idSequence: projectAggregate.category,
      actor,
      decide: (state, meta) => createProject(body, state, meta),
    });
    return representation(result.revision, result.state);
  },
};

const getProjectRoute: AdminRoute<typeof projectParams> = {
  method: 'get',
  path: '/projects/:projectId',
  operationId: 'getProject',
  summary: 'Read a project as the write side holds it, with its revision (send it back as If-Match)',
  tag: TAG,
  params: projectParams,
  successStatus: 200,
  response: projectResponseSchema,
  async handle({ params }, deps) {
    const loaded = await loadAggregate(deps.eventStore, projectAggregate, params.projectId);
    if (!loaded) throw new NotFound();
    return representation(loaded.revision, loaded.state);
  },
};

/** A whole-list collection: PUT replaces the list. */
function listRoute<Body extends z.ZodType>(
  segment: string,
  operationId: string,
  label: string,
  body: Body,
  decide: ProjectDecide<z.infer<Body>>,
  problems?: (command: z.infer<Body>, eventStore: EventStore) => Promise<Problems>,
): AdminRoute<typeof projectParams, Body> {
  return projectCommand({
    method: 'put',
    path: `/projects/:projectId/${segment}`,
    operationId,
    summary: `Replace the project's ${label} (the whole list, in display order)`,
    params: projectParams,
    body,
    command: (_params, list) => list,
    decide,
    ...(problems ? { problems } : {}),
  });
}

/** Admin operations on projects and every collection that belongs to a project. */
export const projectRoutes: AdminRoute[] = [
  createProjectRoute,
  getProjectRoute,
  projectCommand({
    method: 'patch',
    path: '/projects/:projectId',
    operationId: 'reviseProject',
    summary: 'Revise some core fields of a project (status, publication and deletion have their own operations)',
    params: projectParams,
    body: reviseProjectSchema,
    command: (_params, body) => body,
    decide: reviseProject,
    problems: reviseProblems,
  }),
  projectCommand({
    method: 'post',
    path: '/projects/:projectId/publish',
    operationId: 'publishProject',
    summary: 'Publish a project (no-op when already published)',
    params: projectParams,
    command: () => ({}),
    decide: publishProject,
  }),
  projectCommand({
    method: 'post',
    path: '/projects/:projectId/unpublish',
    operationId: 'unpublishProject',
    summary: 'Unpublish a project (no-op when not published)',
    params: projectParams,
    command: () => ({}),
    decide: unpublishProject,
  }),
  projectCommand({
    method: 'post',
    path: '/projects/:projectId/status',
    operationId: 'changeProjectStatus',
    summary: "Change a project's construction/sales status",
    params: projectParams,
    body: changeProjectStatusSchema,
    command: (_params, body) => body,
    decide: changeProjectStatus,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId',
    operationId: 'deleteProject',
    summary: 'Delete a project (soft: it leaves the catalogue and refuses further commands)',
    params: projectParams,
    command: () => ({}),
    decide: deleteProject,
  }),

  projectCommand({
    method: 'post',
    path: '/projects/:projectId/floor-plans',
    operationId: 'addFloorPlan',
    summary: 'Add a floor plan (its id is allocated by the service)',
    params: projectParams,
    body: addFloorPlanSchema,
    successStatus: 201,
    allocate: ['floorPlan'],
    command: (_params, body) => body,
    decide: addFloorPlan,
    problems: floorPlanUnitTypeProblems,
  }),
  projectCommand({
    method: 'patch',
    path: '/projects/:projectId/floor-plans/:floorPlanId',
    operationId: 'reviseFloorPlan',
    summary: 'Revise some fields of a floor plan (its picture is replaced with PUT .../image)',
    params: floorPlanParams,
    body: reviseFloorPlanSchema.omit({ floor_plan_id: true }),
    command: (params, body) => ({ ...body, floor_plan_id: params.floorPlanId }),
    decide: reviseFloorPlan,
    problems: floorPlanUnitTypeProblems,
  }),
  projectCommand({
    method: 'put',
    path: '/projects/:projectId/floor-plans/:floorPlanId/image',
    operationId: 'replaceFloorPlanImage',
    summary: "Replace a floor plan's picture (image-only: not reported by the change feed)",
    params: floorPlanParams,
    body: replaceFloorPlanImageSchema.omit({ floor_plan_id: true }),
    command: (params, body) => ({ ...body, floor_plan_id: params.floorPlanId }),
    decide: replaceFloorPlanImage,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/floor-plans/:floorPlanId',
    operationId: 'removeFloorPlan',
    summary: 'Remove a floor plan',
    params: floorPlanParams,
    command: (params) => ({ floor_plan_id: params.floorPlanId }),
    decide: removeFloorPlan,
  }),

  projectCommand({
    method: 'post',
    path: '/projects/:projectId/payment-plans',
    operationId: 'addPaymentPlan',
    summary: 'Add a payment plan (milestone percents sum to 100; its id is allocated by the service)',
    params: projectParams,
    body: addPaymentPlanSchema,
    successStatus: 201,
    allocate: ['paymentPlan'],
    command: (_params, body) => body,
    decide: addPaymentPlan,
  }),
  projectCommand({
    method: 'patch',
    path: '/projects/:projectId/payment-plans/:paymentPlanId',
    operationId: 'revisePaymentPlan',
    summary: 'Revise a payment plan (new milestones replace the old ones and sum to 100)',
    params: paymentPlanParams,
    body: revisePaymentPlanSchema.omit({ payment_plan_id: true }),
    command: (params, body) => ({ ...body, payment_plan_id: params.paymentPlanId }),
    decide: revisePaymentPlan,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/payment-plans/:paymentPlanId',
    operationId: 'removePaymentPlan',
    summary: 'Remove a payment plan',
    params: paymentPlanParams,
    command: (params) => ({ payment_plan_id: params.paymentPlanId }),
    decide: removePaymentPlan,
  }),

  projectCommand({
    method: 'post',
    path: '/projects/:projectId/gallery',
    operationId: 'addGalleryPicture',
    summary: 'Add a gallery picture (its media id, used in image addresses, is allocated by the service)',
    params: projectParams,
    body: addGalleryPictureSchema,
    successStatus: 201,
    allocate: ['media'],
    command: (_params, body) => body,
    decide: addGalleryPicture,
  }),
  projectCommand({
    method: 'patch',
    path: '/projects/:projectId/gallery/:mediaId',
    operationId: 'reviseGalleryPicture',
    summary: "Revise a gallery picture's caption or position",
    params: galleryParams,
    body: reviseGalleryPictureSchema.omit({ media_id: true }),
    command: (params, body) => ({ ...body, media_id: params.mediaId }),
    decide: reviseGalleryPicture,
  }),
  projectCommand({
    method: 'put',
    path: '/projects/:projectId/gallery/:mediaId/image',
    operationId: 'replaceGalleryPicture',
    summary: 'Replace a gallery picture, keeping its media id (image-only: not reported by the change feed)',
    params: galleryParams,
    body: replaceGalleryPictureSchema.omit({ media_id: true }),
    command: (params, body) => ({ ...body, media_id: params.mediaId }),
    decide: replaceGalleryPicture,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/gallery/:mediaId',
    operationId: 'removeGalleryPicture',
    summary: 'Remove a gallery picture',
    params: galleryParams,
    command: (params) => ({ media_id: params.mediaId }),
    decide: removeGalleryPicture,
  }),
  projectCommand({
    method: 'put',
    path: '/projects/:projectId/master-plan-document',
    operationId: 'attachMasterPlanDocument',
    summary: "Attach the project's master plan document (a PDF; replaces any earlier one)",
    params: projectParams,
    body: attachMasterPlanDocumentSchema,
    command: (_params, body) => body,
    decide: attachMasterPlanDocument,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/master-plan-document',
    operationId: 'removeMasterPlanDocument',
    summary: "Remove the project's master plan document (no-op when there is none)",
    params: projectParams,
    command: () => ({}),
    decide: removeMasterPlanDocument,
  }),

  projectCommand({
    method: 'put',
    path: '/projects/:projectId/video',
    operationId: 'setVideo',
    summary: "Set the project's video (an external address or a stored file, at most one of them)",
    params: projectParams,
    body: setVideoSchema,
    command: (_params, body) => body,
    decide: setVideo,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/video',
    operationId: 'removeVideo',
    summary: "Remove the project's video (no-op when there is none)",
    params: projectParams,
    command: () => ({}),
    decide: removeVideo,
  }),

  listRoute('amenities', 'setAmenities', 'amenities', setAmenitiesSchema, setAmenities),
  listRoute('nearby-places', 'setNearbyPlaces', 'nearby places', setNearbyPlacesSchema, setNearbyPlaces),
  listRoute('payment-methods', 'setPaymentMethods', 'payment methods', setPaymentMethodsSchema, setPaymentMethods),
  listRoute('faqs', 'setFaqs', 'FAQs', setFaqsSchema, setFaqs),
  listRoute('virtual-tours', 'setVirtualTours', 'virtual tours', setVirtualToursSchema, setVirtualTours),
  listRoute('floor-plates', 'setFloorPlates', 'floor plates', setFloorPlatesSchema, setFloorPlates),
  listRoute(
    'related-projects',
    'setRelatedProjects',
    'related projects',
    setRelatedProjectsSchema,
    setRelatedProjects,
    relatedProjectProblems,
  ),

  projectCommand({
    method: 'put',
    path: '/projects/:projectId/brochure',
    operationId: 'attachBrochure',
    summary: "Attach the project's brochure (a PDF; replaces any earlier one)",
    params: projectParams,
    body: attachBrochureSchema,
    command: (_params, body) => body,
    decide: attachBrochure,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/brochure',
    operationId: 'removeBrochure',
    summary: "Remove the project's brochure (no-op when there is none)",
    params: projectParams,
    command: () => ({}),
    decide: removeBrochure,
  }),
];
