import { z } from 'zod';
import { PDF_TEMPLATES, type PdfTemplate } from './pdfOptions.js';

/** How many new brochures a client may have rendered (cached reuse costs none); per client, across its keys. */
export interface PdfLimits {
  /** Rolling 60 s. */
  per_minute: number;
  /** Per Asia/Dhaka calendar day. */
  daily: number;
  /** Per Asia/Dhaka calendar month. */
  monthly: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = { per_minute: 5, daily: 100, monthly: 1_000 };

const pdfCount = z.number().int().min(1).max(1_000_000_000);

export const pdfLimitsSchema = z
  .object({
    per_minute: pdfCount.meta({ description: 'New brochures per rolling minute (default 5).' }),
    daily: pdfCount.meta({ description: 'New brochures per Asia/Dhaka day (default 100).' }),
    monthly: pdfCount.meta({ description: 'New brochures per Asia/Dhaka month (default 1,000).' }),
  })
  .strict()
  .meta({ id: 'PdfLimits', description: 'PDF generation limits: how many new brochures may be rendered; a cached one costs none.' });

export const pdfTemplateSchema = z.enum(PDF_TEMPLATES);

/** Kept in the order of PDF_TEMPLATES, so equal sets are equal lists. */
export const pdfTemplateListSchema = z
  .array(pdfTemplateSchema)
  .min(1)
  .refine((templates) => new Set(templates).size === templates.length, 'must not repeat a design')
  .meta({ uniqueItems: true })
  .overwrite((templates) => PDF_TEMPLATES.filter((template) => templates.includes(template)));

/** What a plan says about brochures; null fields take the defaults. */
export interface PlanPdfSettings {
  /** The designs its clients may use; null = all of them. */
  pdf_templates: PdfTemplate[] | null;
  /** The design used when a request names none; null = the first enabled one. Must be enabled. */
  pdf_default_template: PdfTemplate | null;
  /** An extra final branding page on every brochure of its clients (off by default). */
  pdf_branding_page: boolean;
  /** null = DEFAULT_PDF_LIMITS. */
  pdf_limits: PdfLimits | null;
}

/** What a client may set over its plan's brochure settings; null = the plan's. */
export interface ClientPdfSettings {
  /** The account default design; used only while the plan enables it, else the plan's default applies. */
  pdf_default_template: PdfTemplate | null;
  pdf_limits: PdfLimits | null;
}

/** The settings a PlanDefined names; events recorded before plans had them name none: the defaults. */
export function planPdfSettingsOf(data: Partial<PlanPdfSettings>): PlanPdfSettings {
  return {
    pdf_templates: data.pdf_templates ?? null,
    pdf_default_template: data.pdf_default_template ?? null,
    pdf_branding_page: data.pdf_branding_page ?? false,
    pdf_limits: data.pdf_limits ?? null,
  };
}

/** A client's brochure settings as its requests use them, kept in the access read model. */
export interface EffectivePdfSettings {
  templates: PdfTemplate[];
  default_template: PdfTemplate;
  branding_page: boolean;
  limits: PdfLimits;
}

export function effectivePdfSettings(plan: Partial<PlanPdfSettings>, client: Partial<ClientPdfSettings>): EffectivePdfSettings {
  const templates = plan.pdf_templates ?? [...PDF_TEMPLATES];
  const enabled = (template: PdfTemplate | null | undefined): template is PdfTemplate => !!template && templates.includes(template);
  const defaultTemplate = [client.pdf_default_template, plan.pdf_default_template].find(enabled) ?? templates[0]!;
  return {
    templates,
    default_template: defaultTemplate,
    branding_page: plan.pdf_branding_page ?? false,
    limits: client.pdf_limits ?? plan.pdf_limits ?? DEFAULT_PDF_LIMITS,
  };
}

/** The problem with a plan's default design, or null: it must be one the plan enables. */
export function planDefaultTemplateProblem(settings: Pick<PlanPdfSettings, 'pdf_templates' | 'pdf_default_template'>): string | null {
  const { pdf_templates: templates, pdf_default_template: defaultTemplate } = settings;
  if (defaultTemplate === null || templates === null || templates.includes(defaultTemplate)) return null;
  return `must be one of the plan's pdf_templates (${templates.join(', ')})`;
}
