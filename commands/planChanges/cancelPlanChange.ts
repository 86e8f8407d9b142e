import {
  clientsPlanChange,
  requireStatus,
  type PlanChangeOfClient,
  type PlanChangeRequest,
  type PlanChangeRequestEvent,
} from '../../src/access/planChangeRequest.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/**
 * Withdrawing is possible only before approval, since approval issues an invoice. Cancelling a cancelled
 * request changes nothing, so a repeated request is safe and emits nothing.
 */
export function decide(
  command: PlanChangeOfClient,
  state: PlanChangeRequest | null,
  meta: CommandMeta & { id: number },
): PlanChangeRequestEvent[] {
  const request = clientsPlanChange(command, state, meta.id);
  if (request.status === 'cancelled') return [];
  requireStatus(request, ['submitted', 'under_review'], 'cancelled');
  return [{ type: 'PlanChangeCancelled', data: { request_id: meta.id, client_id: request.client_id, at: meta.now } }];
}
