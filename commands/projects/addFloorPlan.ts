import type { z } from 'zod';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { activeProject, allocatedId, floorPlanFieldsSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import {
  throwIfAnyProblem,
  type CatalogueFacts,
  type CatalogueLookup,
  type ReferenceProblems,
} from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, projectFiles, storedFileProblems } from '../../src/catalogue/storedFiles.js';
import type { CommandMeta } from '../../src/domain/decider.js';

const fields = floorPlanFieldsSchema.shape;

export const addFloorPlanSchema = floorPlanFieldsSchema
  .extend({
    unit_type_id: fields.unit_type_id.default(null),
    area: fields.area.default(null),
    price: fields.price.default(null),
    image: imageRefSchema,
  })
  .strict();

export type AddFloorPlan = z.infer<typeof addFloorPlanSchema>;

const files = (command: AddFloorPlan, state: Project | null) => fileClaims({ 'body.image': command.image }, projectFiles(state));

/** The unit type the floor plan names, if any, and its picture's stored file. */
export function references(command: AddFloorPlan, state: Project | null): CatalogueLookup {
  return {
    unitTypes: command.unit_type_id === undefined || command.unit_type_id === null ? [] : [command.unit_type_id],
    storedFiles: claimedKeys(files(command, state)),
  };
}

function unitTypeProblems(command: AddFloorPlan, facts: CatalogueFacts): ReferenceProblems {
  const id = command.unit_type_id;
  if (id === undefined || id === null || facts.unitTypes.has(id)) return {};
  return { 'body.unit_type_id': `unit type ${id} does not exist` };
}

/**
 * The named unit type must exist, and the picture be a stored file with the facts given. The floor plan's
 * id is allocated by the service (meta.allocatedIds.floorPlan).
 */
export function decide(
  command: AddFloorPlan,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  activeProject(state, meta.id);
  throwIfAnyProblem({
    ...unitTypeProblems(command, meta.references),
    ...storedFileProblems(files(command, state), meta.references.storedFiles),
  });
  const floorPlanId = allocatedId(meta, 'floorPlan');
  return [{ type: 'FloorPlanAdded', data: { project_id: meta.id, floor_plan: { floor_plan_id: floorPlanId, ...command }, at: meta.now } }];
}
