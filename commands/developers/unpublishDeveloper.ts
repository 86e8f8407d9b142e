import { z } from 'zod';
import type { Developer, DeveloperEvent } from '../../src/catalogue/developer.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

export const unpublishDeveloperSchema = z.object({}).strict();

export type UnpublishDeveloper = z.infer<typeof unpublishDeveloperSchema>;

/** Unpublishing an unpublished developer changes nothing, so a repeated request is safe and emits nothing. */
export function decide(_command: UnpublishDeveloper, developer: Developer | null, meta: CommandMeta & { id: number }): DeveloperEvent[] {
  if (!developer) throw new NotFound(`Developer ${meta.id} does not exist.`);
  if (!developer.published) return [];
  return [{ type: 'DeveloperUnpublished', data: { developer_id: meta.id, at: meta.now } }];
}
