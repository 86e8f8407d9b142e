import { z } from 'zod';
import { liveAgentProfile, requireAgentProfileStatus, type AgentProfile, type AgentProfileEvent } from '../../src/access/agentProfile.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const approveAgentProfileSchema = z.object({}).strict();

export type ApproveAgentProfile = z.infer<typeof approveAgentProfileSchema>;

/** Only a submitted profile is approved (it is then listed to its client's keys); approving an approved one changes nothing. */
export function decide(_command: ApproveAgentProfile, state: AgentProfile | null, meta: CommandMeta & { id: number }): AgentProfileEvent[] {
  const profile = liveAgentProfile(state, meta.id);
  if (profile.status === 'approved') return [];
  requireAgentProfileStatus(profile, ['submitted'], 'approved');
  return [{ type: 'AgentProfileApproved', data: { agent_profile_id: meta.id, at: meta.now } }];
}
