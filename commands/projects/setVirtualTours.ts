import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { activeProject, virtualTourSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** The whole list, in display order; an empty list clears it. */
export const setVirtualToursSchema = z.object({ items: z.array(virtualTourSchema).max(50) }).strict();

export type SetVirtualTours = z.infer<typeof setVirtualToursSchema>;

/** Replaces the project's virtual tours; sending the current list again emits nothing. */
export function decide(command: SetVirtualTours, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (isDeepStrictEqual(project.virtual_tours, command.items)) return [];
  return [{ type: 'VirtualToursSet', data: { project_id: meta.id, items: command.items, at: meta.now } }];
}
