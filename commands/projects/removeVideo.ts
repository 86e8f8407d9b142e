import { z } from 'zod';
import { activeProject, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const removeVideoSchema = z.object({}).strict();

export type RemoveVideo = z.infer<typeof removeVideoSchema>;

/** Removing a video that is not there leaves nothing to do, so a repeated request is safe. */
export function decide(_command: RemoveVideo, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (!project.video) return [];
  return [{ type: 'VideoRemoved', data: { project_id: meta.id, at: meta.now } }];
}
