import { z } from 'zod';
import { readUsageReport } from '../../limits/usageLedger.js';
import type { AdminRoute } from '../adminRoute.js';
import { existingClient } from './accessReferences.js';
import { pathId } from './adminSchemas.js';

const usageParams = z
  .object({
    clientId: pathId,
    month: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month as YYYY-MM')
      .meta({ description: 'Calendar month in Asia/Dhaka, e.g. `2026-11`.' }),
  })
  .strict();

const overageLineSchema = z
  .object({
    price_per_request: z.string().meta({ example: '0.002' }),
    currency: z.string().meta({ example: 'AED' }),
    units: z.number().int().positive(),
    amount: z.string().meta({ description: 'units x price_per_request, exact (round it as your invoicing rules say).', example: '0.246' }),
  })
  .strict();

const usageReportSchema = z
  .object({
    client_id: z.number().int().positive(),
    month: z.string(),
    time_zone: z.literal('Asia/Dhaka'),
    environments: z.array(
      z
        .object({
          environment: z.enum(['live', 'test']),
          units: z.number().int().nonnegative().meta({ description: 'Quota units charged in the month (what X-Quota-Monthly-* counts).' }),
          days: z.array(z.object({ date: z.string(), units: z.number().int().nonnegative() }).strict()),
          overage_units: z.number().int().nonnegative().meta({ description: 'Units past the monthly allowance, billed as overage.' }),
          overage: z.array(overageLineSchema).meta({ description: 'Overage units per price in effect when they were used.' }),
        })
        .strict(),
    ),
  })
  .strict()
  .meta({
    id: 'AdminUsageReport',
    description:
      "A client's usage in one Asia/Dhaka month, per key environment, with the overage to invoice. Usage is written to the read store every few seconds by each API process (this one flushes before answering).",
  });

const getUsageReportRoute: AdminRoute<typeof usageParams> = {
  method: 'get',
  path: '/clients/:clientId/usage/:month',
  operationId: 'getUsageReport',
  summary: "A client's usage and overage in one month (for invoicing)",
  tag: 'Clients',
  params: usageParams,
  successStatus: 200,
  response: usageReportSchema,
  async handle({ params }, deps) {
    await existingClient(deps.eventStore, params.clientId);
    await deps.pendingUsage?.flush();
    return { data: await readUsageReport(deps.readStore, params.clientId, params.month) };
  },
};

export const usageRoutes: AdminRoute[] = [getUsageReportRoute];
