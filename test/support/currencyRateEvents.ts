import { currencyRateId, currencyRateStream, type CurrencyRateEvent, type RatedCurrency } from '../../src/pdf/currencyRate.js';
import { minute, type StreamEvent } from './catalogueEvents.js';

export function currencyRateEvent(event: CurrencyRateEvent): StreamEvent {
  return { stream: currencyRateStream(currencyRateId(event.data.code)), event };
}

export const currencyRateSet = (code: RatedCurrency, per_aed: number, at = minute(0)): StreamEvent =>
  currencyRateEvent({ type: 'CurrencyRateSet', data: { code, per_aed, at } });

export const currencyRateRemoved = (code: RatedCurrency, at = minute(0)): StreamEvent =>
  currencyRateEvent({ type: 'CurrencyRateRemoved', data: { code, at } });

/** EUR set then changed, GBP set, USD's peg overridden then restored, INR set and removed. */
export function currencyRateHistory(): StreamEvent[] {
  return [
    currencyRateSet('EUR', 0.25, minute(1)),
    currencyRateSet('GBP', 0.214, minute(1)),
    currencyRateSet('USD', 0.2722, minute(2)),
    currencyRateSet('EUR', 0.2489, minute(3)),
    currencyRateSet('INR', 22.7, minute(3)),
    currencyRateRemoved('USD', minute(4)),
    currencyRateRemoved('INR', minute(5)),
  ];
}
