import { evolveAgentProfile, type AgentProfile, type AgentProfileEvent } from '../src/access/agentProfile.js';
import {
  alreadyApplied,
  everyEventType,
  positionNumber,
  type PositionedDoc,
  type Projection,
  type Recorded,
} from '../src/projectionEngine/projection.js';
import { searchText } from './shared/apiShape.js';

export const AGENT_PROFILES = 'agent_profiles';

/** A profile as the write side folds it, with its id, its stream's revision (the admin ETag) and search text. */
export type AgentProfileDoc = PositionedDoc &
  AgentProfile & {
    _id: number;
    id: number;
    revision: number;
    /** Agent and company names and the e-mail address, lower-cased: what `q` matches. */
    _search: string;
  };

/**
 * The admin API's reads of agent profiles and GET /v1/agent-profiles (a client's approved ones). Folded
 * with the aggregate's own evolve, so both sides read the history alike; a deleted profile stays as a
 * tombstone (`deleted: true`), so its events applied again find it and change nothing.
 */
export const agentProfilesProjection: Projection<AgentProfileEvent> = {
  name: 'agentProfiles',
  version: 1,
  collections: [AGENT_PROFILES],
  indexes: {
    [AGENT_PROFILES]: [
      {
        keys: [
          ['client_id', 1],
          ['status', 1],
        ],
      },
      { keys: [['agent_name', 1]] },
      { keys: [['updated_at', 1]] },
    ],
  },
  handles: everyEventType<AgentProfileEvent>({
    AgentProfileCreated: true,
    AgentProfileRevised: true,
    AgentProfilePictureReplaced: true,
    AgentProfilePictureRemoved: true,
    AgentProfileSubmitted: true,
    AgentProfileApproved: true,
    AgentProfileRejected: true,
    AgentProfileDeleted: true,
  }),
  async apply(event, ctx) {
    const id = event.data.agent_profile_id;
    const current = await ctx.get<AgentProfileDoc>(AGENT_PROFILES, id);
    if (alreadyApplied(current, event)) return;
    const profile = evolveAgentProfile(current, event);
    if (!profile) return;
    ctx.put(AGENT_PROFILES, {
      ...profile,
      _id: id,
      id,
      revision: event.revision,
      _search: searchText(profile.agent_name, profile.company_name, profile.email),
      _position: positionNumber(event),
    });
  },
};
