import { z } from 'zod';
import { changedFields, hasChanges, requireSomeField } from '../../src/catalogue/changes.js';
import {
  activeProject,
  existingItem,
  paymentPlanFieldsSchema,
  requireMilestonesSumTo100,
  type PaymentPlanFields,
  type Project,
  type ProjectEvent,
} from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** Milestones are replaced as a whole, so the new list alone must sum to 100 %. */
export const revisePaymentPlanSchema = paymentPlanFieldsSchema.partial().extend({ payment_plan_id: z.number().int().positive() }).strict();

export type RevisePaymentPlan = z.infer<typeof revisePaymentPlanSchema>;

export function decide(command: RevisePaymentPlan, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  const { payment_plan_id, ...requested } = command;
  const paymentPlan = existingItem(project.payment_plans, payment_plan_id, 'Payment plan');
  requireSomeField(requested);
  if (requested.milestones) requireMilestonesSumTo100(requested.milestones);
  const changes = changedFields<PaymentPlanFields>(paymentPlan, requested);
  if (!hasChanges(changes)) return [];
  return [{ type: 'PaymentPlanRevised', data: { project_id: meta.id, payment_plan_id, changes, at: meta.now } }];
}
