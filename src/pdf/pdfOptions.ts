/** The brochure designs; which of them a key may use depends on its plan. */
export const PDF_TEMPLATES = ['classic', 'editorial', 'minimal', 'bold'] as const;
export type PdfTemplate = (typeof PDF_TEMPLATES)[number];

/** The parts of a brochure a request may ask for, in the order they are printed. */
export const PDF_SECTIONS = ['cover', 'overview', 'gallery', 'floor_plans', 'payment_plans', 'amenities', 'location', 'agent'] as const;
export type PdfSection = (typeof PDF_SECTIONS)[number];

export const PDF_LANGUAGES = ['en', 'ar'] as const;
export type PdfLanguage = (typeof PDF_LANGUAGES)[number];

/**
 * Part of every brochure's fingerprint: raised whenever a design's output changes, so brochures cached from
 * an earlier design are rendered again instead of being reused.
 */
export const PDF_DESIGN_VERSION = 1;

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
