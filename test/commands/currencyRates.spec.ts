import { describe, expect, it } from 'vitest';
import { decide as removeCurrencyRate } from '../../commands/currencyRates/removeCurrencyRate.js';
import { decide as setCurrencyRate } from '../../commands/currencyRates/setCurrencyRate.js';
import { NotFound } from '../../src/domain/errors.js';
import { currencyRateAggregate, currencyRateId, currencyRateStream, type CurrencyRateEvent } from '../../src/pdf/currencyRate.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;
const EUR = { id: currencyRateId('EUR') };
const eurSet = (per_aed: number): CurrencyRateEvent => ({ type: 'CurrencyRateSet', data: { code: 'EUR', per_aed, at } });
const eurRemoved: CurrencyRateEvent = { type: 'CurrencyRateRemoved', data: { code: 'EUR', at } };

describe('currency rate streams', () => {
  it('when a rated currency is addressed, then its id is its ISO 4217 number and its stream is named by its code', () => {
    expect(currencyRateId('EUR')).toBe(978);
    expect(currencyRateStream(978)).toBe('currencyRate-EUR');
    expect(() => currencyRateStream(784)).toThrow(/not the ISO 4217 number of a rated currency/);
  });
});

describe('setCurrencyRate', () => {
  const spec = deciderSpec(currencyRateAggregate, setCurrencyRate);

  it('when a first rate is set, then CurrencyRateSet records it under the code of its stream', () => {
    spec
      .given([])
      .when({ per_aed: 0.25 }, EUR)
      .then([eurSet(0.25)]);
  });

  it('when the rate it has is set again, then nothing is recorded', () => {
    spec
      .given([eurSet(0.25)])
      .when({ per_aed: 0.25 }, EUR)
      .then([]);
  });

  it('when another rate is set, or a removed one set again, then the new rate is recorded', () => {
    spec
      .given([eurSet(0.25)])
      .when({ per_aed: 0.2489 }, EUR)
      .then([eurSet(0.2489)]);
    spec
      .given([eurSet(0.25), eurRemoved])
      .when({ per_aed: 0.25 }, EUR)
      .then([eurSet(0.25)]);
  });
});

describe('removeCurrencyRate', () => {
  const spec = deciderSpec(currencyRateAggregate, removeCurrencyRate);

  it('when a set rate is removed, then CurrencyRateRemoved is recorded', () => {
    spec
      .given([eurSet(0.25)])
      .when({}, EUR)
      .then([eurRemoved]);
  });

  it('when the currency has no rate set (never, or removed already), then 404 says so', () => {
    expect(spec.given([]).when({}, EUR).thenThrows(NotFound).message).toBe('No rate is set for EUR.');
    spec
      .given([eurSet(0.25), eurRemoved])
      .when({}, EUR)
      .thenThrows(NotFound);
  });
});
