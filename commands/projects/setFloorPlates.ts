import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { activeProject, floorPlateSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, projectFiles, storedFileProblems } from '../../src/catalogue/storedFiles.js';

/** The whole list, in display order; an empty list clears it. */
export const setFloorPlatesSchema = z.object({ items: z.array(floorPlateSchema).max(200) }).strict();

export type SetFloorPlates = z.infer<typeof setFloorPlatesSchema>;

const files = (command: SetFloorPlates, state: Project | null) =>
  fileClaims(Object.fromEntries(command.items.map((plate, index) => [`body.items.${index}.image`, plate.image])), projectFiles(state));

/** The plates' pictures (see src/catalogue/storedFiles.ts). */
export function references(command: SetFloorPlates, state: Project | null): CatalogueLookup {
  return { storedFiles: claimedKeys(files(command, state)) };
}

/**
 * Replaces the project's floor plates; sending the current list again emits nothing. A picture the project
 * does not record yet must be a stored file with the facts given.
 */
export function decide(
  command: SetFloorPlates,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  throwIfAnyProblem(storedFileProblems(files(command, state), meta.references.storedFiles));
  if (isDeepStrictEqual(project.floor_plates, command.items)) return [];
  return [{ type: 'FloorPlatesSet', data: { project_id: meta.id, items: command.items, at: meta.now } }];
}
