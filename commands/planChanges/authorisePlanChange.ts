import type { PlanChangeOfClient, PlanChangeRequest, PlanChangeRequestEvent } from '../../src/access/planChangeRequest.js';
import type { AccessFacts } from '../../src/access/accessReferences.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { takeEffect } from './confirmPlanChangePayment.js';

export { references } from './confirmPlanChangePayment.js';

/** Staff authorise the approved plan active-but-unpaid: it applies before the invoice is paid. */
export function decide(
  command: PlanChangeOfClient,
  state: PlanChangeRequest | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): PlanChangeRequestEvent[] {
  return takeEffect('staff_authorisation', command, state, meta);
}
