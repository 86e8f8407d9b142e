import type { z } from 'zod';
import { changedFields, hasChanges, requireSomeField } from '../../src/catalogue/changes.js';
import {
  activeProject,
  projectFieldsSchema,
  requireUniqueIds,
  type Project,
  type ProjectEvent,
  type ProjectFields,
} from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** Any core field except status, published and deleted, which have their own commands. */
export const reviseProjectSchema = projectFieldsSchema.partial().strict();

export type ReviseProject = z.infer<typeof reviseProjectSchema>;

/** The event carries only the fields that really change; repeating the current values emits nothing. */
export function decide(command: ReviseProject, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  requireSomeField(command);
  if (command.unit_type_ids) requireUniqueIds(command.unit_type_ids, 'body.unit_type_ids');
  const changes = changedFields<ProjectFields>(project, command);
  if (!hasChanges(changes)) return [];
  return [{ type: 'ProjectRevised', data: { project_id: meta.id, changes, at: meta.now } }];
}
