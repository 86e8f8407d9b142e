import { z } from 'zod';
import { slugSchema } from '../../src/catalogue/slug.js';
import type { SubCommunity, SubCommunityEvent } from '../../src/catalogue/subCommunity.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';
import { longText, singleLineText } from '../../src/catalogue/text.js';

export const createSubCommunitySchema = z
  .object({
    community_id: z
      .number()
      .int()
      .positive()
      .meta({ description: "The community it belongs to; must exist. Its state is that community's state." }),
    name: singleLineText(200, { min: 1 }),
    slug: slugSchema,
    description: longText(20_000).default(''),
  })
  .strict();

export type CreateSubCommunity = z.infer<typeof createSubCommunitySchema>;

/** The community the command places the sub-community in, if any. */
export function references(command: CreateSubCommunity): CatalogueLookup {
  return { communities: command.community_id === undefined ? [] : [command.community_id] };
}

/** A community the command names must exist; that is checked before anything else. */
function requireCommunity(command: CreateSubCommunity, facts: CatalogueFacts): void {
  if (command.community_id !== undefined && !facts.communities.has(command.community_id)) {
    throwIfAnyProblem({ 'body.community_id': 'no such community' });
  }
}

export function decide(
  command: CreateSubCommunity,
  subCommunity: SubCommunity | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): SubCommunityEvent[] {
  requireCommunity(command, meta.references);
  if (subCommunity) throw new Conflict(`Sub-community ${meta.id} already exists.`);
  return [{ type: 'SubCommunityCreated', data: { sub_community_id: meta.id, ...command, at: meta.now } }];
}
