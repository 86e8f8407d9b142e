import { z } from 'zod';
import { entitlementListSchema, entitlementsInSpecOrder, scopeListSchema, scopesInSpecOrder } from '../../src/access/grants.js';
import type { Plan, PlanEvent } from '../../src/access/plan.js';
import { changedFields, hasChanges, requireSomeField, revisionDescription } from '../../src/catalogue/changes.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';
import { planLimitsSchema } from '../../src/limits/planLimits.js';
import { detailFieldsSchema, planNameSchema, planPdfFields, refuseDisabledDefaultTemplate } from './definePlan.js';

/** The key is not revisable (see PlanFields.key); new lists replace the old ones and reach every client on the plan. */
export const revisePlanSchema = z
  .object({
    name: planNameSchema,
    scopes: scopeListSchema,
    entitlements: entitlementListSchema,
    active: z.boolean(),
    detail_fields: detailFieldsSchema,
    limits: planLimitsSchema.nullable(),
    ...planPdfFields,
  })
  .partial()
  .strict()
  .meta({ description: revisionDescription });

export type RevisePlan = z.infer<typeof revisePlanSchema>;

export function decide(command: RevisePlan, plan: Plan | null, meta: CommandMeta & { id: number }): PlanEvent[] {
  if (!plan) throw new NotFound(`Plan ${meta.id} does not exist.`);
  requireSomeField(command);
  refuseDisabledDefaultTemplate({
    pdf_templates: command.pdf_templates === undefined ? plan.pdf_templates : command.pdf_templates,
    pdf_default_template: command.pdf_default_template === undefined ? plan.pdf_default_template : command.pdf_default_template,
  });
  const changes = changedFields(plan, {
    ...command,
    ...(command.scopes ? { scopes: scopesInSpecOrder(command.scopes) } : {}),
    ...(command.entitlements ? { entitlements: entitlementsInSpecOrder(command.entitlements) } : {}),
  });
  if (!hasChanges(changes)) return [];
  return [{ type: 'PlanRevised', data: { plan_id: meta.id, changes, at: meta.now } }];
}
