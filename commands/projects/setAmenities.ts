import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { activeProject, amenitySchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** The whole list, in display order; an empty list clears it. */
export const setAmenitiesSchema = z.object({ items: z.array(amenitySchema).max(200) }).strict();

export type SetAmenities = z.infer<typeof setAmenitiesSchema>;

/** Replaces the project's amenities; sending the current list again emits nothing. */
export function decide(command: SetAmenities, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (isDeepStrictEqual(project.amenities, command.items)) return [];
  return [{ type: 'AmenitiesSet', data: { project_id: meta.id, items: command.items, at: meta.now } }];
}
