import { z } from 'zod';
import type { SubCommunity, SubCommunityEvent } from '../../src/catalogue/subCommunity.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

export const unpublishSubCommunitySchema = z.object({}).strict();

export type UnpublishSubCommunity = z.infer<typeof unpublishSubCommunitySchema>;

/** Unpublishing an unpublished sub-community changes nothing, so a repeated request is safe and emits nothing. */
export function decide(
  _command: UnpublishSubCommunity,
  subCommunity: SubCommunity | null,
  meta: CommandMeta & { id: number },
): SubCommunityEvent[] {
  if (!subCommunity) throw new NotFound(`Sub-community ${meta.id} does not exist.`);
  if (!subCommunity.published) return [];
  return [{ type: 'SubCommunityUnpublished', data: { sub_community_id: meta.id, at: meta.now } }];
}
