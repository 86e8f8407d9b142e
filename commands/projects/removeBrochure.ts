import { z } from 'zod';
import { activeProject, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const removeBrochureSchema = z.object({}).strict();

export type RemoveBrochure = z.infer<typeof removeBrochureSchema>;

/** Removing a brochure that is not there leaves nothing to do, so a repeated request is safe. */
export function decide(_command: RemoveBrochure, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (!project.brochure) return [];
  return [{ type: 'BrochureRemoved', data: { project_id: meta.id, at: meta.now } }];
}
