import { agentProfileStream, type AgentProfileEvent } from '../../src/access/agentProfile.js';
import { imageRef, minute, type StreamEvent } from './catalogueEvents.js';

export function agentProfileEvent(event: AgentProfileEvent): StreamEvent {
  return { stream: agentProfileStream(event.data.agent_profile_id), event };
}

export function agentProfileCreated(
  id: number,
  clientId: number,
  overrides: { agent_name?: string; picture?: string | null } = {},
  at = minute(0),
): StreamEvent {
  const picture = overrides.picture === undefined ? `portrait-${id}` : overrides.picture;
  return agentProfileEvent({
    type: 'AgentProfileCreated',
    data: {
      agent_profile_id: id,
      client_id: clientId,
      agent_name: overrides.agent_name ?? `Agent ${id}`,
      company_name: `Agency of client ${clientId}`,
      email: `agent-${id}@agency.example`,
      phone: '+971 50 123 4567',
      whatsapp: null,
      picture: picture === null ? null : imageRef(picture),
      at,
    },
  });
}

/** Profiles of two clients through every event type: approved, revised back to review, rejected, re-pictured, deleted. */
export function agentProfileHistory(): StreamEvent[] {
  const at = minute(5);
  const event = (
    type: 'AgentProfileSubmitted' | 'AgentProfileApproved' | 'AgentProfileDeleted' | 'AgentProfilePictureRemoved',
    id: number,
  ) => agentProfileEvent({ type, data: { agent_profile_id: id, at } });
  return [
    agentProfileCreated(1, 1),
    agentProfileCreated(2, 1, { picture: null }),
    agentProfileCreated(3, 2),
    event('AgentProfileSubmitted', 1),
    event('AgentProfileApproved', 1),
    agentProfileEvent({ type: 'AgentProfileRevised', data: { agent_profile_id: 1, changes: { company_name: 'Creek Homes' }, at } }),
    event('AgentProfileSubmitted', 1),
    event('AgentProfileApproved', 1),
    event('AgentProfileSubmitted', 2),
    agentProfileEvent({ type: 'AgentProfileRejected', data: { agent_profile_id: 2, reason: 'No picture', at } }),
    agentProfileEvent({ type: 'AgentProfilePictureReplaced', data: { agent_profile_id: 2, picture: imageRef('portrait-2b'), at } }),
    agentProfileEvent({ type: 'AgentProfilePictureReplaced', data: { agent_profile_id: 1, picture: imageRef('portrait-1b'), at } }),
    event('AgentProfilePictureRemoved', 3),
    event('AgentProfileDeleted', 3),
  ];
}
