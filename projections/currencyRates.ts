import { evolveCurrencyRate, type CurrencyRate, type CurrencyRateEvent, type RatedCurrency } from '../src/pdf/currencyRate.js';
import { aedValuesOf, effectiveRates, type EffectiveRate } from '../src/pdf/currencyRates.js';
import { alreadyApplied, everyEventType, positionNumber, type PositionedDoc, type Projection } from '../src/projectionEngine/projection.js';
import type { ReadStore } from '../src/readStore/readStore.js';

export const CURRENCY_RATES = 'currency_rates';

/**
 * A currency's editor-set rate under its code, with its stream's revision (the admin ETag). A removed rate
 * stays as `per_aed: null`, so its events applied again find it and change nothing.
 */
export type CurrencyRateDoc = PositionedDoc & CurrencyRate & { _id: RatedCurrency; revision: number };

/** The rates editors keep, read by the brochure requests (prices in another currency) and the admin list. */
export const currencyRatesProjection: Projection<CurrencyRateEvent> = {
  name: 'currencyRates',
  version: 1,
  collections: [CURRENCY_RATES],
  indexes: {},
  handles: everyEventType<CurrencyRateEvent>({ CurrencyRateSet: true, CurrencyRateRemoved: true }),
  async apply(event, ctx) {
    const code = event.data.code;
    const current = await ctx.get<CurrencyRateDoc>(CURRENCY_RATES, code);
    if (alreadyApplied(current, event)) return;
    const rate = evolveCurrencyRate(current, event);
    if (!rate) return;
    ctx.put(CURRENCY_RATES, { ...rate, _id: code, revision: event.revision, _position: positionNumber(event) });
  },
};

/** Every brochure currency's rate as it stands: the editors' over the pegs (src/pdf/currencyRates.ts). */
export async function currentRates(readStore: ReadStore): Promise<{ rates: EffectiveRate[]; docs: CurrencyRateDoc[] }> {
  const { items } = await readStore.find<CurrencyRateDoc>(CURRENCY_RATES);
  const editorRates = Object.fromEntries(items.flatMap((doc) => (doc.per_aed === null ? [] : [[doc.code, doc.per_aed]])));
  return { rates: effectiveRates(editorRates), docs: items };
}

/** How many AED one unit of each currency with a rate is worth, as brochure requests convert prices. */
export async function aedValuesIn(readStore: ReadStore): Promise<Record<string, number>> {
  return aedValuesOf((await currentRates(readStore)).rates);
}
