import { z } from 'zod';
import { activeProject, projectStatuses, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const changeProjectStatusSchema = z.object({ status: z.enum(projectStatuses) }).strict();

export type ChangeProjectStatus = z.infer<typeof changeProjectStatusSchema>;

/** Any status may follow any other (editors correct mistakes); setting the current status emits nothing. */
export function decide(command: ChangeProjectStatus, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (project.status === command.status) return [];
  return [
    {
      type: 'ProjectStatusChanged',
      data: { project_id: meta.id, status: command.status, previous_status: project.status, at: meta.now },
    },
  ];
}
