import { z } from 'zod';
import type { Entitlement, Scope } from '../src/access/accessContext.js';
import type { PdfDocument, VideoFile } from '../src/catalogue/project.js';
import { NotFound } from '../src/domain/errors.js';
import type { LinkSigner } from '../src/http/signedLinks.js';
import type { ReadStore } from '../src/readStore/readStore.js';
import { floorPlanMediaId, floorPlateMediaId, videoMediaId } from '../projections/mediaAddresses.js';
import { PROJECT_RESOURCES, type ProjectResourcesDoc } from '../projections/projectResources.js';
import { PROJECTS, type ProjectDoc } from '../projections/projects.js';
import { catalogueScopeOf, projectInScope, type CatalogueScope } from './catalogueScope.js';
import { DocumentUnavailable, externalDocumentPath, storedDocumentPath, VideoNotAvailable, type DocumentKind } from './documentLinks.js';
import { getPublished, idListParameter } from './queryParameters.js';
import { projectParams } from './projects.js';
import type { Grants, QueryDeps, QueryErrorKind, QueryRoute } from './queryRoute.js';
import {
  imageAddresses,
  imageSchema,
  previewImageAddresses,
  projectReferences,
  projectSummarySchema,
  serializedSummaries,
} from './representations.js';
import { AccessRefused } from '../src/access/accessRefusals.js';

// Item representations of the related collections.

const floorPlanSchema = z
  .object({
    id: z.number().int(),
    title: z.string(),
    unit_type_id: z.number().int().nullable().meta({ description: 'Resolved through unit_types in /catalog/metadata.' }),
    area: z.union([z.number(), z.string()]).nullable().meta({ description: 'Rounded to a whole number, keeping its type.' }),
    price: z.number().nullable(),
    image: imageSchema,
  })
  .meta({ id: 'FloorPlan' });

const paymentPlanSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    milestones: z.array(z.object({ label: z.string(), percent: z.number(), due: z.string().nullable() })),
  })
  .meta({ id: 'PaymentPlan' });

const mediaItemSchema = z
  .object({
    id: z.number().int().meta({ description: 'The media id of the image addresses.' }),
    caption: z.string().nullable(),
    position: z.number().int(),
    image: imageSchema,
  })
  .meta({ id: 'MediaItem' });

/**
 * Expiries are rounded up to a window (src/http/signedLinks.ts), so the same file's link, and the ETag of the
 * response carrying it, stay the same for a while and polling with If-None-Match gets 304.
 */
const SIGNED_LINK_EXPIRY =
  'Short-lived signed link (expires, signature); public, no Authorization. Its expiry is SIGNED_LINK_TTL_SECONDS (15 minutes by default) ' +
  'from the request, rounded up to the next multiple of a third of that TTL counted from the Unix epoch (5 minutes by default): requests ' +
  'within one such window get the very same link and ETag, and a link stays valid for at least the TTL and less than 4/3 of it.';

const DOWNLOAD =
  'It answers the file itself (Content-Disposition: attachment with the file name; Range requests), or 302 to a legacy document on ' +
  'another host; 403 LINK_INVALID or LINK_EXPIRED, 404 DOCUMENT_UNAVAILABLE (VIDEO_NOT_AVAILABLE for a video) when the file cannot be located.';

const documentLinkSchema = z
  .object({
    file_name: z.string(),
    size_bytes: z.number().int().nullable().meta({ description: 'null for a legacy document kept on another host.' }),
    download_url: z.string().meta({ description: `${SIGNED_LINK_EXPIRY} ${DOWNLOAD}` }),
    expires_at: z.iso.datetime().meta({ description: 'When download_url stops working.' }),
  })
  .meta({ id: 'DocumentLink' });

const mediaSchema = z
  .object({ items: z.array(mediaItemSchema), master_plan_document: documentLinkSchema.nullable() })
  .meta({ id: 'ProjectMedia' });

const videoSchema = z
  .object({
    title: z.string(),
    description: z.string().nullable(),
    external_url: z.string().nullable(),
    file_url: z
      .string()
      .nullable()
      .meta({ description: `At most one of external_url and file_url is set. ${SIGNED_LINK_EXPIRY} ${DOWNLOAD}` }),
    file_expires_at: z.iso.datetime().nullable().meta({ description: 'When file_url stops working.' }),
    thumbnail_url: z.string().nullable(),
  })
  .meta({ id: 'Video' });

const amenitySchema = z.object({ name: z.string(), icon: z.string().nullable() }).meta({ id: 'Amenity' });
const nearbySchema = z.object({ name: z.string(), category: z.string(), distance_km: z.number() }).meta({ id: 'NearbyPlace' });
const paymentMethodSchema = z.object({ name: z.string(), description: z.string().nullable() }).meta({ id: 'PaymentMethod' });
const faqSchema = z.object({ question: z.string(), answer: z.string() }).meta({ id: 'Faq' });
const virtualTourSchema = z.object({ title: z.string(), url: z.string() }).meta({ id: 'VirtualTour' });
const floorPlateSchema = z
  .object({ title: z.string(), floors: z.string().nullable(), image: imageSchema.nullable() })
  .meta({ id: 'FloorPlate' });

/**
 * Files are served under `/documents/{kind}/{key}/{file_name}` behind a signed link (queries/documentFiles.ts);
 * a legacy document on another host under `/documents/{kind}/external/{url}/{file_name}`, which redirects.
 */
function documentLink(document: PdfDocument | VideoFile, kind: DocumentKind, baseUrl: string, signer: LinkSigner, now: Date) {
  const link = signer.sign(
    'external_url' in document
      ? externalDocumentPath(kind, document.external_url, document.file_name)
      : storedDocumentPath(kind, document.key, document.file_name),
    now,
  );
  return {
    file_name: document.file_name,
    size_bytes: 'external_url' in document ? null : document.size_bytes,
    download_url: `${baseUrl}${link.pathAndQuery}`,
    expires_at: link.expiresAt.toISOString(),
  };
}

interface Shaping {
  baseUrl: string;
  deps: QueryDeps;
  /** Evaluation Mode: preview images only; no full documents or video (rule 9). */
  evaluation: boolean;
}

const shapeFloorPlans = (resources: ProjectResourcesDoc, { baseUrl }: Shaping) =>
  resources.floor_plans.map((plan) => ({ ...plan, image: imageAddresses(baseUrl, floorPlanMediaId(plan.id), plan.image) }));

const shapeMedia = (resources: ProjectResourcesDoc, { baseUrl, deps, evaluation }: Shaping) => ({
  items: resources.media.items.map((item) => ({
    ...item,
    image: evaluation ? previewImageAddresses(baseUrl, item.id, item.image) : imageAddresses(baseUrl, item.id, item.image),
  })),
  master_plan_document:
    resources.media.master_plan_document && !evaluation
      ? documentLink(resources.media.master_plan_document, 'master-plan', baseUrl, deps.linkSigner, deps.clock())
      : null,
});

const shapeFloorPlates = (resources: ProjectResourcesDoc, { baseUrl }: Shaping) =>
  resources.floor_plates.map((plate) => ({
    title: plate.title,
    floors: plate.floors,
    image: plate.image ? imageAddresses(baseUrl, floorPlateMediaId(resources.project_id), plate.image) : null,
  }));

function shapeVideo(resources: ProjectResourcesDoc, { baseUrl, deps, evaluation }: Shaping): z.infer<typeof videoSchema> {
  if (evaluation) throw new AccessRefused('EVALUATION_PREVIEW_ONLY');
  const { video } = resources;
  if (!video) throw new VideoNotAvailable();
  const file = video.file ? documentLink(video.file, 'video', baseUrl, deps.linkSigner, deps.clock()) : null;
  return {
    title: video.title,
    description: video.description,
    external_url: file ? null : video.external_url,
    file_url: file?.download_url ?? null,
    file_expires_at: file?.expires_at ?? null,
    thumbnail_url: video.thumbnail ? imageAddresses(baseUrl, videoMediaId(resources.project_id), video.thumbnail).url : null,
  };
}

function shapeBrochure(resources: ProjectResourcesDoc, { baseUrl, deps, evaluation }: Shaping) {
  if (evaluation) throw new AccessRefused('EVALUATION_PREVIEW_ONLY');
  if (!resources.brochure) throw new DocumentUnavailable('This project has no brochure.');
  return documentLink(resources.brochure, 'brochure', baseUrl, deps.linkSigner, deps.clock());
}

/** A published project's related collections; an unpublished or out-of-scope project is the one 404. */
async function publishedResources(readStore: ReadStore, project: string, scope: CatalogueScope): Promise<ProjectResourcesDoc> {
  const doc = await getPublished<ProjectDoc>(readStore, PROJECTS, project);
  if (!projectInScope(scope, doc)) throw new NotFound();
  const resources = await readStore.get<ProjectResourcesDoc>(PROJECT_RESOURCES, doc.id);
  if (!resources) throw new Error(`Project ${doc.id} has no related-resources document.`);
  return resources;
}

interface SubResource {
  path: string;
  operationId: string;
  summary: string;
  scope: Scope;
  entitlement?: Entitlement;
  response: z.ZodType;
  errors?: QueryErrorKind[];
  shape(resources: ProjectResourcesDoc, shaping: Shaping): unknown;
}

const subResources: SubResource[] = [
  {
    path: 'floor-plans',
    operationId: 'listFloorPlans',
    summary: 'Floor plans of a project',
    scope: 'floorplans:read',
    entitlement: 'floorplans',
    response: z.array(floorPlanSchema),
    shape: shapeFloorPlans,
  },
  {
    path: 'payment-plans',
    operationId: 'listPaymentPlans',
    summary: 'Payment plans of a project',
    scope: 'paymentplans:read',
    response: z.array(paymentPlanSchema),
    shape: (resources) => resources.payment_plans,
  },
  {
    path: 'media',
    operationId: 'getProjectMedia',
    summary: 'Gallery pictures and master-plan document of a project',
    scope: 'media:read',
    entitlement: 'images',
    response: mediaSchema,
    shape: shapeMedia,
  },
  {
    path: 'video',
    operationId: 'getProjectVideo',
    summary: 'The project video',
    scope: 'media:read',
    entitlement: 'images',
    response: videoSchema,
    errors: ['videoNotAvailable', 'evaluationPreviewOnly'],
    shape: shapeVideo,
  },
  {
    path: 'amenities',
    operationId: 'listAmenities',
    summary: 'Amenities of a project',
    scope: 'amenities:read',
    response: z.array(amenitySchema),
    shape: (resources) => resources.amenities,
  },
  {
    path: 'nearby',
    operationId: 'listNearbyPlaces',
    summary: 'Places near a project',
    scope: 'nearby:read',
    response: z.array(nearbySchema),
    shape: (resources) => resources.nearby,
  },
  {
    path: 'payment-methods',
    operationId: 'listPaymentMethods',
    summary: 'Payment methods of a project',
    scope: 'paymentmethods:read',
    response: z.array(paymentMethodSchema),
    shape: (resources) => resources.payment_methods,
  },
  {
    path: 'faqs',
    operationId: 'listFaqs',
    summary: 'FAQs of a project',
    scope: 'faqs:read',
    response: z.array(faqSchema),
    shape: (resources) => resources.faqs,
  },
  {
    path: 'virtual-tours',
    operationId: 'listVirtualTours',
    summary: 'Virtual tours of a project',
    scope: 'virtualtours:read',
    entitlement: 'virtual_tours',
    response: z.array(virtualTourSchema),
    shape: (resources) => resources.virtual_tours,
  },
  {
    path: 'floor-plates',
    operationId: 'listFloorPlates',
    summary: 'Floor plates of a project',
    scope: 'floorplates:read',
    entitlement: 'floorplates',
    response: z.array(floorPlateSchema),
    shape: shapeFloorPlates,
  },
  {
    path: 'brochure',
    operationId: 'getProjectBrochure',
    summary: 'A short-lived signed download link of the project brochure',
    scope: 'brochures:read',
    entitlement: 'brochures',
    response: documentLinkSchema,
    errors: ['documentUnavailable', 'evaluationPreviewOnly'],
    shape: shapeBrochure,
  },
];

const subResourceRoutes: QueryRoute[] = subResources.map((subResource): QueryRoute<typeof projectParams, z.ZodObject> => ({
  path: `/projects/:project/${subResource.path}`,
  operationId: subResource.operationId,
  summary: subResource.summary,
  tag: 'Project resources',
  scopes: [subResource.scope],
  entitlements: subResource.entitlement ? [subResource.entitlement] : [],
  params: projectParams,
  query: z.object({}).strict(),
  response: subResource.response,
  errors: ['notFound', ...(subResource.errors ?? [])],
  async handle({ params, baseUrl, access }, deps) {
    const resources = await publishedResources(deps.readStore, params.project, await catalogueScopeOf(deps.readStore, access));
    return { data: subResource.shape(resources, { baseUrl, deps, evaluation: access.evaluation !== null }) };
  },
})) as QueryRoute[];

const relatedProjects: QueryRoute<typeof projectParams, z.ZodObject> = {
  path: '/projects/:project/related',
  operationId: 'listRelatedProjects',
  summary: 'Related projects (summary representation)',
  description: 'Related projects that are not accessible are left out.',
  tag: 'Project resources',
  scopes: ['projects:read'],
  entitlements: [],
  params: projectParams,
  query: z.object({}).strict(),
  response: z.array(projectSummarySchema),
  errors: ['notFound'],
  async handle({ params, baseUrl, access }, { readStore }) {
    const scope = await catalogueScopeOf(readStore, access);
    const resources = await publishedResources(readStore, params.project, scope);
    const related = (await readStore.getMany<ProjectDoc>(PROJECTS, resources.related_project_ids)).filter(
      (project) => project.published && projectInScope(scope, project),
    );
    const references = await projectReferences(readStore, related);
    return { data: serializedSummaries.array(related, references, { baseUrl, detailFields: access.detailFields }) };
  },
};

// The related-resource batch.

const MAX_BATCH_PROJECTS = 25;
/** One quota unit per 5 requested project-resource pairs, rounded up. */
const PAIRS_PER_UNIT = 5;

interface BatchResource {
  scopes: Scope[];
  entitlements: Entitlement[];
  response: z.ZodType;
  items(resources: ProjectResourcesDoc, shaping: Shaping): { items: unknown[]; master_plan_document?: unknown };
}

const batchResources = {
  media: { scopes: ['media:read'], entitlements: ['images'], response: mediaSchema, items: shapeMedia },
  floor_plans: {
    scopes: ['floorplans:read'],
    entitlements: ['floorplans'],
    response: z.object({ items: z.array(floorPlanSchema) }),
    items: (resources, shaping) => ({ items: shapeFloorPlans(resources, shaping) }),
  },
  amenities: {
    scopes: ['amenities:read'],
    entitlements: [],
    response: z.object({ items: z.array(amenitySchema) }),
    items: (resources) => ({ items: resources.amenities }),
  },
  payment_plans: {
    scopes: ['paymentplans:read'],
    entitlements: [],
    response: z.object({ items: z.array(paymentPlanSchema) }),
    items: (resources) => ({ items: resources.payment_plans }),
  },
  payment_methods: {
    scopes: ['paymentmethods:read'],
    entitlements: [],
    response: z.object({ items: z.array(paymentMethodSchema) }),
    items: (resources) => ({ items: resources.payment_methods }),
  },
} satisfies Record<string, BatchResource>;

type BatchResourceName = keyof typeof batchResources;
const BATCH_RESOURCE_NAMES = Object.keys(batchResources) as [BatchResourceName, ...BatchResourceName[]];

/** What a key needs to be given `names`: the scopes and entitlements of each. */
const grantsOf = (names: readonly BatchResourceName[]): Grants => ({
  scopes: [...new Set(names.flatMap((name) => batchResources[name].scopes as Scope[]))],
  entitlements: [...new Set(names.flatMap((name) => batchResources[name].entitlements as Entitlement[]))],
});

const includeParameter = z
  .string()
  .transform((value, context) => {
    const names = value.split(',').map((name) => name.trim().replaceAll('-', '_'));
    const unknown = names.filter((name) => !(BATCH_RESOURCE_NAMES as string[]).includes(name));
    if (unknown.length > 0) {
      context.addIssue({
        code: 'custom',
        message: `unknown resource ${unknown.map((name) => JSON.stringify(name)).join(', ')}; use ${BATCH_RESOURCE_NAMES.join(', ')}`,
      });
      return z.NEVER;
    }
    if (new Set(names).size !== names.length) {
      context.addIssue({ code: 'custom', message: 'resources must be unique (hyphenated and underscored forms are the same resource)' });
      return z.NEVER;
    }
    return names as BatchResourceName[];
  })
  .meta({
    description:
      `Comma-separated unique subset of ${BATCH_RESOURCE_NAMES.join(', ')}; hyphenated forms (floor-plans) are accepted. ` +
      'A name and its hyphenated form are the same resource: both in one list is refused (422), which the schema cannot say.',
    // The OpenAPI document describes what the text parses into: a list of these names.
    override: {
      type: 'array',
      items: { type: 'string', enum: [...new Set(BATCH_RESOURCE_NAMES.flatMap((name) => [name, name.replaceAll('_', '-')]))] },
      minItems: 1,
      maxItems: BATCH_RESOURCE_NAMES.length,
    },
  });

const resourcesQuery = z
  .object({
    ids: idListParameter(MAX_BATCH_PROJECTS, `Comma-separated unique project ids, at most ${MAX_BATCH_PROJECTS}.`),
    include: includeParameter,
  })
  .strict();

const batchItemSchema = z
  .object({
    project_id: z.number().int(),
    resources: z.object(Object.fromEntries(BATCH_RESOURCE_NAMES.map((name) => [name, batchResources[name].response.optional()]))),
  })
  .meta({ id: 'RelatedResourceBatchItem' });

const projectResourcesBatch: QueryRoute<z.ZodObject, typeof resourcesQuery> = {
  path: '/projects/resources',
  operationId: 'getProjectResourcesBatch',
  summary: 'Related collections of up to 25 projects in one call',
  description:
    'The key needs the scope and entitlement of every requested resource, otherwise the whole request is refused with 403 naming ' +
    'missing_scopes and missing_entitlements. Inaccessible or unpublished ids are omitted and listed in meta.omitted_project_ids. Cost: one ' +
    'quota unit per 5 requested project-resource pairs, rounded up (meta.quota_units, X-Quota-Units).',
  tag: 'Project resources',
  scopes: [],
  entitlements: [],
  queryGrants: { of: (query) => grantsOf(query.include), possible: grantsOf(BATCH_RESOURCE_NAMES) },
  params: z.object({}).strict(),
  query: resourcesQuery,
  response: z.array(batchItemSchema),
  meta: z.object({
    representation: z.literal('related_resources'),
    requested_project_count: z.number().int(),
    returned_project_count: z.number().int(),
    omitted_project_ids: z.array(z.number().int()),
    included_resources: z.array(z.enum(BATCH_RESOURCE_NAMES)),
    quota_units: z.number().int(),
  }),
  errors: [],
  weighted: true,
  async handle({ query, baseUrl, access }, deps) {
    const { readStore } = deps;
    const scope = await catalogueScopeOf(readStore, access);
    const published = new Set(
      (await readStore.getMany<ProjectDoc>(PROJECTS, query.ids))
        .filter((project) => project.published && projectInScope(scope, project))
        .map((project) => project.id),
    );
    const returned = query.ids.filter((id) => published.has(id));
    const resourcesById = new Map(
      (await readStore.getMany<ProjectResourcesDoc>(PROJECT_RESOURCES, returned)).map((resources) => [resources.project_id, resources]),
    );
    const quotaUnits = Math.ceil((query.ids.length * query.include.length) / PAIRS_PER_UNIT);
    const shaping: Shaping = { baseUrl, deps, evaluation: access.evaluation !== null };
    return {
      data: returned.flatMap((projectId) => {
        const resources = resourcesById.get(projectId);
        if (!resources) return [];
        return [
          {
            project_id: projectId,
            resources: Object.fromEntries(query.include.map((name) => [name, batchResources[name].items(resources, shaping)])),
          },
        ];
      }),
      meta: {
        representation: 'related_resources',
        requested_project_count: query.ids.length,
        returned_project_count: returned.length,
        omitted_project_ids: query.ids.filter((id) => !published.has(id)),
        included_resources: query.include,
        quota_units: quotaUnits,
      },
      quotaUnits,
    };
  },
};

/** `/projects/resources` must precede `/projects/:project` (see src/http/app.ts). */
export const projectResourcesBatchRoutes: QueryRoute[] = [projectResourcesBatch as QueryRoute];
export const projectSubResourceRoutes: QueryRoute[] = [...subResourceRoutes, relatedProjects as QueryRoute];
