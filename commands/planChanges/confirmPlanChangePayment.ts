import {
  clientsPlanChange,
  requireStatus,
  type PlanChangeEffectReason,
  type PlanChangeOfClient,
  type PlanChangeRequest,
  type PlanChangeRequestEvent,
} from '../../src/access/planChangeRequest.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/**
 * An effective request emits nothing again, whichever way it took effect: the route repeats the client's
 * move to the new plan after it, so calling it again finishes a move that an earlier call left undone.
 */
export function takeEffect(
  via: PlanChangeEffectReason,
  command: PlanChangeOfClient,
  state: PlanChangeRequest | null,
  meta: CommandMeta & { id: number },
): PlanChangeRequestEvent[] {
  const request = clientsPlanChange(command, state, meta.id);
  if (request.status === 'effective') return [];
  requireStatus(request, ['approved'], 'made effective');
  return [{ type: 'PlanChangeTookEffect', data: { request_id: meta.id, client_id: request.client_id, via, at: meta.now } }];
}

/** The invoice is paid: the approved plan applies. */
export function decide(command: PlanChangeOfClient, state: PlanChangeRequest | null, meta: CommandMeta & { id: number }): PlanChangeRequestEvent[] {
  return takeEffect('payment', command, state, meta);
}
