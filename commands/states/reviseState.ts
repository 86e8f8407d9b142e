import type { z } from 'zod';
import { changedFields, hasChanges, requireSomeField, revisionDescription } from '../../src/catalogue/changes.js';
import type { StateEvent, StateRegion } from '../../src/catalogue/state.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';
import { createStateSchema } from './createState.js';

export const reviseStateSchema = createStateSchema.partial().strict().meta({ description: revisionDescription });

export type ReviseState = z.infer<typeof reviseStateSchema>;

export function decide(command: ReviseState, state: StateRegion | null, meta: CommandMeta & { id: number }): StateEvent[] {
  if (!state) throw new NotFound(`State ${meta.id} does not exist.`);
  requireSomeField(command);
  const changes = changedFields(state, command);
  if (!hasChanges(changes)) return [];
  return [{ type: 'StateRevised', data: { state_id: meta.id, changes, at: meta.now } }];
}
