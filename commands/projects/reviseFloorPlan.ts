import { z } from 'zod';
import { changedFields, hasChanges, requireSomeField } from '../../src/catalogue/changes.js';
import {
  activeProject,
  existingItem,
  floorPlanFieldsSchema,
  type FloorPlanFields,
  type Project,
  type ProjectEvent,
} from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** Every field but the picture, which replaceFloorPlanImage changes (an image-only change). */
export const reviseFloorPlanSchema = floorPlanFieldsSchema
  .partial()
  .extend({ floor_plan_id: z.number().int().positive() })
  .strict();

export type ReviseFloorPlan = z.infer<typeof reviseFloorPlanSchema>;

export function decide(command: ReviseFloorPlan, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  const { floor_plan_id, ...requested } = command;
  const floorPlan = existingItem(project.floor_plans, floor_plan_id, 'Floor plan');
  requireSomeField(requested);
  const changes = changedFields<FloorPlanFields>(floorPlan, requested);
  if (!hasChanges(changes)) return [];
  return [{ type: 'FloorPlanRevised', data: { project_id: meta.id, floor_plan_id, changes, at: meta.now } }];
}
