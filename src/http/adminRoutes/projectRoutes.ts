import { z } from 'zod';
import { addFloorPlanSchema, decide as addFloorPlan, references as addFloorPlanReferences } from '../../../commands/projects/addFloorPlan.js';
import { addGalleryPictureSchema, decide as addGalleryPicture } from '../../../commands/projects/addGalleryPicture.js';
import { addPaymentPlanSchema, decide as addPaymentPlan } from '../../../commands/projects/addPaymentPlan.js';
import { attachBrochureSchema, decide as attachBrochure } from '../../../commands/projects/attachBrochure.js';
import {
  attachMasterPlanDocumentSchema,
  decide as attachMasterPlanDocument,
} from '../../../commands/projects/attachMasterPlanDocument.js';
import { changeProjectStatusSchema, decide as changeProjectStatus } from '../../../commands/projects/changeProjectStatus.js';
import { createProjectSchema, decide as createProject, references as createProjectReferences } from '../../../commands/projects/createProject.js';
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
import {
  decide as reviseFloorPlan,
  references as reviseFloorPlanReferences,
  reviseFloorPlanSchema,
} from '../../../commands/projects/reviseFloorPlan.js';
import {
  decide as reviseGalleryPicture,
  reviseGalleryPictureSchema,
} from '../../../commands/projects/reviseGalleryPicture.js';
import { decide as revisePaymentPlan, revisePaymentPlanSchema } from '../../../commands/projects/revisePaymentPlan.js';
import { decide as reviseProject, references as reviseProjectReferences, reviseProjectSchema } from '../../../commands/projects/reviseProject.js';
import { decide as setAmenities, setAmenitiesSchema } from '../../../commands/projects/setAmenities.js';
import { decide as setFaqs, setFaqsSchema } from '../../../commands/projects/setFaqs.js';
import { decide as setFloorPlates, setFloorPlatesSchema } from '../../../commands/projects/setFloorPlates.js';
import { decide as setNearbyPlaces, setNearbyPlacesSchema } from '../../../commands/projects/setNearbyPlaces.js';
import { decide as setPaymentMethods, setPaymentMethodsSchema } from '../../../commands/projects/setPaymentMethods.js';
import {
  decide as setRelatedProjects,
  references as setRelatedProjectsReferences,
  setRelatedProjectsSchema,
} from '../../../commands/projects/setRelatedProjects.js';
import { decide as setVideo, setVideoSchema } from '../../../commands/projects/setVideo.js';
import { decide as setVirtualTours, setVirtualToursSchema } from '../../../commands/projects/setVirtualTours.js';
import { decide as unpublishProject } from '../../../commands/projects/unpublishProject.js';
import { createCatalogueResource, updateCatalogueResource, type CatalogueSlice } from '../../catalogue/catalogueCommands.js';
import { imageRefSchema } from '../../catalogue/imageRef.js';
import {
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
} from '../../catalogue/project.js';
import { loadAggregate } from '../../domain/commandHandler.js';
import { NotFound } from '../../domain/errors.js';
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

// Routes.

const projectParams = z.object({ projectId: pathId }).strict();
const floorPlanParams = z.object({ projectId: pathId, floorPlanId: pathId }).strict();
const paymentPlanParams = z.object({ projectId: pathId, paymentPlanId: pathId }).strict();
const galleryParams = z.object({ projectId: pathId, mediaId: pathId }).strict();

type ProjectDecide<Command> = CatalogueSlice<Command, Project | null, ProjectEvent>['decide'];
type ProjectReferences<Command> = NonNullable<CatalogueSlice<Command, Project | null, ProjectEvent>['references']>;

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
  references?: ProjectReferences<Command>;
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
      const result = await updateCatalogueResource(deps, {
        aggregate: projectAggregate,
        id: params.projectId,
        ...(expectedRevision === undefined ? {} : { expectedRevision }),
        actor,
        ...(route.allocate ? { allocate: route.allocate } : {}),
        command: route.command(params, body),
        slice: { decide: route.decide, ...(route.references ? { references: route.references } : {}) },
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
    const result = await createCatalogueResource(deps, {
      aggregate: projectAggregate,
      actor,
      command: body,
      slice: { decide: createProject, references: createProjectReferences },
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
  references?: ProjectReferences<z.infer<Body>>,
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
    ...(references ? { references } : {}),
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
    references: reviseProjectReferences,
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
    references: addFloorPlanReferences,
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
    references: (command) => reviseFloorPlanReferences(command),
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
    setRelatedProjectsReferences,
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
