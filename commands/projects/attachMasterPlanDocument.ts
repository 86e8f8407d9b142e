import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { activeProject, pdfDocumentSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const attachMasterPlanDocumentSchema = pdfDocumentSchema;

export type AttachMasterPlanDocument = z.infer<typeof attachMasterPlanDocumentSchema>;

/** Replaces any document attached before; attaching the same file again emits nothing. */
export function decide(command: AttachMasterPlanDocument, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (isDeepStrictEqual(project.master_plan_document, command)) return [];
  return [{ type: 'MasterPlanDocumentAttached', data: { project_id: meta.id, document: command, at: meta.now } }];
}
