import { z } from 'zod';
import type { Community, CommunityEvent } from '../../src/catalogue/community.js';
import { imageRefSchema, locationSchema } from '../../src/catalogue/imageRef.js';
import { slugSchema } from '../../src/catalogue/slug.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, storedFileProblems } from '../../src/catalogue/storedFiles.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';
import { longText, singleLineText } from '../../src/catalogue/text.js';

export const createCommunitySchema = z
  .object({
    state_id: z.number().int().positive().meta({ description: 'The state the community lies in; must exist.' }),
    name: singleLineText(200, { min: 1 }),
    slug: slugSchema,
    description: longText(20_000).default(''),
    banner: imageRefSchema.nullable().default(null),
    location: locationSchema.nullable().default(null),
  })
  .strict();

export type CreateCommunity = z.infer<typeof createCommunitySchema>;

const files = (command: CreateCommunity) => fileClaims({ 'body.banner': command.banner });

/** The community's state, and its banner's stored file if any. */
export function references(command: CreateCommunity): CatalogueLookup {
  return { states: command.state_id === undefined ? [] : [command.state_id], storedFiles: claimedKeys(files(command)) };
}

/** A state the command names must exist; that is checked before anything else. */
function requireState(command: CreateCommunity, facts: CatalogueFacts): void {
  if (command.state_id !== undefined && !facts.states.has(command.state_id)) throwIfAnyProblem({ 'body.state_id': 'no such state' });
}

/** A banner must be a stored file with the facts given. */
export function decide(
  command: CreateCommunity,
  community: Community | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): CommunityEvent[] {
  requireState(command, meta.references);
  if (community) throw new Conflict(`Community ${meta.id} already exists.`);
  throwIfAnyProblem(storedFileProblems(files(command), meta.references.storedFiles));
  return [{ type: 'CommunityCreated', data: { community_id: meta.id, ...command, at: meta.now } }];
}
