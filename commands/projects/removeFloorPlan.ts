import { z } from 'zod';
import { activeProject, existingItem, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const removeFloorPlanSchema = z.object({ floor_plan_id: z.number().int().positive() }).strict();

export type RemoveFloorPlan = z.infer<typeof removeFloorPlanSchema>;

export function decide(command: RemoveFloorPlan, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  existingItem(project.floor_plans, command.floor_plan_id, 'Floor plan');
  return [{ type: 'FloorPlanRemoved', data: { project_id: meta.id, floor_plan_id: command.floor_plan_id, at: meta.now } }];
}
