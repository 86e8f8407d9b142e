import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';
import { PDF_CURRENCIES, type PdfCurrency } from './pdfOptions.js';

/**
 * The currencies whose rate editors keep: every brochure currency but AED, which is the base every rate is
 * quoted against (its rate is 1, always).
 */
export const RATED_CURRENCIES = PDF_CURRENCIES.filter((code): code is Exclude<PdfCurrency, 'AED'> => code !== 'AED');
export type RatedCurrency = (typeof RATED_CURRENCIES)[number];

export type CurrencyRateEvent =
  /** `per_aed`: how many units of `code` one AED buys (EUR about 0.25, INR about 22.7). */
  | DomainEvent<'CurrencyRateSet', { code: RatedCurrency; per_aed: number; at: string }>
  /** The rate is withdrawn: a pegged currency falls back to its peg, another one has no rate again. */
  | DomainEvent<'CurrencyRateRemoved', { code: RatedCurrency; at: string }>;

/** A currency's editor-set rate; `per_aed` is null once removed. The state is null before the first rate. */
export interface CurrencyRate {
  code: RatedCurrency;
  per_aed: number | null;
  updated_at: string;
}

/**
 * Aggregates are addressed by number, so a currency's is its ISO 4217 numeric code; its stream still reads
 * `currencyRate-EUR`.
 */
const ISO_NUMERIC_CODES: Record<RatedCurrency, number> = { USD: 840, EUR: 978, GBP: 826, SAR: 682, INR: 356 };

export const currencyRateId = (code: RatedCurrency): number => ISO_NUMERIC_CODES[code];

export function currencyOfRateId(id: number): RatedCurrency {
  const code = RATED_CURRENCIES.find((candidate) => ISO_NUMERIC_CODES[candidate] === id);
  if (code === undefined) throw new Error(`${id} is not the ISO 4217 number of a rated currency.`);
  return code;
}

export const currencyRateStream = (id: number): string => `currencyRate-${currencyOfRateId(id)}`;

export function evolveCurrencyRate(rate: CurrencyRate | null, event: CurrencyRateEvent): CurrencyRate | null {
  switch (event.type) {
    case 'CurrencyRateSet':
      return { code: event.data.code, per_aed: event.data.per_aed, updated_at: event.data.at };
    case 'CurrencyRateRemoved':
      return rate === null ? null : { ...rate, per_aed: null, updated_at: event.data.at };
    default:
      return assertNever(event);
  }
}

export const currencyRateAggregate: Aggregate<CurrencyRate | null, CurrencyRateEvent> = {
  category: 'currencyRate',
  streamName: currencyRateStream,
  initialState: () => null,
  evolve: evolveCurrencyRate,
};
