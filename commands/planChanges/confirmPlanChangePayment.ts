import {
  clientsPlanChange,
  requireStatus,
  type PlanChangeEffectReason,
  type PlanChangeOfClient,
  type PlanChangeRequest,
  type PlanChangeRequestEvent,
} from '../../src/access/planChangeRequest.js';
import type { AccessFacts, AccessLookup } from '../../src/access/accessReferences.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';

/** The plan the request moves the client to. */
export function references(_command: PlanChangeOfClient, request: PlanChangeRequest | null): AccessLookup {
  return { planIds: request ? [request.to_plan_id] : [] };
}

/**
 * An effective request emits nothing again, whichever way it took effect: its handler repeats the client's
 * move to the new plan after it, so calling it again finishes a move that an earlier call left undone. The
 * plan must still be active for the change to take effect, or the client's keys would be left with nothing
 * (403 PLAN_INACTIVE); once effective, the move is finished whatever the plan's state.
 */
export function takeEffect(
  via: PlanChangeEffectReason,
  command: PlanChangeOfClient,
  state: PlanChangeRequest | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): PlanChangeRequestEvent[] {
  const request = clientsPlanChange(command, state, meta.id);
  if (request.status === 'effective') return [];
  if (request.status === 'approved') {
    const plan = meta.references.plansById.get(request.to_plan_id);
    if (!plan) throw new Error(`Plan change request ${meta.id} names plan ${request.to_plan_id}, which does not exist.`);
    if (!plan.active) {
      throw new Conflict(`Plan '${plan.key}' is no longer active; reactivate it before the change takes effect.`, {
        plan: plan.key,
        plan_active: false,
      });
    }
  }
  requireStatus(request, ['approved'], 'made effective');
  return [{ type: 'PlanChangeTookEffect', data: { request_id: meta.id, client_id: request.client_id, via, at: meta.now } }];
}

/** The invoice is paid: the approved plan applies. */
export function decide(
  command: PlanChangeOfClient,
  state: PlanChangeRequest | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): PlanChangeRequestEvent[] {
  return takeEffect('payment', command, state, meta);
}
