import { z } from 'zod';
import { changedFields, hasChanges, requireSomeField, revisionDescription } from '../../src/catalogue/changes.js';
import type { Community, CommunityEvent } from '../../src/catalogue/community.js';
import { imageRefSchema, locationSchema } from '../../src/catalogue/imageRef.js';
import { slugSchema } from '../../src/catalogue/slug.js';
import { throwIfAnyProblem, type CatalogueFacts, type CatalogueLookup } from '../../src/catalogue/catalogueReferences.js';
import { claimedKeys, fileClaims, storedFileProblems } from '../../src/catalogue/storedFiles.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';
import { longText, singleLineText } from '../../src/catalogue/text.js';

/** Every field is optional; null clears banner or location. */
export const reviseCommunitySchema = z
  .object({
    state_id: z.number().int().positive().meta({ description: 'Moves the community to another existing state.' }),
    name: singleLineText(200, { min: 1 }),
    slug: slugSchema,
    description: longText(20_000),
    banner: imageRefSchema.nullable(),
    location: locationSchema.nullable(),
  })
  .partial()
  .strict()
  .meta({ description: revisionDescription });

export type ReviseCommunity = z.infer<typeof reviseCommunitySchema>;

const files = (command: ReviseCommunity, community: Community | null) => fileClaims({ 'body.banner': command.banner }, [community?.banner]);

/** The state the command moves the community to, if any, and a new banner's stored file. */
export function references(command: ReviseCommunity, community: Community | null): CatalogueLookup {
  return { states: command.state_id === undefined ? [] : [command.state_id], storedFiles: claimedKeys(files(command, community)) };
}

/** A state the command names must exist; that is checked before anything else. */
function requireState(command: ReviseCommunity, facts: CatalogueFacts): void {
  if (command.state_id !== undefined && !facts.states.has(command.state_id)) throwIfAnyProblem({ 'body.state_id': 'no such state' });
}

/** A new banner must be a stored file with the facts given. */
export function decide(
  command: ReviseCommunity,
  community: Community | null,
  meta: CommandMeta & { id: number; references: CatalogueFacts },
): CommunityEvent[] {
  requireState(command, meta.references);
  if (!community) throw new NotFound(`Community ${meta.id} does not exist.`);
  requireSomeField(command);
  throwIfAnyProblem(storedFileProblems(files(command, community), meta.references.storedFiles));
  const changes = changedFields(community, command);
  if (!hasChanges(changes)) return [];
  return [{ type: 'CommunityRevised', data: { community_id: meta.id, changes, at: meta.now } }];
}
