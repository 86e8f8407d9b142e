import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { activeProject, pdfDocumentSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const attachBrochureSchema = pdfDocumentSchema;

export type AttachBrochure = z.infer<typeof attachBrochureSchema>;

/** Replaces any brochure attached before; attaching the same file again emits nothing. */
export function decide(command: AttachBrochure, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (isDeepStrictEqual(project.brochure, command)) return [];
  return [{ type: 'BrochureAttached', data: { project_id: meta.id, brochure: command, at: meta.now } }];
}
