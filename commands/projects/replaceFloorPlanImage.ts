import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { activeProject, existingItem, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const replaceFloorPlanImageSchema = z.object({ floor_plan_id: z.number().int().positive(), image: imageRefSchema }).strict();

export type ReplaceFloorPlanImage = z.infer<typeof replaceFloorPlanImageSchema>;

/** An image-only change: kept apart from reviseFloorPlan because the change feed does not report it. */
export function decide(command: ReplaceFloorPlanImage, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  const floorPlan = existingItem(project.floor_plans, command.floor_plan_id, 'Floor plan');
  if (isDeepStrictEqual(floorPlan.image, command.image)) return [];
  return [
    {
      type: 'FloorPlanImageReplaced',
      data: { project_id: meta.id, floor_plan_id: command.floor_plan_id, image: command.image, at: meta.now },
    },
  ];
}
