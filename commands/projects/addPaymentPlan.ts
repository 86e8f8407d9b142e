import type { z } from 'zod';
import {
  activeProject,
  allocatedId,
  paymentPlanFieldsSchema,
  requireMilestonesSumTo100,
  type Project,
  type ProjectEvent,
} from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

export const addPaymentPlanSchema = paymentPlanFieldsSchema;

export type AddPaymentPlan = z.infer<typeof addPaymentPlanSchema>;

/** The plan's id is allocated by the service (meta.allocatedIds.paymentPlan); its milestones sum to 100 %. */
export function decide(command: AddPaymentPlan, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  activeProject(state, meta.id);
  requireMilestonesSumTo100(command.milestones);
  const paymentPlanId = allocatedId(meta, 'paymentPlan');
  return [
    { type: 'PaymentPlanAdded', data: { project_id: meta.id, payment_plan: { payment_plan_id: paymentPlanId, ...command }, at: meta.now } },
  ];
}
