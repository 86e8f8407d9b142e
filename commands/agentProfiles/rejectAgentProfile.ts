import { z } from 'zod';
import { liveAgentProfile, requireAgentProfileStatus, type AgentProfile, type AgentProfileEvent } from '../../src/access/agentProfile.js';
import { longText } from '../../src/catalogue/text.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const rejectAgentProfileSchema = z
  .object({
    reason: longText(2000, { min: 1, trim: true }).meta({ description: 'What must change before the profile is approved.' }),
  })
  .strict();

export type RejectAgentProfile = z.infer<typeof rejectAgentProfileSchema>;

/**
 * Staff turn down a submitted profile, or withdraw the approval of an approved one (it leaves its client's
 * list at once), with the reason.
 */
export function decide(command: RejectAgentProfile, state: AgentProfile | null, meta: CommandMeta & { id: number }): AgentProfileEvent[] {
  const profile = liveAgentProfile(state, meta.id);
  requireAgentProfileStatus(profile, ['submitted', 'approved'], 'rejected');
  return [{ type: 'AgentProfileRejected', data: { agent_profile_id: meta.id, reason: command.reason, at: meta.now } }];
}
