import type { z } from 'zod';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import {
  activeProject,
  allocatedId,
  floorPlanFieldsSchema,
  type Project,
  type ProjectEvent,
} from '../../src/catalogue/project.js';
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

/** The floor plan's id is allocated by the service (meta.allocatedIds.floorPlan). */
export function decide(command: AddFloorPlan, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  activeProject(state, meta.id);
  const floorPlanId = allocatedId(meta, 'floorPlan');
  return [{ type: 'FloorPlanAdded', data: { project_id: meta.id, floor_plan: { floor_plan_id: floorPlanId, ...command }, at: meta.now } }];
}
