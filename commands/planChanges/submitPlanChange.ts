import { z } from 'zod';
import { activePlanId, clientAsSeen, type AccessFacts, type AccessLookup } from '../../src/access/accessReferences.js';
import type { PlanChangeRequest, PlanChangeRequestEvent } from '../../src/access/planChangeRequest.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict, ValidationFailed } from '../../src/domain/errors.js';
import { clientPlanSchema } from '../clients/registerClient.js';
import { longText } from '../../src/catalogue/text.js';

export const submitPlanChangeSchema = z
  .object({
    plan: clientPlanSchema.meta({ description: 'The key of the active plan the client asks to move to.', example: 'professional' }),
    note: longText(2000, { min: 1, trim: true })
      .optional()
      .meta({ description: "The client's reasons or wishes, for the reviewing staff." }),
  })
  .strict();

/**
 * The body, the client from the path and the client revision If-Match names: the request is based on the
 * plan the caller saw the client on.
 */
export type SubmitPlanChange = z.infer<typeof submitPlanChangeSchema> & { client_id: number; expected_client_revision?: number };

/** The client and the plan asked for. */
export function references(command: SubmitPlanChange): AccessLookup {
  return { clients: [command.client_id], planKeys: [command.plan] };
}

/**
 * The client must exist (404) as the caller saw it (409), and move to another active plan (422 body.plan).
 * Records the request only: the client stays on its plan, with its access unchanged, until the change takes effect.
 */
export function decide(
  command: SubmitPlanChange,
  request: PlanChangeRequest | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): PlanChangeRequestEvent[] {
  const client = clientAsSeen(command.client_id, command.expected_client_revision, meta.references);
  const toPlanId = activePlanId(command.plan, meta.references);
  if (request) throw new Conflict(`Plan change request ${meta.id} already exists.`);
  if (toPlanId === client.plan_id) throw new ValidationFailed({ 'body.plan': 'the client is already on this plan' });
  return [
    {
      type: 'PlanChangeRequested',
      data: {
        request_id: meta.id,
        client_id: command.client_id,
        from_plan_id: client.plan_id,
        to_plan_id: toPlanId,
        note: command.note ?? null,
        at: meta.now,
      },
    },
  ];
}
