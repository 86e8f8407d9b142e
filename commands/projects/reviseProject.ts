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
import {
  missingInList,
  placeLookup,
  placeProblems,
  throwIfAnyProblem,
  type CatalogueFacts,
  type CatalogueLookup,
  type Place,
} from '../../src/catalogue/catalogueReferences.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** Any core field except status, published and deleted, which have their own commands. */
export const reviseProjectSchema = projectFieldsSchema.partial().strict();

export type ReviseProject = z.infer<typeof reviseProjectSchema>;

/** The place the project will have: a revision that moves any part of it is checked on the whole place. */
function placeAfter(command: ReviseProject, project: Project): Place | null {
  const movesPlace = command.state_id !== undefined || command.community_id !== undefined || command.sub_community_id !== undefined;
  if (!movesPlace) return null;
  return {
    state_id: command.state_id ?? project.state_id,
    community_id: command.community_id ?? project.community_id,
    sub_community_id: command.sub_community_id === undefined ? project.sub_community_id : command.sub_community_id,
  };
}

/** Only what the revision touches is looked up. */
export function references(command: ReviseProject, project: Project | null): CatalogueLookup {
  const place = project && placeAfter(command, project);
  return {
    ...(place ? placeLookup(place) : {}),
    developers: command.developer_id === undefined ? [] : [command.developer_id],
    unitTypes: command.unit_type_ids ?? [],
  };
}

/**
 * The references the revision touches must exist and a moved place hang together (all their problems in one
 * 422). The event carries only the fields that really change; repeating the current values emits nothing.
 */
export function decide(
  command: ReviseProject,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  const facts = meta.references;
  const place = placeAfter(command, project);
  throwIfAnyProblem({
    ...(command.developer_id === undefined || facts.developers.has(command.developer_id)
      ? {}
      : { 'body.developer_id': `developer ${command.developer_id} does not exist` }),
    ...(place ? placeProblems(place, facts) : {}),
    ...missingInList(command.unit_type_ids ?? [], facts.unitTypes, 'body.unit_type_ids', 'unit type'),
  });
  requireSomeField(command);
  if (command.unit_type_ids) requireUniqueIds(command.unit_type_ids, 'body.unit_type_ids');
  const changes = changedFields<ProjectFields>(project, command);
  if (!hasChanges(changes)) return [];
  return [{ type: 'ProjectRevised', data: { project_id: meta.id, changes, at: meta.now } }];
}
