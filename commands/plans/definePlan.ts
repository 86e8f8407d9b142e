import { z } from 'zod';
import { DETAIL_FIELDS } from '../../src/access/accessContext.js';
import { planLimitsSchema } from '../../src/limits/planLimits.js';
import { entitlementListSchema, entitlementsInSpecOrder, scopeListSchema, scopesInSpecOrder } from '../../src/access/grants.js';
import { planKeySchema, type Plan, type PlanEvent } from '../../src/access/plan.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict, ValidationFailed } from '../../src/domain/errors.js';
import {
  planPdfSettingsOf,
  pdfLimitsSchema,
  pdfTemplateListSchema,
  pdfTemplateSchema,
  planDefaultTemplateProblem,
} from '../../src/pdf/pdfSettings.js';
import { singleLineText } from '../../src/catalogue/text.js';

export const planNameSchema = singleLineText(200, { min: 1 });

/** Kept in the order of DETAIL_FIELDS, so equal sets are equal lists. */
export const detailFieldsSchema = z
  .array(z.enum(DETAIL_FIELDS))
  .refine((fields) => new Set(fields).size === fields.length, 'must not repeat a field')
  .meta({ uniqueItems: true })
  .transform((fields) => DETAIL_FIELDS.filter((field) => fields.includes(field)))
  .nullable()
  .meta({ description: 'The detail-only project fields its clients see; the others answer null. null = all of them.' });

/** The plan's brochure settings (src/pdf/pdfSettings.ts), shared with revisePlan. */
export const planPdfFields = {
  pdf_templates: pdfTemplateListSchema
    .nullable()
    .optional()
    .meta({ description: 'The brochure designs its clients may use (GET /v1/pdf-templates); null or omitted = all of them.' }),
  pdf_default_template: pdfTemplateSchema
    .nullable()
    .optional()
    .meta({ description: 'The design of a brochure request naming none; one of pdf_templates. null or omitted = the first enabled.' }),
  pdf_branding_page: z.boolean().optional().meta({ description: 'An extra final branding page on its brochures (off by default).' }),
  pdf_limits: pdfLimitsSchema
    .nullable()
    .optional()
    .meta({ description: 'PDF generation limits; null or omitted = 5/minute, 100/day, 1,000/month.' }),
};

/** A default design the plan does not enable is refused, naming the field. */
export function refuseDisabledDefaultTemplate(settings: Parameters<typeof planDefaultTemplateProblem>[0]): void {
  const problem = planDefaultTemplateProblem(settings);
  if (problem !== null) throw new ValidationFailed({ 'body.pdf_default_template': problem });
}

export const definePlanSchema = z
  .object({
    key: planKeySchema,
    name: planNameSchema,
    scopes: scopeListSchema,
    entitlements: entitlementListSchema,
    active: z.boolean().default(true).meta({ description: 'An inactive plan takes no new clients and grants its clients nothing.' }),
    detail_fields: detailFieldsSchema.default(null),
    limits: planLimitsSchema.nullable().default(null).meta({ description: 'Rate limits and quotas; null or omitted = the defaults.' }),
    ...planPdfFields,
  })
  .strict();

export type DefinePlan = z.infer<typeof definePlanSchema>;

export function decide(command: DefinePlan, plan: Plan | null, meta: CommandMeta & { id: number }): PlanEvent[] {
  if (plan) throw new Conflict(`Plan ${meta.id} already exists.`);
  refuseDisabledDefaultTemplate(planPdfSettingsOf(command));
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
