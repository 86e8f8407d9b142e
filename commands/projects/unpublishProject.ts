import { z } from 'zod';
import { activeProject, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const unpublishProjectSchema = z.object({}).strict();

export type UnpublishProject = z.infer<typeof unpublishProjectSchema>;

/** Unpublishing an unpublished project changes nothing, so a repeated request is safe and emits nothing. */
export function decide(_command: UnpublishProject, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (!project.published) return [];
  return [{ type: 'ProjectUnpublished', data: { project_id: meta.id, at: meta.now } }];
}
