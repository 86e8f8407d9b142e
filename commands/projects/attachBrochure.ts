import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { activeProject, pdfDocumentSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, projectFiles, storedFileProblems } from '../../src/catalogue/storedFiles.js';

export const attachBrochureSchema = pdfDocumentSchema;

export type AttachBrochure = z.infer<typeof attachBrochureSchema>;

const files = (command: AttachBrochure, state: Project | null) => fileClaims({ body: command }, projectFiles(state));

/** The brochure's stored file, unless it is a legacy document on another host (see src/catalogue/storedFiles.ts). */
export function references(command: AttachBrochure, state: Project | null): CatalogueLookup {
  return { storedFiles: claimedKeys(files(command, state)) };
}

/**
 * Replaces any brochure attached before; attaching the same file again emits nothing. A stored PDF must be a stored file with the
 * facts given.
 */
export function decide(
  command: AttachBrochure,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  throwIfAnyProblem(storedFileProblems(files(command, state), meta.references.storedFiles));
  if (isDeepStrictEqual(project.brochure, command)) return [];
  return [{ type: 'BrochureAttached', data: { project_id: meta.id, brochure: command, at: meta.now } }];
}
