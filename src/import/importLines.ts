import { z } from 'zod';
import * as createCommunity from '../../commands/communities/createCommunity.js';
import * as createDeveloper from '../../commands/developers/createDeveloper.js';
import * as addFloorPlan from '../../commands/projects/addFloorPlan.js';
import * as addGalleryPicture from '../../commands/projects/addGalleryPicture.js';
import * as addPaymentPlan from '../../commands/projects/addPaymentPlan.js';
import * as attachBrochure from '../../commands/projects/attachBrochure.js';
import * as attachMasterPlanDocument from '../../commands/projects/attachMasterPlanDocument.js';
import * as createProject from '../../commands/projects/createProject.js';
import * as setAmenities from '../../commands/projects/setAmenities.js';
import * as setFaqs from '../../commands/projects/setFaqs.js';
import * as setFloorPlates from '../../commands/projects/setFloorPlates.js';
import * as setNearbyPlaces from '../../commands/projects/setNearbyPlaces.js';
import * as setPaymentMethods from '../../commands/projects/setPaymentMethods.js';
import * as setVideo from '../../commands/projects/setVideo.js';
import * as setVirtualTours from '../../commands/projects/setVirtualTours.js';
import * as createState from '../../commands/states/createState.js';
import * as createSubCommunity from '../../commands/subCommunities/createSubCommunity.js';
import * as createUnitType from '../../commands/unitTypes/createUnitType.js';

/*
 * One line of an import file is one record: `{ "type", "key", "data" }`. `data` is the body of the record's
 * create command, parsed by that command's own schema, except that the records it names are named by their
 * import keys (`developer`, `state`, `community`, `sub_community`, `unit_types`, `unit_type`, `project`,
 * `related_projects`) instead of by ids, and that it also states what other commands set: `published`, and
 * for a project its lists (amenities, FAQs, ...), video and documents. A line states the whole record: fields
 * it leaves out take the create command's defaults, also when it revises a record imported before.
 */

/** An external key: the identity of a record across imports, unique per record type. */
export const importKeySchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
  .meta({ description: 'The record’s external key, unique per type; a later import with the same key revises the record.' });

const published = z.boolean().default(false).meta({ description: 'Visible to API clients; false unless given.' });

const stateData = createState.createStateSchema.extend({ published }).strict();

const communityData = createCommunity.createCommunitySchema.omit({ state_id: true }).extend({ state: importKeySchema, published }).strict();

const subCommunityData = createSubCommunity.createSubCommunitySchema
  .omit({ community_id: true })
  .extend({ community: importKeySchema, published })
  .strict();

const developerData = createDeveloper.createDeveloperSchema.extend({ published }).strict();

const unitTypeData = createUnitType.createUnitTypeSchema;

const projectData = createProject.createProjectSchema
  .omit({ developer_id: true, state_id: true, community_id: true, sub_community_id: true, unit_type_ids: true })
  .extend({
    developer: importKeySchema,
    state: importKeySchema,
    community: importKeySchema,
    sub_community: importKeySchema.nullable().default(null),
    unit_types: z.array(importKeySchema).max(50).default([]),
    published,
    amenities: setAmenities.setAmenitiesSchema.shape.items.default([]),
    nearby_places: setNearbyPlaces.setNearbyPlacesSchema.shape.items.default([]),
    payment_methods: setPaymentMethods.setPaymentMethodsSchema.shape.items.default([]),
    faqs: setFaqs.setFaqsSchema.shape.items.default([]),
    virtual_tours: setVirtualTours.setVirtualToursSchema.shape.items.default([]),
    floor_plates: setFloorPlates.setFloorPlatesSchema.shape.items.default([]),
    related_projects: z
      .array(importKeySchema)
      .max(50)
      .default([])
      .meta({ description: 'Keys of projects of earlier lines or earlier imports.' }),
    video: setVideo.setVideoSchema.nullable().default(null),
    brochure: attachBrochure.attachBrochureSchema.nullable().default(null),
    master_plan_document: attachMasterPlanDocument.attachMasterPlanDocumentSchema.nullable().default(null),
  })
  .strict();

const floorPlanData = addFloorPlan.addFloorPlanSchema
  .omit({ unit_type_id: true })
  .extend({ project: importKeySchema, unit_type: importKeySchema.nullable().default(null) })
  .strict();

const paymentPlanData = addPaymentPlan.addPaymentPlanSchema.extend({ project: importKeySchema }).strict();

const galleryPictureData = addGalleryPicture.addGalleryPictureSchema.extend({ project: importKeySchema }).strict();

const line = <Type extends string, Data extends z.ZodType>(type: Type, data: Data) =>
  z.object({ type: z.literal(type), key: importKeySchema, data }).strict();

export const importLineSchema = z.discriminatedUnion(
  'type',
  [
    line('state', stateData),
    line('community', communityData),
    line('sub_community', subCommunityData),
    line('developer', developerData),
    line('unit_type', unitTypeData),
    line('project', projectData),
    line('floor_plan', floorPlanData),
    line('payment_plan', paymentPlanData),
    line('gallery_picture', galleryPictureData),
  ],
  {
    error: 'must be one of state, community, sub_community, developer, unit_type, project, floor_plan, payment_plan, gallery_picture',
  },
);

export type ImportLine = z.infer<typeof importLineSchema>;
export type ImportRecordType = ImportLine['type'];
export type ImportLineOf<Type extends ImportRecordType> = Extract<ImportLine, { type: Type }>;

export const importRecordTypes = importLineSchema.options.map((option) => option.shape.type.value);

/**
 * `details.fields` of a refused line, keyed by the path inside the line (`data.slug`,
 * `data.amenities.2.name`, `type`); an unknown field is named with `is not a known field`, as the admin API does.
 */
export function lineIssueFields(issues: readonly z.core.$ZodIssue[]): Record<string, string> {
  const fields: Record<string, string> = {};
  const add = (path: readonly PropertyKey[], message: string) => {
    const key = path.length === 0 ? 'line' : path.map(String).join('.');
    fields[key] = fields[key] === undefined ? message : `${fields[key]}; ${message}`;
  };
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key], 'is not a known field');
    } else {
      add(issue.path, issue.message);
    }
  }
  return fields;
}
