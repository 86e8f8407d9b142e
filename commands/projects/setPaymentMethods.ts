import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { activeProject, paymentMethodSchema, type Project, type ProjectEvent } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';

/** The whole list, in display order; an empty list clears it. */
export const setPaymentMethodsSchema = z.object({ items: z.array(paymentMethodSchema).max(50) }).strict();

export type SetPaymentMethods = z.infer<typeof setPaymentMethodsSchema>;

/** Replaces the project's payment methods; sending the current list again emits nothing. */
export function decide(command: SetPaymentMethods, state: Project | null, meta: CommandMeta & { id: number }): ProjectEvent[] {
  const project = activeProject(state, meta.id);
  if (isDeepStrictEqual(project.payment_methods, command.items)) return [];
  return [{ type: 'PaymentMethodsSet', data: { project_id: meta.id, items: command.items, at: meta.now } }];
}
