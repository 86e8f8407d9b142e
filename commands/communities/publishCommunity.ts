import { z } from 'zod';
import type { Community, CommunityEvent } from '../../src/catalogue/community.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

export const publishCommunitySchema = z.object({}).strict();

export type PublishCommunity = z.infer<typeof publishCommunitySchema>;

/** Publishing a published community changes nothing, so a repeated request is safe and emits nothing. */
export function decide(_command: PublishCommunity, community: Community | null, meta: CommandMeta & { id: number }): CommunityEvent[] {
  if (!community) throw new NotFound(`Community ${meta.id} does not exist.`);
  if (community.published) return [];
  return [{ type: 'CommunityPublished', data: { community_id: meta.id, at: meta.now } }];
}
