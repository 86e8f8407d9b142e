import { z } from 'zod';
import { activeProject, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const publishProjectSchema = z.object({}).strict();

export type PublishProject = z.infer<typeof publishProjectSchema>;

/** Publishing a published project changes nothing, so a repeated request is safe and emits nothing. */
export function decide(_command: PublishProject, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (project.published) return [];
  return [{ type: 'ProjectPublished', data: { project_id: meta.id, at: meta.now } }];
}
