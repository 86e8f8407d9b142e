import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { activeProject, nearbyPlaceSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** The whole list, in display order; an empty list clears it. */
export const setNearbyPlacesSchema = z.object({ items: z.array(nearbyPlaceSchema).max(200) }).strict();

export type SetNearbyPlaces = z.infer<typeof setNearbyPlacesSchema>;

/** Replaces the project's nearby places; sending the current list again emits nothing. */
export function decide(command: SetNearbyPlaces, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (isDeepStrictEqual(project.nearby_places, command.items)) return [];
  return [{ type: 'NearbyPlacesSet', data: { project_id: meta.id, items: command.items, at: meta.now } }];
}
