import { z } from 'zod';
import type { StateEvent, StateRegion } from '../../src/catalogue/state.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

export const unpublishStateSchema = z.object({}).strict();

export type UnpublishState = z.infer<typeof unpublishStateSchema>;

/** Unpublishing an unpublished state changes nothing, so a repeated request is safe and emits nothing. */
export function decide(_command: UnpublishState, state: StateRegion | null, meta: CommandMeta & { id: number }): StateEvent[] {
  if (!state) throw new NotFound(`State ${meta.id} does not exist.`);
  if (!state.published) return [];
  return [{ type: 'StateUnpublished', data: { state_id: meta.id, at: meta.now } }];
}
