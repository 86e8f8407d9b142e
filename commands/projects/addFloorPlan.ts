import type { z } from 'zod';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { activeProject, allocatedId, floorPlanFieldsSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import {
  throwIfAnyProblem,
  type CatalogueFacts,
  type CatalogueLookup,
  type ReferenceProblems,
} from '../../src/catalogue/catalogueReferences.js';
import type { CommandMeta } from '../../src/domain/decider.js';

const fields = floorPlanFieldsSchema.shape;

export const addFloorPlanSchema = floorPlanFieldsSchema
  .extend({
    unit_type_id: fields.unit_type_id.default(null),
    area: fields.area.default(null),
    price: fields.price.default(null),
    image: imageRefSchema,
  })
  .strict();

export type AddFloorPlan = z.infer<typeof addFloorPlanSchema>;

/** The unit type the floor plan names, if any. */
export function references(command: AddFloorPlan): CatalogueLookup {
  return { unitTypes: command.unit_type_id === undefined || command.unit_type_id === null ? [] : [command.unit_type_id] };
}

function unitTypeProblems(command: AddFloorPlan, facts: CatalogueFacts): ReferenceProblems {
  const id = command.unit_type_id;
  if (id === undefined || id === null || facts.unitTypes.has(id)) return {};
  return { 'body.unit_type_id': `unit type ${id} does not exist` };
}

/** The named unit type must exist. The floor plan's id is allocated by the service (meta.allocatedIds.floorPlan). */
export function decide(
  command: AddFloorPlan,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  activeProject(state, meta.id);
  throwIfAnyProblem(unitTypeProblems(command, meta.references));
  const floorPlanId = allocatedId(meta, 'floorPlan');
  return [{ type: 'FloorPlanAdded', data: { project_id: meta.id, floor_plan: { floor_plan_id: floorPlanId, ...command }, at: meta.now } }];
}
