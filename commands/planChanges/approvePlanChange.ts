import { z } from 'zod';
import {
  clientsPlanChange,
  requireStatus,
  type PlanChangeOfClient,
  type PlanChangeRequest,
  type PlanChangeRequestEvent,
} from '../../src/access/planChangeRequest.js';
import { currencySchema } from '../../src/catalogue/project.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { singleLineText } from '../../src/catalogue/text.js';

/**
 * The bounds keep every amount and total an exact integer: 100 lines × 1,000 × 10^10 stays below
 * Number.MAX_SAFE_INTEGER, so no line or total can lose a minor unit.
 */
const MAX_LINES = 100;
const MAX_QUANTITY = 1_000;
const MAX_UNIT_AMOUNT = 10_000_000_000;

const invoiceLineSchema = z
  .object({
    description: singleLineText(200, { min: 1 }),
    quantity: z.number().int().min(1).max(MAX_QUANTITY),
    unit_amount: z.number().int().min(0).max(MAX_UNIT_AMOUNT).meta({
      description: "Price of one unit in the currency's minor unit (fils, cents): 150000 is 1,500.00 AED. Never a decimal.",
      example: 150000,
    }),
  })
  .strict();

export const approvePlanChangeSchema = z
  .object({
    currency: currencySchema,
    lines: z
      .array(invoiceLineSchema)
      .min(1)
      .max(MAX_LINES)
      .meta({ description: 'What the invoice charges; each amount and the total are computed by the service.' }),
  })
  .strict();

export type ApprovePlanChange = z.infer<typeof approvePlanChangeSchema> & PlanChangeOfClient;

export const invoiceNumber = (sequence: number): string => `INV-${String(sequence).padStart(6, '0')}`;

/** Approval follows a review. */
export function approvableRequest(command: PlanChangeOfClient, state: PlanChangeRequest | null, id: number): PlanChangeRequest {
  const request = clientsPlanChange(command, state, id);
  requireStatus(request, ['under_review'], 'approved');
  return request;
}

/** Issues the itemized invoice; the client's access is still unchanged until the change takes effect. */
export function decide(
  command: ApprovePlanChange,
  state: PlanChangeRequest | null,
  meta: CommandMeta & { id: number },
): PlanChangeRequestEvent[] {
  const request = approvableRequest(command, state, meta.id);
  const sequence = meta.allocatedIds?.invoice;
  if (sequence === undefined) throw new Error('approvePlanChange needs an allocated invoice id.');
  const lines = command.lines.map((line) => ({ ...line, amount: line.quantity * line.unit_amount }));
  const invoice = {
    number: invoiceNumber(sequence),
    currency: command.currency,
    lines,
    total: lines.reduce((sum, line) => sum + line.amount, 0),
    issued_at: meta.now,
  };
  return [{ type: 'PlanChangeApproved', data: { request_id: meta.id, client_id: request.client_id, invoice, at: meta.now } }];
}
