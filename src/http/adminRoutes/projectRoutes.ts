import { z } from 'zod';
import * as addFloorPlan from '../../../commands/projects/addFloorPlan.js';
import * as addGalleryPicture from '../../../commands/projects/addGalleryPicture.js';
import * as addPaymentPlan from '../../../commands/projects/addPaymentPlan.js';
import * as attachBrochure from '../../../commands/projects/attachBrochure.js';
import * as attachMasterPlanDocument from '../../../commands/projects/attachMasterPlanDocument.js';
import * as changeProjectStatus from '../../../commands/projects/changeProjectStatus.js';
import * as createProject from '../../../commands/projects/createProject.js';
import * as deleteProject from '../../../commands/projects/deleteProject.js';
import * as publishProject from '../../../commands/projects/publishProject.js';
import * as removeBrochure from '../../../commands/projects/removeBrochure.js';
import * as removeFloorPlan from '../../../commands/projects/removeFloorPlan.js';
import * as removeGalleryPicture from '../../../commands/projects/removeGalleryPicture.js';
import * as removeMasterPlanDocument from '../../../commands/projects/removeMasterPlanDocument.js';
import * as removePaymentPlan from '../../../commands/projects/removePaymentPlan.js';
import * as removeVideo from '../../../commands/projects/removeVideo.js';
import * as replaceFloorPlanImage from '../../../commands/projects/replaceFloorPlanImage.js';
import * as replaceGalleryPicture from '../../../commands/projects/replaceGalleryPicture.js';
import * as reviseFloorPlan from '../../../commands/projects/reviseFloorPlan.js';
import * as reviseGalleryPicture from '../../../commands/projects/reviseGalleryPicture.js';
import * as revisePaymentPlan from '../../../commands/projects/revisePaymentPlan.js';
import * as reviseProject from '../../../commands/projects/reviseProject.js';
import * as setAmenities from '../../../commands/projects/setAmenities.js';
import * as setFaqs from '../../../commands/projects/setFaqs.js';
import * as setFloorPlates from '../../../commands/projects/setFloorPlates.js';
import * as setNearbyPlaces from '../../../commands/projects/setNearbyPlaces.js';
import * as setPaymentMethods from '../../../commands/projects/setPaymentMethods.js';
import * as setRelatedProjects from '../../../commands/projects/setRelatedProjects.js';
import * as setVideo from '../../../commands/projects/setVideo.js';
import * as setVirtualTours from '../../../commands/projects/setVirtualTours.js';
import * as unpublishProject from '../../../commands/projects/unpublishProject.js';
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
import type { UploadField } from '../../uploads/uploadKinds.js';
import type { AdminRoute, AdminRouteResult } from '../adminRoute.js';
import { noParams, pathId, refuseRevisionOfNewResource } from './adminSchemas.js';

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

type ProjectSlice<Command> = CatalogueSlice<Command, Project | null, ProjectEvent>;

interface ProjectCommandRoute<Params extends z.ZodType<{ projectId: number }>, Body extends z.ZodType, Command> {
  method: 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  params: Params;
  body?: Body;
  /** Body fields that also take the file itself (see AdminRoute.uploads). */
  uploads?: readonly UploadField[];
  successStatus?: 200 | 201;
  /** Purposes of ids the command needs allocated (new collection items). */
  allocate?: Array<'floorPlan' | 'paymentPlan' | 'media'>;
  /** Maps the request to the command the slice decides. */
  command(params: z.infer<Params>, body: z.infer<Body>): Command;
  slice: ProjectSlice<Command>;
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
    ...(route.uploads ? { uploads: route.uploads } : {}),
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
        slice: route.slice,
      });
      return representation(result.revision, result.state);
    },
  };
}

const createProjectRoute: AdminRoute<typeof noParams, typeof createProject.createProjectSchema> = {
  method: 'post',
  path: '/projects',
  operationId: 'createProject',
  summary: 'Create a project (its id is allocated by the service; it starts unpublished)',
  tag: TAG,
  params: noParams,
  body: createProject.createProjectSchema,
  successStatus: 201,
  response: projectResponseSchema,
  async handle({ body, actor, expectedRevision }, deps) {
    refuseRevisionOfNewResource(expectedRevision);
    const result = await createCatalogueResource(deps, { aggregate: projectAggregate, actor, command: body, slice: createProject });
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
  slice: ProjectSlice<z.infer<Body>>,
  uploads?: readonly UploadField[],
): AdminRoute<typeof projectParams, Body> {
  return projectCommand({
    method: 'put',
    path: `/projects/:projectId/${segment}`,
    operationId,
    summary: `Replace the project's ${label} (the whole list, in display order)`,
    params: projectParams,
    body,
    ...(uploads ? { uploads } : {}),
    command: (_params, list) => list,
    slice,
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
    body: reviseProject.reviseProjectSchema,
    command: (_params, body) => body,
    slice: reviseProject,
  }),
  projectCommand({
    method: 'post',
    path: '/projects/:projectId/publish',
    operationId: 'publishProject',
    summary: 'Publish a project (no-op when already published)',
    params: projectParams,
    command: () => ({}),
    slice: publishProject,
  }),
  projectCommand({
    method: 'post',
    path: '/projects/:projectId/unpublish',
    operationId: 'unpublishProject',
    summary: 'Unpublish a project (no-op when not published)',
    params: projectParams,
    command: () => ({}),
    slice: unpublishProject,
  }),
  projectCommand({
    method: 'post',
    path: '/projects/:projectId/status',
    operationId: 'changeProjectStatus',
    summary: "Change a project's construction/sales status",
    params: projectParams,
    body: changeProjectStatus.changeProjectStatusSchema,
    command: (_params, body) => body,
    slice: changeProjectStatus,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId',
    operationId: 'deleteProject',
    summary: 'Delete a project (soft: it leaves the catalogue and refuses further commands)',
    params: projectParams,
    command: () => ({}),
    slice: deleteProject,
  }),

  projectCommand({
    method: 'post',
    path: '/projects/:projectId/floor-plans',
    operationId: 'addFloorPlan',
    summary: 'Add a floor plan (its id is allocated by the service)',
    params: projectParams,
    body: addFloorPlan.addFloorPlanSchema,
    uploads: [{ field: 'image', kind: 'image' }],
    successStatus: 201,
    allocate: ['floorPlan'],
    command: (_params, body) => body,
    slice: addFloorPlan,
  }),
  projectCommand({
    method: 'patch',
    path: '/projects/:projectId/floor-plans/:floorPlanId',
    operationId: 'reviseFloorPlan',
    summary: 'Revise some fields of a floor plan (its picture is replaced with PUT .../image)',
    params: floorPlanParams,
    body: reviseFloorPlan.reviseFloorPlanSchema.omit({ floor_plan_id: true }),
    command: (params, body) => ({ ...body, floor_plan_id: params.floorPlanId }),
    slice: reviseFloorPlan,
  }),
  projectCommand({
    method: 'put',
    path: '/projects/:projectId/floor-plans/:floorPlanId/image',
    operationId: 'replaceFloorPlanImage',
    summary: "Replace a floor plan's picture (image-only: not reported by the change feed)",
    params: floorPlanParams,
    body: replaceFloorPlanImage.replaceFloorPlanImageSchema.omit({ floor_plan_id: true }),
    uploads: [{ field: 'image', kind: 'image' }],
    command: (params, body) => ({ ...body, floor_plan_id: params.floorPlanId }),
    slice: replaceFloorPlanImage,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/floor-plans/:floorPlanId',
    operationId: 'removeFloorPlan',
    summary: 'Remove a floor plan',
    params: floorPlanParams,
    command: (params) => ({ floor_plan_id: params.floorPlanId }),
    slice: removeFloorPlan,
  }),

  projectCommand({
    method: 'post',
    path: '/projects/:projectId/payment-plans',
    operationId: 'addPaymentPlan',
    summary: 'Add a payment plan (milestone percents sum to 100; its id is allocated by the service)',
    params: projectParams,
    body: addPaymentPlan.addPaymentPlanSchema,
    successStatus: 201,
    allocate: ['paymentPlan'],
    command: (_params, body) => body,
    slice: addPaymentPlan,
  }),
  projectCommand({
    method: 'patch',
    path: '/projects/:projectId/payment-plans/:paymentPlanId',
    operationId: 'revisePaymentPlan',
    summary: 'Revise a payment plan (new milestones replace the old ones and sum to 100)',
    params: paymentPlanParams,
    body: revisePaymentPlan.revisePaymentPlanSchema.omit({ payment_plan_id: true }),
    command: (params, body) => ({ ...body, payment_plan_id: params.paymentPlanId }),
    slice: revisePaymentPlan,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/payment-plans/:paymentPlanId',
    operationId: 'removePaymentPlan',
    summary: 'Remove a payment plan',
    params: paymentPlanParams,
    command: (params) => ({ payment_plan_id: params.paymentPlanId }),
    slice: removePaymentPlan,
  }),

  projectCommand({
    method: 'post',
    path: '/projects/:projectId/gallery',
    operationId: 'addGalleryPicture',
    summary: 'Add a gallery picture (its media id, used in image addresses, is allocated by the service)',
    params: projectParams,
    body: addGalleryPicture.addGalleryPictureSchema,
    uploads: [{ field: 'image', kind: 'image' }],
    successStatus: 201,
    allocate: ['media'],
    command: (_params, body) => body,
    slice: addGalleryPicture,
  }),
  projectCommand({
    method: 'patch',
    path: '/projects/:projectId/gallery/:mediaId',
    operationId: 'reviseGalleryPicture',
    summary: "Revise a gallery picture's caption or position",
    params: galleryParams,
    body: reviseGalleryPicture.reviseGalleryPictureSchema.omit({ media_id: true }),
    command: (params, body) => ({ ...body, media_id: params.mediaId }),
    slice: reviseGalleryPicture,
  }),
  projectCommand({
    method: 'put',
    path: '/projects/:projectId/gallery/:mediaId/image',
    operationId: 'replaceGalleryPicture',
    summary: 'Replace a gallery picture, keeping its media id (image-only: not reported by the change feed)',
    params: galleryParams,
    body: replaceGalleryPicture.replaceGalleryPictureSchema.omit({ media_id: true }),
    uploads: [{ field: 'image', kind: 'image' }],
    command: (params, body) => ({ ...body, media_id: params.mediaId }),
    slice: replaceGalleryPicture,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/gallery/:mediaId',
    operationId: 'removeGalleryPicture',
    summary: 'Remove a gallery picture',
    params: galleryParams,
    command: (params) => ({ media_id: params.mediaId }),
    slice: removeGalleryPicture,
  }),
  projectCommand({
    method: 'put',
    path: '/projects/:projectId/master-plan-document',
    operationId: 'attachMasterPlanDocument',
    summary: "Attach the project's master plan document (a PDF; replaces any earlier one)",
    params: projectParams,
    body: attachMasterPlanDocument.attachMasterPlanDocumentSchema,
    uploads: [{ field: '', kind: 'document' }],
    command: (_params, body) => body,
    slice: attachMasterPlanDocument,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/master-plan-document',
    operationId: 'removeMasterPlanDocument',
    summary: "Remove the project's master plan document (no-op when there is none)",
    params: projectParams,
    command: () => ({}),
    slice: removeMasterPlanDocument,
  }),

  projectCommand({
    method: 'put',
    path: '/projects/:projectId/video',
    operationId: 'setVideo',
    summary: "Set the project's video (an external address or a stored file, at most one of them)",
    params: projectParams,
    body: setVideo.setVideoSchema,
    uploads: [
      { field: 'file', kind: 'video' },
      { field: 'thumbnail', kind: 'image' },
    ],
    command: (_params, body) => body,
    slice: setVideo,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/video',
    operationId: 'removeVideo',
    summary: "Remove the project's video (no-op when there is none)",
    params: projectParams,
    command: () => ({}),
    slice: removeVideo,
  }),

  listRoute('amenities', 'setAmenities', 'amenities', setAmenities.setAmenitiesSchema, setAmenities),
  listRoute('nearby-places', 'setNearbyPlaces', 'nearby places', setNearbyPlaces.setNearbyPlacesSchema, setNearbyPlaces),
  listRoute('payment-methods', 'setPaymentMethods', 'payment methods', setPaymentMethods.setPaymentMethodsSchema, setPaymentMethods),
  listRoute('faqs', 'setFaqs', 'FAQs', setFaqs.setFaqsSchema, setFaqs),
  listRoute('virtual-tours', 'setVirtualTours', 'virtual tours', setVirtualTours.setVirtualToursSchema, setVirtualTours),
  listRoute('floor-plates', 'setFloorPlates', 'floor plates', setFloorPlates.setFloorPlatesSchema, setFloorPlates, [
    { field: 'items.*.image', kind: 'image' },
  ]),
  listRoute('related-projects', 'setRelatedProjects', 'related projects', setRelatedProjects.setRelatedProjectsSchema, setRelatedProjects),

  projectCommand({
    method: 'put',
    path: '/projects/:projectId/brochure',
    operationId: 'attachBrochure',
    summary: "Attach the project's brochure (a PDF; replaces any earlier one)",
    params: projectParams,
    body: attachBrochure.attachBrochureSchema,
    uploads: [{ field: '', kind: 'document' }],
    command: (_params, body) => body,
    slice: attachBrochure,
  }),
  projectCommand({
    method: 'delete',
    path: '/projects/:projectId/brochure',
    operationId: 'removeBrochure',
    summary: "Remove the project's brochure (no-op when there is none)",
    params: projectParams,
    command: () => ({}),
    slice: removeBrochure,
  }),
];
