import { describe, expect, it } from 'vitest';
import { aedValuesIn, CURRENCY_RATES, currencyRatesProjection, currentRates } from '../../projections/currencyRates.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { currencyRateHistory } from '../support/currencyRateEvents.js';
import { projectInBatches, readModelOf, recorded } from '../support/projectionHarness.js';

const history = await recorded(currencyRateHistory());

async function projected() {
  const readStore = createEmbeddedReadStore();
  await projectInBatches(readStore, currencyRatesProjection, history, 3);
  return readStore;
}

describe('currency rates read model', () => {
  it('when the history is projected, then each currency holds its last rate (null once removed) and its revision', async () => {
    const readStore = await projected();
    expect(await readStore.get(CURRENCY_RATES, 'EUR')).toMatchObject({ code: 'EUR', per_aed: 0.2489, revision: 1 });
    expect(await readStore.get(CURRENCY_RATES, 'USD')).toMatchObject({ per_aed: null, revision: 1 });
    expect(await readStore.get(CURRENCY_RATES, 'SAR')).toBeNull();
  });

  it('when the rates in force are read, then editors’ rates win over pegs, a removed rate falls back to the peg or to none', async () => {
    const readStore = await projected();
    const { rates } = await currentRates(readStore);
    expect(rates).toEqual([
      { code: 'AED', per_aed: 1, source: 'base' },
      { code: 'USD', per_aed: 1 / 3.6725, source: 'peg' },
      { code: 'EUR', per_aed: 0.2489, source: 'editor' },
      { code: 'GBP', per_aed: 0.214, source: 'editor' },
      { code: 'SAR', per_aed: 3.75 / 3.6725, source: 'peg' },
      { code: 'INR', per_aed: null, source: null },
    ]);
    const values = await aedValuesIn(readStore);
    expect(Object.keys(values)).toEqual(['AED', 'USD', 'EUR', 'GBP', 'SAR']);
    expect(values.EUR).toBeCloseTo(1 / 0.2489, 12);
    expect(values.USD).toBeCloseTo(3.6725, 12);
  });

  it('when every event is applied twice, then the read model is the same as applying it once', async () => {
    const once = await projected();
    const twice = createEmbeddedReadStore();
    await projectInBatches(
      twice,
      currencyRatesProjection,
      history.flatMap((event) => [event, event]),
      5,
    );
    await projectInBatches(twice, currencyRatesProjection, history, 2);
    expect(await readModelOf(twice, [currencyRatesProjection])).toEqual(await readModelOf(once, [currencyRatesProjection]));
  });
});
