import { z } from 'zod';
import type { Community, CommunityEvent } from '../../src/catalogue/community.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

export const unpublishCommunitySchema = z.object({}).strict();

export type UnpublishCommunity = z.infer<typeof unpublishCommunitySchema>;

/** Unpublishing an unpublished community changes nothing, so a repeated request is safe and emits nothing. */
export function decide(_command: UnpublishCommunity, community: Community | null, meta: CommandMeta & { id: number }): CommunityEvent[] {
  if (!community) throw new NotFound(`Community ${meta.id} does not exist.`);
  if (!community.published) return [];
  return [{ type: 'CommunityUnpublished', data: { community_id: meta.id, at: meta.now } }];
}
