import { z } from 'zod';
import { changedFields, hasChanges, requireSomeField, revisionDescription } from '../../src/catalogue/changes.js';
import { slugSchema } from '../../src/catalogue/slug.js';
import type { SubCommunity, SubCommunityEvent } from '../../src/catalogue/subCommunity.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';
import { longText, singleLineText } from '../../src/catalogue/text.js';

export const reviseSubCommunitySchema = z
  .object({
    community_id: z.number().int().positive().meta({ description: 'Moves the sub-community to another existing community.' }),
    name: singleLineText(200, { min: 1 }),
    slug: slugSchema,
    description: longText(20_000),
  })
  .partial()
  .strict()
  .meta({ description: revisionDescription });

export type ReviseSubCommunity = z.infer<typeof reviseSubCommunitySchema>;

/** The community the command places the sub-community in, if any. */
export function references(command: ReviseSubCommunity): CatalogueLookup {
  return { communities: command.community_id === undefined ? [] : [command.community_id] };
}

/** A community the command names must exist; that is checked before anything else. */
function requireCommunity(command: ReviseSubCommunity, facts: CatalogueFacts): void {
  if (command.community_id !== undefined && !facts.communities.has(command.community_id)) {
    throwIfAnyProblem({ 'body.community_id': 'no such community' });
  }
}

export function decide(
  command: ReviseSubCommunity,
  subCommunity: SubCommunity | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): SubCommunityEvent[] {
  requireCommunity(command, meta.references);
  if (!subCommunity) throw new NotFound(`Sub-community ${meta.id} does not exist.`);
  requireSomeField(command);
  const changes = changedFields(subCommunity, command);
  if (!hasChanges(changes)) return [];
  return [{ type: 'SubCommunityRevised', data: { sub_community_id: meta.id, changes, at: meta.now } }];
}
