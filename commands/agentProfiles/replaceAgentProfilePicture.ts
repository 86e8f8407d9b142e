import { z } from 'zod';
import type { AccessFacts, AccessLookup } from '../../src/access/accessReferences.js';
import { liveAgentProfile, withReview, type AgentProfile, type AgentProfileEvent } from '../../src/access/agentProfile.js';
import { throwIfAnyProblem } from '../../src/catalogue/catalogueReferences.js';
import { imageRefSchema } from '../../src/catalogue/imageRef.js';
import { claimedKeys, fileClaims, storedFileProblems } from '../../src/catalogue/storedFiles.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { pictureChange } from './reviseAgentProfile.js';

export const replaceAgentProfilePictureSchema = z.object({ picture: imageRefSchema }).strict();

export type ReplaceAgentProfilePicture = z.infer<typeof replaceAgentProfilePictureSchema>;

const files = (command: ReplaceAgentProfilePicture, profile: AgentProfile | null) =>
  fileClaims({ 'body.picture': command.picture }, [profile?.picture]);

/** The new picture's stored file (see src/catalogue/storedFiles.ts). */
export function references(command: ReplaceAgentProfilePicture, profile: AgentProfile | null): AccessLookup {
  return { catalogue: { storedFiles: claimedKeys(files(command, profile)) } };
}

/**
 * The picture gets a new content key, so a new address; the media id stays, so an address stored before
 * leads to the new picture. The same picture again changes nothing; a new one sends an approved profile back to review.
 */
export function decide(
  command: ReplaceAgentProfilePicture,
  state: AgentProfile | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): AgentProfileEvent[] {
  const profile = liveAgentProfile(state, meta.id);
  throwIfAnyProblem(storedFileProblems(files(command, profile), meta.references.catalogue.storedFiles));
  return withReview(profile, meta.id, pictureChange(profile, command.picture, meta), meta.now);
}
