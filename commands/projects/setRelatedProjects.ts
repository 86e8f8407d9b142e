import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { activeProject, requireUniqueIds, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import { missingInList, throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { ValidationFailed } from '../../src/domain/errors.js';

/** The whole list, in display order; an empty list clears it. */
export const setRelatedProjectsSchema = z.object({ project_ids: z.array(z.number().int().positive()).max(50) }).strict();

export type SetRelatedProjects = z.infer<typeof setRelatedProjectsSchema>;

export function references(command: SetRelatedProjects): CatalogueLookup {
  return { projects: command.project_ids };
}

/** Every related project must be in the catalogue: a deleted project has left it, so it cannot be related to. */
export function decide(
  command: SetRelatedProjects,
  state: Project | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  throwIfAnyProblem(missingInList(command.project_ids, meta.references.projects, 'body.project_ids', 'project'));
  requireUniqueIds(command.project_ids, 'body.project_ids');
  if (command.project_ids.includes(meta.id)) {
    throw new ValidationFailed({ 'body.project_ids': 'a project cannot be related to itself' });
  }
  if (isDeepStrictEqual(project.related_project_ids, command.project_ids)) return [];
  return [{ type: 'RelatedProjectsSet', data: { project_id: meta.id, project_ids: command.project_ids, at: meta.now } }];
}
