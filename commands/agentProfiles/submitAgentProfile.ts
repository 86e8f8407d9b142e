import { z } from 'zod';
import { liveAgentProfile, requireAgentProfileStatus, type AgentProfile, type AgentProfileEvent } from '../../src/access/agentProfile.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const submitAgentProfileSchema = z.object({}).strict();

export type SubmitAgentProfile = z.infer<typeof submitAgentProfileSchema>;

/** A draft or a rejected profile goes to review; submitting a submitted one again changes nothing. */
export function decide(_command: SubmitAgentProfile, state: AgentProfile | null, meta: CommandMeta & { id: number }): AgentProfileEvent[] {
  const profile = liveAgentProfile(state, meta.id);
  if (profile.status === 'submitted') return [];
  requireAgentProfileStatus(profile, ['draft', 'rejected'], 'submitted');
  return [{ type: 'AgentProfileSubmitted', data: { agent_profile_id: meta.id, at: meta.now } }];
}
