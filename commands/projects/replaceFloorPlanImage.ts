import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { activeProject, existingItem, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, projectFiles, storedFileProblems } from '../../src/catalogue/storedFiles.js';

export const replaceFloorPlanImageSchema = z.object({ floor_plan_id: z.number().int().positive(), image: imageRefSchema }).strict();

export type ReplaceFloorPlanImage = z.infer<typeof replaceFloorPlanImageSchema>;

const files = (command: ReplaceFloorPlanImage, state: Project | null) => fileClaims({ 'body.image': command.image }, projectFiles(state));

/** The new picture's stored file (see src/catalogue/storedFiles.ts). */
export function references(command: ReplaceFloorPlanImage, state: Project | null): CatalogueLookup {
  return { storedFiles: claimedKeys(files(command, state)) };
}

/**
 * An image-only change: kept apart from reviseFloorPlan because the change feed does not report it. The
 * new picture must be a stored file with the facts given.
 */
export function decide(
  command: ReplaceFloorPlanImage,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  const floorPlan = existingItem(project.floor_plans, command.floor_plan_id, 'Floor plan');
  throwIfAnyProblem(storedFileProblems(files(command, state), meta.references.storedFiles));
  if (isDeepStrictEqual(floorPlan.image, command.image)) return [];
  return [
    {
      type: 'FloorPlanImageReplaced',
      data: { project_id: meta.id, floor_plan_id: command.floor_plan_id, image: command.image, at: meta.now },
    },
  ];
}
