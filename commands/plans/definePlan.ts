import { z } from 'zod';
import { entitlementListSchema, entitlementsInSpecOrder, scopeListSchema, scopesInSpecOrder } from '../../src/access/grants.js';
import { planKeySchema, type Plan, type PlanEvent } from '../../src/access/plan.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';

export const planNameSchema = z.string().trim().min(1).max(200);

export const definePlanSchema = z
  .object({
    key: planKeySchema,
    name: planNameSchema,
    scopes: scopeListSchema,
    entitlements: entitlementListSchema,
    active: z.boolean().default(true).meta({ description: 'An inactive plan takes no new clients and grants its clients nothing.' }),
  })
  .strict();

export type DefinePlan = z.infer<typeof definePlanSchema>;

export function decide(command: DefinePlan, plan: Plan | null, meta: CommandMeta & { id: number }): PlanEvent[] {
  if (plan) throw new Conflict(`Plan ${meta.id} already exists.`);
  return [
    {
      type: 'PlanDefined',
      data: {
        plan_id: meta.id,
        ...command,
        scopes: scopesInSpecOrder(command.scopes),
        entitlements: entitlementsInSpecOrder(command.entitlements),
        at: meta.now,
      },
    },
  ];
}
