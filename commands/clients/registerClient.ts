import { z } from 'zod';
import { activePlanId, type AccessFacts, type AccessLookup } from '../../src/access/accessReferences.js';
import type { Client, ClientEvent } from '../../src/access/client.js';
import { entitlementListSchema, entitlementsInSpecOrder, scopeListSchema, scopesInSpecOrder } from '../../src/access/grants.js';
import { planKeySchema } from '../../src/access/plan.js';
import { planLimitsSchema } from '../../src/limits/planLimits.js';
import { pdfLimitsSchema, pdfTemplateSchema } from '../../src/pdf/pdfSettings.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';
import { singleLineText } from '../../src/catalogue/text.js';

export const clientNameSchema = singleLineText(200, { min: 1 });

export const clientPlanSchema = planKeySchema.meta({ description: 'The key of an active plan.', example: 'starter' });

/** The client's brochure settings over its plan's (src/pdf/pdfSettings.ts), shared with reviseClient. */
export const clientPdfFields = {
  pdf_default_template: pdfTemplateSchema
    .nullable()
    .meta({ description: "The account default brochure design, used while its plan enables it (null or omitted = the plan's default)." }),
  pdf_limits: pdfLimitsSchema
    .nullable()
    .meta({ description: "Replace the plan's PDF generation limits for this client (null or omitted = the plan's)." }),
};

export const registerClientSchema = z
  .object({
    name: clientNameSchema,
    plan: clientPlanSchema,
    scopes: scopeListSchema.optional().meta({ description: "Replace the plan's scopes for this client (omitted = the plan's)." }),
    entitlements: entitlementListSchema
      .optional()
      .meta({ description: "Replace the plan's entitlements for this client (omitted = the plan's)." }),
    limits: planLimitsSchema
      .optional()
      .meta({ description: "Replace the plan's rate limits and quotas for this client (omitted = the plan's)." }),
    pdf_default_template: clientPdfFields.pdf_default_template.optional(),
    pdf_limits: clientPdfFields.pdf_limits.optional(),
  })
  .strict();

export type RegisterClient = z.infer<typeof registerClientSchema>;

/** The plan the body names by key. */
export function references(command: RegisterClient): AccessLookup {
  return { planKeys: [command.plan] };
}

/** A client is registered on an active plan (422 naming body.plan otherwise); the event records the plan's id. */
export function decide(
  command: RegisterClient,
  client: Client | null,
  meta: CommandMeta & { id: number; references: AccessFacts },
): ClientEvent[] {
  const planId = activePlanId(command.plan, meta.references);
  if (client) throw new Conflict(`Client ${meta.id} already exists.`);
  return [
    {
      type: 'ClientRegistered',
      data: {
        client_id: meta.id,
        name: command.name,
        plan_id: planId,
        scopes: command.scopes ? scopesInSpecOrder(command.scopes) : null,
        entitlements: command.entitlements ? entitlementsInSpecOrder(command.entitlements) : null,
        limits: command.limits ?? null,
        ...(command.pdf_default_template ? { pdf_default_template: command.pdf_default_template } : {}),
        ...(command.pdf_limits ? { pdf_limits: command.pdf_limits } : {}),
        at: meta.now,
      },
    },
  ];
}
