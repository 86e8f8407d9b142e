import {
  clientsPlanChange,
  requireStatus,
  type PlanChangeOfClient,
  type PlanChangeRequest,
  type PlanChangeRequestEvent,
} from '../../src/access/planChangeRequest.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** Starting a review already under way changes nothing, so a repeated request is safe and emits nothing. */
export function decide(
  command: PlanChangeOfClient,
  state: PlanChangeRequest | null,
  meta: CommandMeta & { id: number },
): PlanChangeRequestEvent[] {
  const request = clientsPlanChange(command, state, meta.id);
  if (request.status === 'under_review') return [];
  requireStatus(request, ['submitted'], 'put under review');
  return [{ type: 'PlanChangeReviewStarted', data: { request_id: meta.id, client_id: request.client_id, at: meta.now } }];
}
