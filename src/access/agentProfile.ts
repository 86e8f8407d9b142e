import type { ImageRef } from '../catalogue/imageRef.js';
import { assertNever, type Aggregate } from '../domain/decider.js';
import { Conflict, NotFound } from '../domain/errors.js';
import type { DomainEvent } from '../eventStore/eventStore.js';

/** What an editor writes on a profile; the picture has events of its own (it is uploaded, not typed). */
export interface AgentProfileFields {
  agent_name: string;
  company_name: string;
  email: string;
  phone: string;
  /** null = the agent gives no WhatsApp number. */
  whatsapp: string | null;
}

export const AGENT_PROFILE_STATUSES = ['draft', 'submitted', 'approved', 'rejected'] as const;
export type AgentProfileStatus = (typeof AGENT_PROFILE_STATUSES)[number];

export type AgentProfileEvent =
  | DomainEvent<
      'AgentProfileCreated',
      AgentProfileFields & { agent_profile_id: number; client_id: number; picture: ImageRef | null; at: string }
    >
  | DomainEvent<'AgentProfileRevised', { agent_profile_id: number; changes: Partial<AgentProfileFields>; at: string }>
  | DomainEvent<'AgentProfilePictureReplaced', { agent_profile_id: number; picture: ImageRef; at: string }>
  | DomainEvent<'AgentProfilePictureRemoved', { agent_profile_id: number; at: string }>
  | DomainEvent<'AgentProfileSubmitted', { agent_profile_id: number; at: string }>
  | DomainEvent<'AgentProfileApproved', { agent_profile_id: number; at: string }>
  | DomainEvent<'AgentProfileRejected', { agent_profile_id: number; reason: string; at: string }>
  | DomainEvent<'AgentProfileDeleted', { agent_profile_id: number; at: string }>;

/**
 * The contact an agency prints on its project brochures (the PDF's agent page). It belongs to one client
 * and is listed to that client's keys only once staff approved it: draft -> submitted -> approved or
 * rejected. An edit of an approved profile (fields or picture) sends it back to submitted, so what a
 * brochure prints has always been reviewed; a rejected profile is edited and submitted again. The state
 * is null before AgentProfileCreated.
 */
export type AgentProfile = AgentProfileFields & {
  client_id: number;
  picture: ImageRef | null;
  status: AgentProfileStatus;
  /** The reason of the last rejection; null once the profile is approved, and before any rejection. */
  rejection_reason: string | null;
  /** A deleted profile takes no further commands and is listed nowhere. */
  deleted: boolean;
  created_at: string;
  updated_at: string;
};

export const agentProfileStream = (id: number): string => `agentProfile-${id}`;

export function evolveAgentProfile(profile: AgentProfile | null, event: AgentProfileEvent): AgentProfile | null {
  if (event.type === 'AgentProfileCreated') {
    const { agent_name, company_name, email, phone, whatsapp, client_id, picture, at } = event.data;
    return {
      agent_name,
      company_name,
      email,
      phone,
      whatsapp,
      client_id,
      picture,
      status: 'draft',
      rejection_reason: null,
      deleted: false,
      created_at: at,
      updated_at: at,
    };
  }
  if (!profile) return null;
  const updated_at = event.data.at;
  switch (event.type) {
    case 'AgentProfileRevised':
      return { ...profile, ...event.data.changes, updated_at };
    case 'AgentProfilePictureReplaced':
      return { ...profile, picture: event.data.picture, updated_at };
    case 'AgentProfilePictureRemoved':
      return { ...profile, picture: null, updated_at };
    case 'AgentProfileSubmitted':
      return { ...profile, status: 'submitted', updated_at };
    case 'AgentProfileApproved':
      return { ...profile, status: 'approved', rejection_reason: null, updated_at };
    case 'AgentProfileRejected':
      return { ...profile, status: 'rejected', rejection_reason: event.data.reason, updated_at };
    case 'AgentProfileDeleted':
      return { ...profile, deleted: true, updated_at };
    default:
      return assertNever(event);
  }
}

export const agentProfileAggregate: Aggregate<AgentProfile | null, AgentProfileEvent> = {
  category: 'agentProfile',
  streamName: agentProfileStream,
  initialState: () => null,
  evolve: evolveAgentProfile,
};

/** A profile that exists and is not deleted; anything else is the one 404 (a deleted profile is gone). */
export function liveAgentProfile(profile: AgentProfile | null, id: number): AgentProfile {
  if (!profile || profile.deleted) throw new NotFound(`Agent profile ${id} does not exist.`);
  return profile;
}

/** 409 naming the current status and the ones the action is allowed from. */
export function requireAgentProfileStatus(profile: AgentProfile, allowed: readonly AgentProfileStatus[], action: string): void {
  if (!allowed.includes(profile.status)) {
    throw new Conflict(`An agent profile that is ${profile.status} cannot be ${action}.`, {
      status: profile.status,
      allowed_from: allowed,
    });
  }
}

/**
 * The events of an edit that changed something: an approved profile goes back to review with it (see
 * AgentProfile), a profile in any other status keeps it.
 */
export function withReview(profile: AgentProfile, id: number, edits: AgentProfileEvent[], at: string): AgentProfileEvent[] {
  if (edits.length === 0 || profile.status !== 'approved') return edits;
  return [...edits, { type: 'AgentProfileSubmitted', data: { agent_profile_id: id, at } }];
}
