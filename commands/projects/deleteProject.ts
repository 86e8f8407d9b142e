import { z } from 'zod';
import { activeProject, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const deleteProjectSchema = z.object({}).strict();

export type DeleteProject = z.infer<typeof deleteProjectSchema>;

/**
 * Soft delete: the stream stays (history, change feed, slug kept), the project leaves the catalogue and
 * refuses every further command.
 */
export function decide(_command: DeleteProject, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  activeProject(state, meta.id);
  return [{ type: 'ProjectDeleted', data: { project_id: meta.id, at: meta.now } }];
}
