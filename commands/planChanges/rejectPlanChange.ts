import { z } from 'zod';
import {
  clientsPlanChange,
  requireStatus,
  type PlanChangeOfClient,
  type PlanChangeRequest,
  type PlanChangeRequestEvent,
} from '../../src/access/planChangeRequest.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { longText } from '../../src/catalogue/text.js';

export const rejectPlanChangeSchema = z
  .object({
    reason: longText(2000, { min: 1, trim: true }).meta({ description: 'Why staff turned the request down; shown to the client.' }),
  })
  .strict();

export type RejectPlanChange = z.infer<typeof rejectPlanChangeSchema> & PlanChangeOfClient;

/** Staff may turn a request down before or during review; once approved, an invoice has been issued to the client. */
export function decide(
  command: RejectPlanChange,
  state: PlanChangeRequest | null,
  meta: CommandMeta & { id: number },
): PlanChangeRequestEvent[] {
  const request = clientsPlanChange(command, state, meta.id);
  requireStatus(request, ['submitted', 'under_review'], 'rejected');
  return [
    { type: 'PlanChangeRejected', data: { request_id: meta.id, client_id: request.client_id, reason: command.reason, at: meta.now } },
  ];
}
