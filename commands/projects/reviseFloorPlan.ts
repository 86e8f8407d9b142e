import { z } from 'zod';
import { changedFields, hasChanges, requireSomeField } from '../../src/catalogue/changes.js';
import {
  activeProject,
  existingItem,
  floorPlanFieldsSchema,
  type FloorPlanFields,
  type Project,
  type ProjectEvent,
} from '../../src/catalogue/project.js';
import {
  throwIfAnyProblem,
  type CatalogueFacts,
  type CatalogueLookup,
  type ReferenceProblems,
} from '../../src/catalogue/catalogueReferences.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** Every field but the picture, which replaceFloorPlanImage changes (an image-only change). */
export const reviseFloorPlanSchema = floorPlanFieldsSchema.partial().extend({ floor_plan_id: z.number().int().positive() }).strict();

export type ReviseFloorPlan = z.infer<typeof reviseFloorPlanSchema>;

/** The unit type the floor plan names, if any. */
export function references(command: ReviseFloorPlan): CatalogueLookup {
  return { unitTypes: command.unit_type_id === undefined || command.unit_type_id === null ? [] : [command.unit_type_id] };
}

function unitTypeProblems(command: ReviseFloorPlan, facts: CatalogueFacts): ReferenceProblems {
  const id = command.unit_type_id;
  if (id === undefined || id === null || facts.unitTypes.has(id)) return {};
  return { 'body.unit_type_id': `unit type ${id} does not exist` };
}

/** A unit type the revision names must exist; that is checked before the floor plan is looked for. */
export function decide(
  command: ReviseFloorPlan,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  throwIfAnyProblem(unitTypeProblems(command, meta.references));
  const { floor_plan_id, ...requested } = command;
  const floorPlan = existingItem(project.floor_plans, floor_plan_id, 'Floor plan');
  requireSomeField(requested);
  const changes = changedFields<FloorPlanFields>(floorPlan, requested);
  if (!hasChanges(changes)) return [];
  return [{ type: 'FloorPlanRevised', data: { project_id: meta.id, floor_plan_id, changes, at: meta.now } }];
}
