import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { AccessFacts, AccessLookup } from '../../src/access/accessReferences.js';
import { liveAgentProfile, withReview, type AgentProfile, type AgentProfileEvent } from '../../src/access/agentProfile.js';
import { throwIfAnyProblem } from '../../src/catalogue/catalogueReferences.js';
import { changedFields, hasChanges, requireSomeField, revisionDescription } from '../../src/catalogue/changes.js';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { claimedKeys, fileClaims, storedFileProblems } from '../../src/catalogue/storedFiles.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { agentNameSchema, companyNameSchema, emailSchema, phoneSchema } from './createAgentProfile.js';

/** Every field is optional; null clears whatsapp or picture. */
export const reviseAgentProfileSchema = z
  .object({
    agent_name: agentNameSchema,
    company_name: companyNameSchema,
    email: emailSchema,
    phone: phoneSchema,
    whatsapp: phoneSchema.nullable(),
    picture: imageRefSchema.nullable(),
  })
  .partial()
  .strict()
  .meta({ description: `${revisionDescription} An edit that changes an approved profile sends it back to review (status submitted).` });

export type ReviseAgentProfile = z.infer<typeof reviseAgentProfileSchema>;

const files = (command: ReviseAgentProfile, profile: AgentProfile | null) =>
  fileClaims({ 'body.picture': command.picture }, [profile?.picture]);

/** A new picture's stored file (see src/catalogue/storedFiles.ts). */
export function references(command: ReviseAgentProfile, profile: AgentProfile | null): AccessLookup {
  return { catalogue: { storedFiles: claimedKeys(files(command, profile)) } };
}

/**
 * Text changes are one AgentProfileRevised, a new or removed picture its own event (the media read model
 * follows those alone); a change to an approved profile sends it back to review.
 */
export function decide(
  command: ReviseAgentProfile,
  state: AgentProfile | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): AgentProfileEvent[] {
  const profile = liveAgentProfile(state, meta.id);
  requireSomeField(command);
  throwIfAnyProblem(storedFileProblems(files(command, profile), meta.references.catalogue.storedFiles));
  const { picture, ...fields } = command;
  const changes = changedFields(profile, fields);
  const edits: AgentProfileEvent[] = [];
  if (hasChanges(changes)) edits.push({ type: 'AgentProfileRevised', data: { agent_profile_id: meta.id, changes, at: meta.now } });
  if (picture !== undefined) edits.push(...pictureChange(profile, picture, meta));
  return withReview(profile, meta.id, edits, meta.now);
}

/** The picture's event, if it changes: replaced, or removed (null). */
export function pictureChange(
  profile: AgentProfile,
  picture: AgentProfile['picture'],
  meta: CommandMeta & { id: number },
): AgentProfileEvent[] {
  if (isDeepStrictEqual(picture, profile.picture)) return [];
  if (picture === null) return [{ type: 'AgentProfilePictureRemoved', data: { agent_profile_id: meta.id, at: meta.now } }];
  return [{ type: 'AgentProfilePictureReplaced', data: { agent_profile_id: meta.id, picture, at: meta.now } }];
}
