import { hash } from 'node:crypto';
import type { DetailField } from '../src/access/accessContext.js';
import { z } from 'zod';
import type { ImageRef } from '../src/catalogue/imageRef.js';
import { MAP_EMBED_RULE } from '../src/catalogue/mapEmbed.js';
import { projectNatures, projectStatuses } from '../src/catalogue/project.js';
import { unitTypeKinds } from '../src/catalogue/unitType.js';
import type { ReadStore } from '../src/readStore/readStore.js';
import { SerializedJson, SerializedJsonArray } from './queryRoute.js';
import { COMMUNITIES, type CommunityDoc } from '../projections/communities.js';
import { DEVELOPERS, type DeveloperDoc } from '../projections/developers.js';
import { communityMediaId, developerMediaId } from '../projections/mediaAddresses.js';
import type { ProjectDoc } from '../projections/projects.js';
import { STATES, type StateDoc } from '../projections/states.js';
import { SUB_COMMUNITIES, type SubCommunityDoc } from '../projections/subCommunities.js';

// The /v1 representations: each zod schema documents a shape (OpenAPI) and types the function that builds
// it from a read-model document, so the two cannot drift apart.

const timestamp = z.iso.datetime();

export const imageSchema = z
  .object({
    url: z.string().meta({ description: 'WebP, at most 2560 px wide.' }),
    url_1600: z.string(),
    url_800: z.string(),
    url_400: z.string(),
    original_url: z.string().optional().meta({ description: 'The untouched master in its own format (when its format is known).' }),
  })
  .meta({
    id: 'Image',
    description:
      'Addresses served by the service: `{base_url}/media/{media_id}/{key}[-width].webp`. They never expire and change only when the picture changes.',
  });
export type Image = z.infer<typeof imageSchema>;

/** The extension of a picture's `-original` address: the file's own format. */
export const ORIGINAL_EXTENSIONS: Record<ImageRef['content_type'], string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
};

/**
 * `mediaId` is the gallery picture's media id; pictures outside the gallery are addressed by their owner
 * (`developer-7`, `community-3`, `floor-plan-12`, ...). The key is content-derived, so an address changes
 * exactly when the picture does.
 */
export function imageAddresses(
  baseUrl: string,
  mediaId: number | string,
  image: { key: string; content_type?: ImageRef['content_type'] },
): Image {
  const stem = `${baseUrl}/media/${mediaId}/${image.key}`;
  return {
    url: `${stem}.webp`,
    url_1600: `${stem}-1600.webp`,
    url_800: `${stem}-800.webp`,
    url_400: `${stem}-400.webp`,
    ...(image.content_type ? { original_url: `${stem}-original.${ORIGINAL_EXTENSIONS[image.content_type]}` } : {}),
  };
}

/** Evaluation Mode's media (Authentication rule 9): every address is the 400-pixel preview, and no original. */
export function previewImageAddresses(baseUrl: string, mediaId: number | string, image: { key: string }): Image {
  const preview = `${baseUrl}/media/${mediaId}/${image.key}-400.webp`;
  return { url: preview, url_1600: preview, url_800: preview, url_400: preview };
}

export const referenceSchema = z
  .object({ id: z.number().int(), name: z.string(), slug: z.string() })
  .meta({ id: 'Reference', description: 'A related developer, state, community or sub-community.' });
type Reference = z.infer<typeof referenceSchema>;

const reference = (doc: { id: number; name: string; slug: string } | undefined): Reference | null =>
  doc ? { id: doc.id, name: doc.name, slug: doc.slug } : null;

const locationSchema = z
  .object({ latitude: z.number().nullable(), longitude: z.number().nullable() })
  .meta({ id: 'Location', description: 'Both null when coordinates are not populated.' });

const areaSchema = z
  .union([z.number(), z.string()])
  .nullable()
  .meta({ description: 'Rounded to a whole number, keeping its type: a number stays a number, a text stays a text.' });

export const bedroomTypeSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    bedrooms: z.number().int().nullable().meta({ description: 'studio 0 (never 1), bedrooms its count, bedrooms_or_more 6, other null.' }),
    kind: z.enum(unitTypeKinds),
  })
  .meta({ id: 'BedroomType' });

export const bedroomRangeSchema = z
  .object({
    min: z.number().int(),
    max: z.number().int(),
    max_or_more: z.boolean(),
    label: z.string().meta({ description: 'Ready to print, e.g. "Studio – 3 Bedrooms", "1 – 6+ Bedrooms", "2 Bedrooms".' }),
  })
  .nullable()
  .meta({ id: 'BedroomRange', description: 'Null when the project has no residential bedroom data.' });

export const projectSummarySchema = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string(),
    developer: referenceSchema.nullable(),
    state: referenceSchema.nullable(),
    community: referenceSchema.nullable(),
    sub_community: referenceSchema.nullable(),
    nature: z.enum(projectNatures),
    status: z.enum(projectStatuses),
    starting_from: z.number().nullable(),
    currency: z.string(),
    bedrooms: z
      .array(z.string())
      .meta({ description: 'Unit-type ids (strings, not counts); resolved through unit_types in /catalog/metadata.' }),
    bedroom_types: z.array(bedroomTypeSchema),
    bedroom_range: bedroomRangeSchema,
    location: locationSchema,
    area_from: areaSchema,
    area_to: areaSchema,
    completion_date: z.iso.date().nullable(),
    cover_image: imageSchema.nullable(),
    media_count: z.number().int(),
    floor_plan_count: z.number().int(),
    payment_plan_count: z.number().int(),
    created_at: timestamp,
    updated_at: timestamp.meta({ description: "The project's own last edit; edits of its related collections do not move it." }),
  })
  .meta({ id: 'ProjectSummary' });
export type ProjectSummary = z.infer<typeof projectSummarySchema>;

const planField = <T extends z.ZodType>(schema: T) =>
  schema.nullable().meta({ description: "Null when the client's plan does not expose this field." });

export const projectDetailSchema = projectSummarySchema
  .extend({
    overview: planField(z.string()),
    description: planField(z.string()),
    master_plan: planField(z.string()),
    property_no: planField(z.string()),
    license_no: planField(z.string()),
    project_types: planField(z.array(z.string())),
    video_description: planField(z.string()),
    map_embed_html: z
      .string()
      .nullable()
      .meta({
        description:
          `Ready-to-render map embed, in the canonical form the service writes: ${MAP_EMBED_RULE}. ` +
          "null when none is configured, when the one stored is not of that form (stored before embeds were checked), or when the client's plan does not expose it.",
      }),
    down_payment_percent: z.number().nullable().meta({ description: "Null when unknown or the client's plan does not expose it." }),
    service_charges: z.string().nullable().meta({ description: "Null when unknown or the client's plan does not expose it." }),
  })
  .meta({
    id: 'ProjectDetail',
    description: "The detail representation. A client's plan may expose only some of the detail-only fields; the others are null.",
  });
export type ProjectDetail = z.infer<typeof projectDetailSchema>;

/** The developers, states, communities and sub-communities a page of projects names, fetched once per page. */
export interface ProjectReferences {
  developers: Map<number, DeveloperDoc>;
  states: Map<number, StateDoc>;
  communities: Map<number, CommunityDoc>;
  subCommunities: Map<number, SubCommunityDoc>;
}

export async function referencesById<T extends { id: number }>(
  readStore: ReadStore,
  collection: string,
  ids: Iterable<number>,
): Promise<Map<number, T>> {
  const docs = await readStore.getMany<T & { _id: number }>(collection, [...new Set(ids)]);
  return new Map(docs.map((doc) => [doc.id, doc]));
}

export async function projectReferences(readStore: ReadStore, projects: readonly ProjectDoc[]): Promise<ProjectReferences> {
  const [developers, states, communities, subCommunities] = await Promise.all([
    referencesById<DeveloperDoc>(
      readStore,
      DEVELOPERS,
      projects.map((project) => project.developer_id),
    ),
    referencesById<StateDoc>(
      readStore,
      STATES,
      projects.map((project) => project.state_id),
    ),
    referencesById<CommunityDoc>(
      readStore,
      COMMUNITIES,
      projects.map((project) => project.community_id),
    ),
    referencesById<SubCommunityDoc>(
      readStore,
      SUB_COMMUNITIES,
      projects.flatMap((project) => (project.sub_community_id === null ? [] : [project.sub_community_id])),
    ),
  ]);
  return { developers, states, communities, subCommunities };
}

/**
 * A project's representation depends only on its document, the documents it references and the base URL.
 * The embedded read store hands out the same frozen document object until the document changes, so the
 * serialised representation is kept per object, as UTF-8 bytes, and reused while those inputs are the same
 * objects: a request for a project or a page of projects then costs no building, serialising or encoding of
 * the unchanged ones. (MongoDB answers with new objects every time, so nothing is reused there, and nothing is wrong.)
 */
/** Who a representation is for: the base URL of its addresses and the detail fields the client's plan exposes (null = all). */
export interface Audience {
  baseUrl: string;
  detailFields: ReadonlySet<DetailField> | null;
}

class SerializedRepresentations {
  private readonly byDocument = new WeakMap<ProjectDoc, { inputs: readonly unknown[]; bytes: Buffer; digest: string }>();

  constructor(
    private readonly represent: (project: ProjectDoc, references: ProjectReferences, audience: Audience) => unknown,
    /** Summaries have no detail fields: every client shares their cached form. */
    private readonly showsDetailFields: boolean,
  ) {}

  one(project: ProjectDoc, references: ProjectReferences, audience: Audience): SerializedJson {
    const { bytes, digest } = this.entry(project, references, audience);
    return new SerializedJson(bytes, digest);
  }

  /** The JSON array of the projects' representations, in order. */
  array(projects: readonly ProjectDoc[], references: ProjectReferences, audience: Audience): SerializedJsonArray {
    const entries = projects.map((project) => this.entry(project, references, audience));
    return new SerializedJsonArray(
      entries.map((entry) => entry.bytes),
      `[${entries.map((entry) => entry.digest).join(',')}]`,
    );
  }

  private entry(project: ProjectDoc, references: ProjectReferences, audience: Audience): { bytes: Buffer; digest: string } {
    const inputs = [
      audience.baseUrl,
      // Compared by value: clients on plans with the same fields share the entry.
      this.showsDetailFields && audience.detailFields !== null ? [...audience.detailFields].join(',') : '*',
      references.developers.get(project.developer_id),
      references.states.get(project.state_id),
      references.communities.get(project.community_id),
      project.sub_community_id === null ? null : references.subCommunities.get(project.sub_community_id),
    ];
    const cached = this.byDocument.get(project);
    if (cached && cached.inputs.every((input, index) => input === inputs[index])) return cached;
    const bytes = Buffer.from(JSON.stringify(this.represent(project, references, audience)));
    const entry = { inputs, bytes, digest: hash('sha1', bytes, 'base64url') };
    this.byDocument.set(project, entry);
    return entry;
  }
}

export const serializedSummaries = new SerializedRepresentations(
  (project, references, { baseUrl }) => projectSummary(project, references, baseUrl),
  false,
);
export const serializedDetails = new SerializedRepresentations(projectDetail, true);

export function projectSummary(project: ProjectDoc, references: ProjectReferences, baseUrl: string): ProjectSummary {
  return {
    id: project.id,
    slug: project.slug,
    name: project.name,
    developer: reference(references.developers.get(project.developer_id)),
    state: reference(references.states.get(project.state_id)),
    community: reference(references.communities.get(project.community_id)),
    sub_community: project.sub_community_id === null ? null : reference(references.subCommunities.get(project.sub_community_id)),
    nature: project.nature,
    status: project.status,
    starting_from: project.starting_from,
    currency: project.currency,
    bedrooms: project.bedrooms,
    bedroom_types: project.bedroom_types,
    bedroom_range: project.bedroom_range,
    location: project.location,
    area_from: project.area_from,
    area_to: project.area_to,
    completion_date: project.completion_date,
    cover_image: project.cover_image ? imageAddresses(baseUrl, project.cover_image.media_id, project.cover_image) : null,
    media_count: project.media_count,
    floor_plan_count: project.floor_plan_count,
    payment_plan_count: project.payment_plan_count,
    created_at: project.created_at,
    updated_at: project.updated_at,
  };
}

export function projectDetail(project: ProjectDoc, references: ProjectReferences, { baseUrl, detailFields }: Audience): ProjectDetail {
  const shown = <T>(field: DetailField, value: T): T | null => (detailFields === null || detailFields.has(field) ? value : null);
  return {
    ...projectSummary(project, references, baseUrl),
    overview: shown('overview', project.overview),
    description: shown('description', project.description),
    master_plan: shown('master_plan', project.master_plan),
    property_no: shown('property_no', project.property_no),
    license_no: shown('license_no', project.license_no),
    project_types: shown('project_types', project.project_types),
    video_description: shown('video_description', project.video_description),
    map_embed_html: shown('map_embed_html', project.map_embed_html),
    down_payment_percent: shown('down_payment_percent', project.down_payment_percent),
    service_charges: shown('service_charges', project.service_charges),
  };
}

export const developerSchema = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    website: z.string().nullable(),
    logo: imageSchema.nullable(),
    established_year: z.number().int().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Developer' });

export function developerRepresentation(developer: DeveloperDoc, baseUrl: string): z.infer<typeof developerSchema> {
  return {
    id: developer.id,
    slug: developer.slug,
    name: developer.name,
    description: developer.description,
    website: developer.website,
    logo: developer.logo ? imageAddresses(baseUrl, developerMediaId(developer.id), developer.logo) : null,
    established_year: developer.established_year,
    created_at: developer.created_at,
    updated_at: developer.updated_at,
  };
}

export const stateSchema = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string(),
    country_code: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'State' });

export function stateRepresentation(state: StateDoc): z.infer<typeof stateSchema> {
  return {
    id: state.id,
    slug: state.slug,
    name: state.name,
    country_code: state.country_code,
    created_at: state.created_at,
    updated_at: state.updated_at,
  };
}

export const communitySchema = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    state: referenceSchema.nullable(),
    banner: imageSchema.nullable(),
    location: locationSchema,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Community' });

export function communityRepresentation(
  community: CommunityDoc,
  state: StateDoc | undefined,
  baseUrl: string,
): z.infer<typeof communitySchema> {
  return {
    id: community.id,
    slug: community.slug,
    name: community.name,
    description: community.description,
    state: reference(state),
    banner: community.banner ? imageAddresses(baseUrl, communityMediaId(community.id), community.banner) : null,
    location: community.location,
    created_at: community.created_at,
    updated_at: community.updated_at,
  };
}

export const subCommunitySchema = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    community: referenceSchema.nullable(),
    state: referenceSchema.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'SubCommunity' });

export function subCommunityRepresentation(
  subCommunity: SubCommunityDoc,
  community: CommunityDoc | undefined,
  state: StateDoc | undefined,
): z.infer<typeof subCommunitySchema> {
  return {
    id: subCommunity.id,
    slug: subCommunity.slug,
    name: subCommunity.name,
    description: subCommunity.description,
    community: reference(community),
    state: reference(state),
    created_at: subCommunity.created_at,
    updated_at: subCommunity.updated_at,
  };
}
