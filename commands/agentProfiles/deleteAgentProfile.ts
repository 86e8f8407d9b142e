import { z } from 'zod';
import { liveAgentProfile, type AgentProfile, type AgentProfileEvent } from '../../src/access/agentProfile.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const deleteAgentProfileSchema = z.object({}).strict();

export type DeleteAgentProfile = z.infer<typeof deleteAgentProfileSchema>;

/** In any status; the profile leaves every list and its picture's addresses, and takes no further commands (404). */
export function decide(_command: DeleteAgentProfile, state: AgentProfile | null, meta: CommandMeta & { id: number }): AgentProfileEvent[] {
  liveAgentProfile(state, meta.id);
  return [{ type: 'AgentProfileDeleted', data: { agent_profile_id: meta.id, at: meta.now } }];
}
