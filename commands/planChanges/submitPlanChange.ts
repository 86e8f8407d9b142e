import { z } from 'zod';
import type { PlanChangeRequest, PlanChangeRequestEvent } from '../../src/access/planChangeRequest.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict, ValidationFailed } from '../../src/domain/errors.js';
import { clientPlanSchema } from '../clients/registerClient.js';
import { longText } from '../../src/catalogue/text.js';

export const submitPlanChangeSchema = z
  .object({
    plan: clientPlanSchema.meta({ description: 'The key of the active plan the client asks to move to.', example: 'professional' }),
    note: longText(2000, { min: 1, trim: true }).optional().meta({ description: "The client's reasons or wishes, for the reviewing staff." }),
  })
  .strict();

/** The body with its plan key resolved (by the route, which checks that the plan exists and is active). */
export interface SubmitPlanChange {
  client_id: number;
  from_plan_id: number;
  to_plan_id: number;
  note?: string | undefined;
}

/** Records the request only: the client stays on its plan, with its access unchanged, until the change takes effect. */
export function decide(command: SubmitPlanChange, request: PlanChangeRequest | null, meta: CommandMeta & { id: number }): PlanChangeRequestEvent[] {
  if (request) throw new Conflict(`Plan change request ${meta.id} already exists.`);
  if (command.to_plan_id === command.from_plan_id) throw new ValidationFailed({ 'body.plan': 'the client is already on this plan' });
  return [
    {
      type: 'PlanChangeRequested',
      data: {
        request_id: meta.id,
        client_id: command.client_id,
        from_plan_id: command.from_plan_id,
        to_plan_id: command.to_plan_id,
        note: command.note ?? null,
        at: meta.now,
      },
    },
  ];
}
