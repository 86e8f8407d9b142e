import { z } from 'zod';
import { projectFieldsSchema, projectStatuses, requireUniqueIds, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import {
  missingInList,
  placeLookup,
  placeProblems,
  throwIfAnyProblem,
  type CatalogueFacts,
  type CatalogueLookup,
} from '../../src/catalogue/catalogueReferences.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';

const fields = projectFieldsSchema.shape;

/** Name, slug, the place (developer, state, community) and nature are required; the rest starts empty. */
export const createProjectSchema = projectFieldsSchema
  .extend({
    sub_community_id: fields.sub_community_id.default(null),
    status: z.enum(projectStatuses).default('upcoming'),
    unit_type_ids: fields.unit_type_ids.default([]),
    starting_from: fields.starting_from.default(null),
    currency: fields.currency.default('AED'),
    location: fields.location.default(null),
    map_embed_html: fields.map_embed_html.default(null),
    area_from: fields.area_from.default(null),
    area_to: fields.area_to.default(null),
    completion_date: fields.completion_date.default(null),
    overview: fields.overview.default(''),
    description: fields.description.default(''),
    master_plan: fields.master_plan.default(''),
    property_no: fields.property_no.default(''),
    license_no: fields.license_no.default(''),
    project_types: fields.project_types.default([]),
    video_description: fields.video_description.default(''),
    down_payment_percent: fields.down_payment_percent.default(null),
    service_charges: fields.service_charges.default(null),
  })
  .strict();

export type CreateProject = z.infer<typeof createProjectSchema>;

/** The developer, the place and the unit types the project names. */
export function references(command: CreateProject): CatalogueLookup {
  return { ...placeLookup(command), developers: [command.developer_id], unitTypes: command.unit_type_ids };
}

/** Every reference must exist and the place hang together; all their problems come in one 422. */
export function decide(
  command: CreateProject,
  project: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  if (project) throw new Conflict(`Project ${meta.id} already exists.`);
  const facts = meta.references;
  throwIfAnyProblem({
    ...(facts.developers.has(command.developer_id) ? {} : { 'body.developer_id': `developer ${command.developer_id} does not exist` }),
    ...placeProblems(command, facts),
    ...missingInList(command.unit_type_ids, facts.unitTypes, 'body.unit_type_ids', 'unit type'),
  });
  requireUniqueIds(command.unit_type_ids, 'body.unit_type_ids');
  return [{ type: 'ProjectCreated', data: { project_id: meta.id, ...command, at: meta.now } }];
}
