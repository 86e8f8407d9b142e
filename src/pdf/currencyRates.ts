import type { PdfCurrency } from './pdfOptions.js';

/**
 * How many AED one unit of each currency is worth. AED, USD (3.6725) and SAR (3.75 per USD) are pegged, so
 * their rates hold until a peg changes; a currency missing here has no rate yet, and a brochure asked in it
 * is refused with 422 naming `currency`.
 */
export const PEGGED_AED_RATES: Readonly<Partial<Record<PdfCurrency, number>>> = {
  AED: 1,
  USD: 3.6725,
  SAR: 3.6725 / 3.75,
};
