import type { RatedCurrency } from './currencyRate.js';
import { PDF_CURRENCIES, type PdfCurrency } from './pdfOptions.js';

/**
 * USD (3.6725 AED) and SAR (3.75 per USD) are pegged to the dirham, so they have a rate without an editor
 * setting one: the peg, until an editor sets another (which wins) or removes theirs again (back to the peg).
 * Every other rated currency has a rate only once an editor sets it (src/pdf/currencyRate.ts); until then a
 * brochure asked in it is refused with 422 naming `currency`. Rates are `per_aed`: units one AED buys.
 */
export const PEGGED_PER_AED: Readonly<Partial<Record<RatedCurrency, number>>> = {
  USD: 1 / 3.6725,
  SAR: 3.75 / 3.6725,
};

/** Where a currency's rate comes from: AED is the base (1), a peg, an editor; null = it has none. */
export type RateSource = 'base' | 'peg' | 'editor';

export interface EffectiveRate {
  code: PdfCurrency;
  /** Units of `code` one AED buys; null = no rate. */
  per_aed: number | null;
  source: RateSource | null;
}

/** Every brochure currency's rate, from the rates editors set (by code) over the pegs. */
export function effectiveRates(editorRates: Readonly<Partial<Record<RatedCurrency, number>>>): EffectiveRate[] {
  return PDF_CURRENCIES.map((code): EffectiveRate => {
    if (code === 'AED') return { code, per_aed: 1, source: 'base' };
    const set = editorRates[code];
    if (set !== undefined) return { code, per_aed: set, source: 'editor' };
    const peg = PEGGED_PER_AED[code];
    return peg === undefined ? { code, per_aed: null, source: null } : { code, per_aed: peg, source: 'peg' };
  });
}

/** How many AED one unit of each currency with a rate is worth: what a brochure request converts prices with. */
export function aedValuesOf(rates: readonly EffectiveRate[]): Record<string, number> {
  return Object.fromEntries(rates.flatMap(({ code, per_aed }) => (per_aed === null ? [] : [[code, 1 / per_aed]])));
}
