import { createHash } from 'node:crypto';
import { z } from 'zod';

/** The brochure designs; which of them a key may use depends on its plan. */
export const PDF_TEMPLATES = ['classic', 'editorial', 'minimal', 'bold'] as const;
export type PdfTemplate = (typeof PDF_TEMPLATES)[number];

/** How GET /v1/pdf-templates names and describes each design; `template` in a request matches key or name. */
export const PDF_TEMPLATE_DESCRIPTIONS: Record<PdfTemplate, { name: string; description: string }> = {
  classic: {
    name: 'Classic',
    description: 'Serif headings on white, a full-bleed cover picture and framed tables: the traditional agency brochure.',
  },
  editorial: { name: 'Editorial', description: 'Magazine layout: large display type, pull-out key facts and picture spreads.' },
  minimal: { name: 'Minimal', description: 'Quiet sans-serif pages with generous white space and thin rules.' },
  bold: { name: 'Bold', description: 'Dark cover, strong colour blocks and big figures for prices and handover.' },
};

/** The parts of a brochure a request may ask for, in the order they are printed. */
export const PDF_SECTIONS = ['cover', 'overview', 'gallery', 'floor_plans', 'payment_plans', 'amenities', 'location', 'agent'] as const;
export type PdfSection = (typeof PDF_SECTIONS)[number];

export const PDF_LANGUAGES = ['en', 'ar'] as const;
export type PdfLanguage = (typeof PDF_LANGUAGES)[number];

/**
 * The currencies a brochure may print prices in besides the project's own; their rates are kept by editors
 * (src/pdf/currencyRates.ts). AED, USD and SAR start at their pegs, the others once an editor sets them.
 */
export const PDF_CURRENCIES = ['AED', 'USD', 'EUR', 'GBP', 'SAR', 'INR'] as const;
export type PdfCurrency = (typeof PDF_CURRENCIES)[number];

/**
 * Part of every brochure's fingerprint: raised whenever a design's output changes, so brochures cached from
 * an earlier design are rendered again instead of being reused.
 */
export const PDF_DESIGN_VERSION = 2;

/** What the renderer needs to print one brochure; everything in it takes part in the fingerprint. */
export interface BrochureRequest {
  projectId: number;
  clientId: number;
  template: PdfTemplate;
  language: PdfLanguage;
  /** Prices are printed in `code`: one unit of the project's own currency is `rate` units of it (1 for the project's own). */
  currency: { code: string; rate: number };
  sections: readonly PdfSection[];
  /** Restricts floor plans and prices to these unit types; null prints them all. */
  unitTypeIds: readonly number[] | null;
  agentProfileId: number | null;
  brandingPage: boolean;
}

const agentProfileIdSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).meta({
  description: "An approved agent profile of the caller's account (GET /v1/agent-profiles): adds the agent page. Omitted: no agent page.",
});

const unique = <Item>(items: readonly Item[]) => new Set(items).size === items.length;

/** The optional JSON body of POST /v1/projects/{project}/pdf. */
export const pdfRequestBodySchema = z
  .object({
    agent_profile_id: agentProfileIdSchema.optional(),
    template: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: "A design's key or name, case-insensitive (GET /v1/pdf-templates). Omitted: the account's default design." }),
    language: z
      .enum(PDF_LANGUAGES)
      .default('en')
      .meta({ description: 'en: English; ar: Arabic, right to left. Names and free text stay as the catalogue has them.' }),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code')
      .transform((code) => code.toUpperCase())
      .optional()
      .meta({
        description: `Prices in the project's own currency (the default) or one of ${PDF_CURRENCIES.join(', ')}, converted at the rate editors keep.`,
      }),
    sections: z
      .array(z.enum(PDF_SECTIONS))
      .min(1)
      .refine(unique, 'must not repeat a section')
      .transform((sections) => PDF_SECTIONS.filter((section) => sections.includes(section)))
      .optional()
      // uniqueItems (here and on unit_types) states the refine in the document: a client or a proxy refuses a repeat too.
      .meta({
        description: 'The parts to print, in any order (they are printed in the listed order). Omitted: all of them.',
        uniqueItems: true,
      }),
    unit_types: z
      .array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER))
      .min(1)
      .max(100)
      .refine(unique, 'must not repeat a unit type')
      .transform((ids) => [...ids].sort((a, b) => a - b))
      .optional()
      .meta({
        description: "Unit-type ids of the project: floor plans and prices of these only. Omitted: all of the project's.",
        uniqueItems: true,
      }),
  })
  .strict()
  .meta({
    id: 'PdfRequest',
    description: 'Every field is optional; an empty body (or none) prints the whole brochure in the default design.',
  });

export type PdfRequestBody = z.infer<typeof pdfRequestBodySchema>;

export const pdfRequestQuerySchema = z
  .object({
    agent_profile_id: z.coerce
      .number()
      .pipe(agentProfileIdSchema)
      .optional()
      .meta({ description: 'Same as the body field; when both are given they must be equal.' }),
  })
  .strict();

/** The design `requested` names (key or name, case-insensitive), or null when it names none. */
export function templateNamed(requested: string): PdfTemplate | null {
  const wanted = requested.trim().toLowerCase();
  return PDF_TEMPLATES.find((template) => template === wanted || PDF_TEMPLATE_DESCRIPTIONS[template].name.toLowerCase() === wanted) ?? null;
}

/** Exactly what the contract lists as a brochure's fingerprint (States and transitions, "PDF (none or stale)"). */
export interface FingerprintParts {
  projectId: number;
  /**
   * The project's last update: its own `updated_at`, and the read-model positions of the project and of its
   * related resources (gallery, floor plans, payment plans, amenities), which a brochure prints too, so an
   * edit of any of them makes a new brochure.
   */
  projectUpdatedAt: string;
  projectRevision: number;
  template: PdfTemplate;
  brandingPage: boolean;
  agentProfile: { id: number; revision: number } | null;
  language: PdfLanguage;
  currency: { code: string; rate: number };
  sections: readonly PdfSection[];
  unitTypeIds: readonly number[] | null;
}

/** sha256 hex over the parts in a fixed order, with PDF_DESIGN_VERSION; equal requests have equal fingerprints. */
export function brochureFingerprint(parts: FingerprintParts): string {
  const canonical = JSON.stringify([
    'brochure',
    parts.projectId,
    parts.projectUpdatedAt,
    parts.projectRevision,
    parts.template,
    PDF_DESIGN_VERSION,
    parts.brandingPage,
    parts.agentProfile === null ? null : [parts.agentProfile.id, parts.agentProfile.revision],
    parts.language,
    parts.currency.code,
    parts.currency.rate,
    parts.sections,
    parts.unitTypeIds,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
