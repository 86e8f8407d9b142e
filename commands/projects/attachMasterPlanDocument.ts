import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { activeProject, pdfDocumentSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, projectFiles, storedFileProblems } from '../../src/catalogue/storedFiles.js';

export const attachMasterPlanDocumentSchema = pdfDocumentSchema;

export type AttachMasterPlanDocument = z.infer<typeof attachMasterPlanDocumentSchema>;

const files = (command: AttachMasterPlanDocument, state: Project | null) => fileClaims({ body: command }, projectFiles(state));

/** The document's stored file, unless it is a legacy document on another host (see src/catalogue/storedFiles.ts). */
export function references(command: AttachMasterPlanDocument, state: Project | null): CatalogueLookup {
  return { storedFiles: claimedKeys(files(command, state)) };
}

/**
 * Replaces any document attached before; attaching the same file again emits nothing. A stored PDF must be a stored file with the
 * facts given.
 */
export function decide(
  command: AttachMasterPlanDocument,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  throwIfAnyProblem(storedFileProblems(files(command, state), meta.references.storedFiles));
  if (isDeepStrictEqual(project.master_plan_document, command)) return [];
  return [{ type: 'MasterPlanDocumentAttached', data: { project_id: meta.id, document: command, at: meta.now } }];
}
