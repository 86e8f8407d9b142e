import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { activeProject, floorPlateSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** The whole list, in display order; an empty list clears it. */
export const setFloorPlatesSchema = z.object({ items: z.array(floorPlateSchema).max(200) }).strict();

export type SetFloorPlates = z.infer<typeof setFloorPlatesSchema>;

/** Replaces the project's floor plates; sending the current list again emits nothing. */
export function decide(command: SetFloorPlates, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (isDeepStrictEqual(project.floor_plates, command.items)) return [];
  return [{ type: 'FloorPlatesSet', data: { project_id: meta.id, items: command.items, at: meta.now } }];
}
