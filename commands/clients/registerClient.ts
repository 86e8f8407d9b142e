import { z } from 'zod';
import type { Client, ClientEvent } from '../../src/access/client.js';
import { entitlementListSchema, entitlementsInSpecOrder, scopeListSchema, scopesInSpecOrder } from '../../src/access/grants.js';
import { planKeySchema } from '../../src/access/plan.js';
import { planLimitsSchema } from '../../src/limits/planLimits.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';
import { singleLineText } from '../../src/catalogue/text.js';

export const clientNameSchema = singleLineText(200, { min: 1 });

export const clientPlanSchema = planKeySchema.meta({ description: 'The key of an active plan.', example: 'starter' });

export const registerClientSchema = z
  .object({
    name: clientNameSchema,
    plan: clientPlanSchema,
    scopes: scopeListSchema.optional().meta({ description: "Replace the plan's scopes for this client (omitted = the plan's)." }),
    entitlements: entitlementListSchema
      .optional()
      .meta({ description: "Replace the plan's entitlements for this client (omitted = the plan's)." }),
    limits: planLimitsSchema.optional().meta({ description: "Replace the plan's rate limits and quotas for this client (omitted = the plan's)." }),
  })
  .strict();

/** The body with its plan key resolved to the plan's id (by the route, which checks that the plan is active). */
export type RegisterClient = Omit<z.infer<typeof registerClientSchema>, 'plan'> & { plan_id: number };

export function decide(command: RegisterClient, client: Client | null, meta: CommandMeta & { id: number }): ClientEvent[] {
  if (client) throw new Conflict(`Client ${meta.id} already exists.`);
  return [
    {
      type: 'ClientRegistered',
      data: {
        client_id: meta.id,
        name: command.name,
        plan_id: command.plan_id,
        scopes: command.scopes ? scopesInSpecOrder(command.scopes) : null,
        entitlements: command.entitlements ? entitlementsInSpecOrder(command.entitlements) : null,
        limits: command.limits ?? null,
        at: meta.now,
      },
    },
  ];
}
