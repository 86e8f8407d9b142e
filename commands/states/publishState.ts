import { z } from 'zod';
import type { StateEvent, StateRegion } from '../../src/catalogue/state.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';

export const publishStateSchema = z.object({}).strict();

export type PublishState = z.infer<typeof publishStateSchema>;

/** Publishing a published state changes nothing, so a repeated request is safe and emits nothing. */
export function decide(_command: PublishState, state: StateRegion | null, meta: CommandMeta & { id: number }): StateEvent[] {
  if (!state) throw new NotFound(`State ${meta.id} does not exist.`);
  if (state.published) return [];
  return [{ type: 'StatePublished', data: { state_id: meta.id, at: meta.now } }];
}
