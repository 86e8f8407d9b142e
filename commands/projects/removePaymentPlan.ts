import { z } from 'zod';
import { activeProject, existingItem, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const removePaymentPlanSchema = z.object({ payment_plan_id: z.number().int().positive() }).strict();

export type RemovePaymentPlan = z.infer<typeof removePaymentPlanSchema>;

export function decide(command: RemovePaymentPlan, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  existingItem(project.payment_plans, command.payment_plan_id, 'Payment plan');
  return [{ type: 'PaymentPlanRemoved', data: { project_id: meta.id, payment_plan_id: command.payment_plan_id, at: meta.now } }];
}
