import { z } from 'zod';
import { assertNever, type Aggregate, type CommandMeta } from '../domain/decider.js';
import { ApiError, NotFound, ValidationFailed } from '../domain/errors.js';
import type { DomainEvent } from '../eventStore/eventStore.js';
import { imageRefSchema, locationSchema, type ImageRef } from './imageRef.js';
import { mapEmbedHtmlSchema, servedMapEmbed } from './mapEmbed.js';
import { slugSchema } from './slug.js';
import { longText, SINGLE_LINE_PATTERN, SINGLE_LINE_PROBLEM, singleLineText } from './text.js';

// Values. The zod schemas are the one definition of each shape: commands parse with them, the types
// below are inferred from them, and the admin responses document them.

const idSchema = z.number().int().positive();

export const projectNatures = ['off_plan', 'ready'] as const;
export type ProjectNature = (typeof projectNatures)[number];

export const projectStatuses = ['upcoming', 'under_construction', 'completed', 'sold_out'] as const;
export type ProjectStatus = (typeof projectStatuses)[number];

/** Stored as given (a number or a text such as "1,200 - 1,500"); the read side rounds keeping the type. */
export const areaSchema = z
  .union([z.number().nonnegative(), singleLineText(100, { min: 1 })])
  .nullable()
  .meta({ description: 'Area as given: a number, a text, or null.' });

export const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code in capitals')
  .meta({ description: 'ISO 4217 currency code.', example: 'AED' });

/** Core fields an editor sets on create and may revise later (status, published and deleted have their own commands). */
export const projectFieldsSchema = z
  .object({
    name: singleLineText(200, { min: 1 }),
    slug: slugSchema,
    developer_id: idSchema,
    state_id: idSchema,
    community_id: idSchema,
    sub_community_id: idSchema.nullable(),
    nature: z.enum(projectNatures),
    unit_type_ids: z.array(idSchema).max(50),
    starting_from: z.number().nonnegative().nullable(),
    currency: currencySchema,
    location: locationSchema.nullable(),
    map_embed_html: mapEmbedHtmlSchema.nullable(),
    area_from: areaSchema,
    area_to: areaSchema,
    completion_date: z.iso.date().nullable(),
    overview: longText(20_000),
    description: longText(50_000),
    master_plan: longText(20_000),
    property_no: singleLineText(100),
    license_no: singleLineText(100),
    project_types: z.array(singleLineText(100, { min: 1 })).max(20),
    video_description: longText(5_000),
    down_payment_percent: z.number().min(0).max(100).nullable(),
    service_charges: singleLineText(500).nullable(),
  })
  .strict();
export type ProjectFields = z.infer<typeof projectFieldsSchema>;

export const floorPlanFieldsSchema = z
  .object({
    title: singleLineText(200, { min: 1 }),
    unit_type_id: idSchema.nullable(),
    area: areaSchema,
    price: z.number().nonnegative().nullable(),
  })
  .strict();
export type FloorPlanFields = z.infer<typeof floorPlanFieldsSchema>;
export type FloorPlan = { floor_plan_id: number } & FloorPlanFields & { image: ImageRef };

export const milestoneSchema = z
  .object({
    label: singleLineText(200, { min: 1 }),
    percent: z.number().gt(0).max(100),
    due: singleLineText(200, { min: 1 }).nullable().meta({ description: 'When it falls due, as text (e.g. "On handover").' }),
  })
  .strict();
export type Milestone = z.infer<typeof milestoneSchema>;

export const paymentPlanFieldsSchema = z
  .object({
    name: singleLineText(200, { min: 1 }),
    milestones: z.array(milestoneSchema).min(1).max(50).meta({ description: 'Percents sum to 100.' }),
  })
  .strict();
export type PaymentPlanFields = z.infer<typeof paymentPlanFieldsSchema>;
export type PaymentPlan = { payment_plan_id: number } & PaymentPlanFields;

export const galleryPictureFieldsSchema = z
  .object({
    caption: singleLineText(500).nullable(),
    position: z.number().int().nonnegative(),
  })
  .strict();
export type GalleryPictureFields = z.infer<typeof galleryPictureFieldsSchema>;
/** `media_id` is the id in the picture's public image addresses. */
export type GalleryPicture = { media_id: number } & GalleryPictureFields & { image: ImageRef };

const storedFileFields = {
  key: singleLineText(200, { min: 1 }).meta({ description: 'Content-derived key of the stored file.' }),
  file_name: singleLineText(255, { min: 1 }),
  size_bytes: z.number().int().positive(),
};

const webUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2_000)
  .regex(SINGLE_LINE_PATTERN, SINGLE_LINE_PROBLEM);

const storedPdfSchema = z
  .object({ ...storedFileFields, content_type: z.literal('application/pdf') })
  .strict()
  .meta({ id: 'StoredPdfDocument', description: 'A PDF file the service stores.' });

/**
 * A legacy document kept on another host: the service has no bytes, so its signed link answers 302 to
 * `external_url` (spec: Signed document links).
 */
const externalDocumentSchema = z
  .object({ external_url: webUrlSchema, file_name: storedFileFields.file_name })
  .strict()
  .meta({ id: 'ExternalDocument', description: 'A legacy document on another host; its signed link redirects (302) to external_url.' });
type ExternalDocument = z.infer<typeof externalDocumentSchema>;

/** Events recorded before external documents existed hold the stored shape, which stays valid. */
export const pdfDocumentSchema = z
  .union([storedPdfSchema, externalDocumentSchema], {
    error: 'must be a stored PDF (key, file_name, size_bytes, content_type) or an external document (external_url, file_name)',
  })
  .meta({ id: 'PdfDocument', description: 'A stored PDF file, or a legacy document on another host.' });
export type PdfDocument = z.infer<typeof pdfDocumentSchema>;

export const videoFileSchema = z
  .object({ ...storedFileFields, content_type: z.enum(['video/mp4', 'video/webm', 'video/quicktime']) })
  .strict();
export type VideoFile = z.infer<typeof videoFileSchema>;

export const videoSchema = z
  .object({
    title: singleLineText(200, { min: 1 }),
    description: longText(5_000).nullable(),
    external_url: webUrlSchema.nullable(),
    file: videoFileSchema.nullable(),
    thumbnail: imageRefSchema.nullable(),
  })
  .strict();
export type Video = z.infer<typeof videoSchema>;

export const amenitySchema = z.object({ name: singleLineText(200, { min: 1 }), icon: singleLineText(100, { min: 1 }).nullable() }).strict();
export type Amenity = z.infer<typeof amenitySchema>;

export const nearbyPlaceSchema = z
  .object({
    name: singleLineText(200, { min: 1 }),
    category: singleLineText(100, { min: 1 }),
    distance_km: z.number().nonnegative(),
  })
  .strict();
export type NearbyPlace = z.infer<typeof nearbyPlaceSchema>;

export const paymentMethodSchema = z.object({ name: singleLineText(200, { min: 1 }), description: longText(2_000).nullable() }).strict();
export type PaymentMethod = z.infer<typeof paymentMethodSchema>;

export const faqSchema = z
  .object({ question: singleLineText(1_000, { min: 1 }), answer: longText(10_000, { min: 1, trim: true }) })
  .strict();
export type Faq = z.infer<typeof faqSchema>;

export const virtualTourSchema = z.object({ title: singleLineText(200, { min: 1 }), url: webUrlSchema }).strict();
export type VirtualTour = z.infer<typeof virtualTourSchema>;

export const floorPlateSchema = z
  .object({
    title: singleLineText(200, { min: 1 }),
    floors: singleLineText(100, { min: 1 }).nullable().meta({ description: 'Floors the plate applies to, e.g. "5-12".' }),
    image: imageRefSchema.nullable(),
  })
  .strict();
export type FloorPlate = z.infer<typeof floorPlateSchema>;

// Events. Every payload carries project_id and at (the command's time), so projections need nothing else.

type Stamped<Data> = { project_id: number } & Data & { at: string };

export type ProjectEvent =
  | DomainEvent<'ProjectCreated', Stamped<ProjectFields & { status: ProjectStatus }>>
  | DomainEvent<'ProjectRevised', Stamped<{ changes: Partial<ProjectFields> }>>
  | DomainEvent<'ProjectPublished', Stamped<object>>
  | DomainEvent<'ProjectUnpublished', Stamped<object>>
  | DomainEvent<'ProjectStatusChanged', Stamped<{ status: ProjectStatus; previous_status: ProjectStatus }>>
  | DomainEvent<'ProjectDeleted', Stamped<object>>
  | DomainEvent<'FloorPlanAdded', Stamped<{ floor_plan: FloorPlan }>>
  | DomainEvent<'FloorPlanRevised', Stamped<{ floor_plan_id: number; changes: Partial<FloorPlanFields> }>>
  | DomainEvent<'FloorPlanImageReplaced', Stamped<{ floor_plan_id: number; image: ImageRef }>>
  | DomainEvent<'FloorPlanRemoved', Stamped<{ floor_plan_id: number }>>
  | DomainEvent<'PaymentPlanAdded', Stamped<{ payment_plan: PaymentPlan }>>
  | DomainEvent<'PaymentPlanRevised', Stamped<{ payment_plan_id: number; changes: Partial<PaymentPlanFields> }>>
  | DomainEvent<'PaymentPlanRemoved', Stamped<{ payment_plan_id: number }>>
  | DomainEvent<'GalleryPictureAdded', Stamped<{ picture: GalleryPicture }>>
  | DomainEvent<'GalleryPictureRevised', Stamped<{ media_id: number; changes: Partial<GalleryPictureFields> }>>
  | DomainEvent<'GalleryPictureReplaced', Stamped<{ media_id: number; image: ImageRef }>>
  | DomainEvent<'GalleryPictureRemoved', Stamped<{ media_id: number }>>
  | DomainEvent<'MasterPlanDocumentAttached', Stamped<{ document: PdfDocument }>>
  | DomainEvent<'MasterPlanDocumentRemoved', Stamped<object>>
  | DomainEvent<'VideoSet', Stamped<{ video: Video }>>
  | DomainEvent<'VideoRemoved', Stamped<object>>
  | DomainEvent<'AmenitiesSet', Stamped<{ items: Amenity[] }>>
  | DomainEvent<'NearbyPlacesSet', Stamped<{ items: NearbyPlace[] }>>
  | DomainEvent<'PaymentMethodsSet', Stamped<{ items: PaymentMethod[] }>>
  | DomainEvent<'FaqsSet', Stamped<{ items: Faq[] }>>
  | DomainEvent<'VirtualToursSet', Stamped<{ items: VirtualTour[] }>>
  | DomainEvent<'FloorPlatesSet', Stamped<{ items: FloorPlate[] }>>
  | DomainEvent<'RelatedProjectsSet', Stamped<{ project_ids: number[] }>>
  | DomainEvent<'BrochureAttached', Stamped<{ brochure: PdfDocument }>>
  | DomainEvent<'BrochureRemoved', Stamped<object>>;

export type ProjectEventType = ProjectEvent['type'];
export type ProjectEventOf<Type extends ProjectEventType> = Extract<ProjectEvent, { type: Type }>;

/**
 * What the change feed does with each project event (spec, change feed rules): the project's own edits
 * are reported and move its updated_at; edits of payment plans, gallery, floor plans, amenities and FAQs
 * are reported without moving updated_at; image-only changes and edits of the other collections are not
 * reported. A Record, so a new event type cannot be added without deciding this.
 */
export const changeFeedTreatment = {
  ProjectCreated: 'own_edit',
  ProjectRevised: 'own_edit',
  ProjectPublished: 'own_edit',
  ProjectUnpublished: 'own_edit',
  ProjectStatusChanged: 'own_edit',
  ProjectDeleted: 'own_edit',
  FloorPlanAdded: 'related_edit',
  FloorPlanRevised: 'related_edit',
  FloorPlanImageReplaced: 'not_reported',
  FloorPlanRemoved: 'related_edit',
  PaymentPlanAdded: 'related_edit',
  PaymentPlanRevised: 'related_edit',
  PaymentPlanRemoved: 'related_edit',
  GalleryPictureAdded: 'related_edit',
  GalleryPictureRevised: 'related_edit',
  GalleryPictureReplaced: 'not_reported',
  GalleryPictureRemoved: 'related_edit',
  MasterPlanDocumentAttached: 'not_reported',
  MasterPlanDocumentRemoved: 'not_reported',
  VideoSet: 'not_reported',
  VideoRemoved: 'not_reported',
  AmenitiesSet: 'related_edit',
  NearbyPlacesSet: 'not_reported',
  PaymentMethodsSet: 'not_reported',
  FaqsSet: 'related_edit',
  VirtualToursSet: 'not_reported',
  FloorPlatesSet: 'not_reported',
  RelatedProjectsSet: 'not_reported',
  BrochureAttached: 'not_reported',
  BrochureRemoved: 'not_reported',
} as const satisfies Record<ProjectEventType, 'own_edit' | 'related_edit' | 'not_reported'>;

type ChangeFeedTreatment = typeof changeFeedTreatment;
type TypesTreatedAs<Treatment> = {
  [Type in ProjectEventType]: ChangeFeedTreatment[Type] extends Treatment ? Type : never;
}[ProjectEventType];

function typesTreatedAs<Treatment extends ChangeFeedTreatment[ProjectEventType]>(
  treatment: Treatment,
): readonly TypesTreatedAs<Treatment>[] {
  return (Object.keys(changeFeedTreatment) as ProjectEventType[]).filter(
    (type): type is TypesTreatedAs<Treatment> => changeFeedTreatment[type] === treatment,
  );
}

export const projectEventTypes: readonly ProjectEventType[] = Object.keys(changeFeedTreatment) as ProjectEventType[];
/** Reported by the change feed and moving the project's own updated_at. */
export const projectOwnEditEventTypes = typesTreatedAs('own_edit');
/** Reported by the change feed without moving the project's updated_at. */
export const changeFeedRelatedEventTypes = typesTreatedAs('related_edit');
/** Never reported by the change feed (image-only changes, other collections). */
export const changeFeedSilentEventTypes = typesTreatedAs('not_reported');

// State.

/** The write-side project: core fields plus every related collection. null before ProjectCreated. */
export type Project = { id: number } & ProjectFields & {
    status: ProjectStatus;
    published: boolean;
    deleted: boolean;
    created_at: string;
    /** Last own edit (core events only), as the change feed defines it. */
    updated_at: string;
    floor_plans: Record<number, FloorPlan>;
    payment_plans: Record<number, PaymentPlan>;
    gallery: Record<number, GalleryPicture>;
    master_plan_document: PdfDocument | null;
    video: Video | null;
    amenities: Amenity[];
    nearby_places: NearbyPlace[];
    payment_methods: PaymentMethod[];
    faqs: Faq[];
    virtual_tours: VirtualTour[];
    floor_plates: FloorPlate[];
    brochure: PdfDocument | null;
    related_project_ids: number[];
  };

export const projectStream = (id: number): string => `project-${id}`;

export function evolveProject(project: Project | null, event: ProjectEvent): Project | null {
  if (event.type === 'ProjectCreated') {
    const { project_id, at, ...fields } = event.data;
    return {
      id: project_id,
      ...fields,
      map_embed_html: servedMapEmbed(fields.map_embed_html),
      published: false,
      deleted: false,
      created_at: at,
      updated_at: at,
      floor_plans: {},
      payment_plans: {},
      gallery: {},
      master_plan_document: null,
      video: null,
      amenities: [],
      nearby_places: [],
      payment_methods: [],
      faqs: [],
      virtual_tours: [],
      floor_plates: [],
      brochure: null,
      related_project_ids: [],
    };
  }
  return project && evolveExisting(project, event);
}

function evolveExisting(project: Project, event: Exclude<ProjectEvent, { type: 'ProjectCreated' }>): Project {
  const { data } = event;
  switch (event.type) {
    case 'ProjectRevised': {
      const { changes } = event.data;
      // The log holds embeds from before they were checked: each is kept in canonical form or not at all.
      const embed = changes.map_embed_html === undefined ? {} : { map_embed_html: servedMapEmbed(changes.map_embed_html) };
      return { ...project, ...changes, ...embed, updated_at: data.at };
    }
    case 'ProjectPublished':
      return { ...project, published: true, updated_at: data.at };
    case 'ProjectUnpublished':
      return { ...project, published: false, updated_at: data.at };
    case 'ProjectStatusChanged':
      return { ...project, status: event.data.status, updated_at: data.at };
    case 'ProjectDeleted':
      return { ...project, deleted: true, published: false, updated_at: data.at };
    case 'FloorPlanAdded': {
      const { floor_plan } = event.data;
      return { ...project, floor_plans: { ...project.floor_plans, [floor_plan.floor_plan_id]: floor_plan } };
    }
    case 'FloorPlanRevised': {
      const { floor_plan_id, changes } = event.data;
      return { ...project, floor_plans: updated(project.floor_plans, floor_plan_id, changes) };
    }
    case 'FloorPlanImageReplaced': {
      const { floor_plan_id, image } = event.data;
      return { ...project, floor_plans: updated(project.floor_plans, floor_plan_id, { image }) };
    }
    case 'FloorPlanRemoved':
      return { ...project, floor_plans: without(project.floor_plans, event.data.floor_plan_id) };
    case 'PaymentPlanAdded': {
      const { payment_plan } = event.data;
      return { ...project, payment_plans: { ...project.payment_plans, [payment_plan.payment_plan_id]: payment_plan } };
    }
    case 'PaymentPlanRevised': {
      const { payment_plan_id, changes } = event.data;
      return { ...project, payment_plans: updated(project.payment_plans, payment_plan_id, changes) };
    }
    case 'PaymentPlanRemoved':
      return { ...project, payment_plans: without(project.payment_plans, event.data.payment_plan_id) };
    case 'GalleryPictureAdded': {
      const { picture } = event.data;
      return { ...project, gallery: { ...project.gallery, [picture.media_id]: picture } };
    }
    case 'GalleryPictureRevised': {
      const { media_id, changes } = event.data;
      return { ...project, gallery: updated(project.gallery, media_id, changes) };
    }
    case 'GalleryPictureReplaced': {
      const { media_id, image } = event.data;
      return { ...project, gallery: updated(project.gallery, media_id, { image }) };
    }
    case 'GalleryPictureRemoved':
      return { ...project, gallery: without(project.gallery, event.data.media_id) };
    case 'MasterPlanDocumentAttached':
      return { ...project, master_plan_document: event.data.document };
    case 'MasterPlanDocumentRemoved':
      return { ...project, master_plan_document: null };
    case 'VideoSet':
      return { ...project, video: event.data.video };
    case 'VideoRemoved':
      return { ...project, video: null };
    case 'AmenitiesSet':
      return { ...project, amenities: event.data.items };
    case 'NearbyPlacesSet':
      return { ...project, nearby_places: event.data.items };
    case 'PaymentMethodsSet':
      return { ...project, payment_methods: event.data.items };
    case 'FaqsSet':
      return { ...project, faqs: event.data.items };
    case 'VirtualToursSet':
      return { ...project, virtual_tours: event.data.items };
    case 'FloorPlatesSet':
      return { ...project, floor_plates: event.data.items };
    case 'RelatedProjectsSet':
      return { ...project, related_project_ids: event.data.project_ids };
    case 'BrochureAttached':
      return { ...project, brochure: event.data.brochure };
    case 'BrochureRemoved':
      return { ...project, brochure: null };
    default:
      return assertNever(event);
  }
}

function updated<Item>(items: Record<number, Item>, id: number, changes: Partial<NoInfer<Item>>): Record<number, Item> {
  const item = items[id];
  return item ? { ...items, [id]: { ...item, ...changes } } : items;
}

function without<Item>(items: Record<number, Item>, id: number): Record<number, Item> {
  return Object.fromEntries(Object.entries(items).filter(([key]) => Number(key) !== id));
}

export const projectAggregate: Aggregate<Project | null, ProjectEvent> = {
  category: 'project',
  streamName: projectStream,
  initialState: () => null,
  evolve: evolveProject,
  slug: { resourceType: 'project', of: (project) => project?.slug },
};

// Decider helpers shared by the commands in commands/projects.

/** The project a command may act on: it exists (404) and is not deleted (409 PROJECT_DELETED). */
export function activeProject(project: Project | null, projectId: number): Project {
  if (!project) throw new NotFound(`Project ${projectId} does not exist.`);
  if (project.deleted) {
    throw new ApiError(409, 'PROJECT_DELETED', `Project ${projectId} is deleted and accepts no further changes.`);
  }
  return project;
}

/** An item of one of the project's collections by id, or 404 naming it. */
export function existingItem<Item>(items: Record<number, Item>, id: number, description: string): Item {
  const item = items[id];
  if (!item) throw new NotFound(`${description} ${id} does not exist in this project.`);
  return item;
}

/** The id the command handler allocated for `purpose`; its absence is a wiring mistake, not a client error. */
export function allocatedId(meta: CommandMeta, purpose: 'floorPlan' | 'paymentPlan' | 'media'): number {
  const id = meta.allocatedIds?.[purpose];
  if (id === undefined) throw new Error(`No id was allocated for ${purpose}.`);
  return id;
}

/** A list of ids names each id once; `field` is the request field reported (e.g. `body.unit_type_ids`). */
export function requireUniqueIds(ids: readonly number[], field: string): void {
  const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
  if (repeated.length > 0) throw new ValidationFailed({ [field]: `names ${[...new Set(repeated)].join(', ')} more than once` });
}

/** A payment plan's milestones share out the whole price. */
export function requireMilestonesSumTo100(milestones: readonly Milestone[]): void {
  const total = milestones.reduce((sum, milestone) => sum + milestone.percent, 0);
  // Percents such as 33.33 + 33.33 + 33.34 do not add up exactly in binary floating point.
  if (Math.abs(total - 100) > 1e-6) {
    throw new ValidationFailed({ 'body.milestones': `percents must sum to 100; they sum to ${Math.round(total * 1e6) / 1e6}` });
  }
}
