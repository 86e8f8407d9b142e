import { z } from 'zod';
import { activeProject, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const removeMasterPlanDocumentSchema = z.object({}).strict();

export type RemoveMasterPlanDocument = z.infer<typeof removeMasterPlanDocumentSchema>;

/** Removing a document that is not there leaves nothing to do, so a repeated request is safe. */
export function decide(_command: RemoveMasterPlanDocument, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (!project.master_plan_document) return [];
  return [{ type: 'MasterPlanDocumentRemoved', data: { project_id: meta.id, at: meta.now } }];
}
