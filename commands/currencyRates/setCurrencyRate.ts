import { z } from 'zod';
import type { CommandMeta } from '../../src/domain/decider.js';
import { currencyOfRateId, type CurrencyRate, type CurrencyRateEvent } from '../../src/pdf/currencyRate.js';

export const setCurrencyRateSchema = z
  .object({
    per_aed: z
      .number()
      .min(0.000001)
      .max(1_000_000)
      .meta({ description: 'How many units of the currency one AED buys (EUR about 0.25, INR about 22.7).', example: 0.25 }),
  })
  .strict();

export type SetCurrencyRate = z.infer<typeof setCurrencyRateSchema>;

/**
 * Sets (or replaces) the rate of the currency whose stream it is (the id is its ISO 4217 number); a pegged
 * currency's rate overrides its peg. Setting the rate it already has records nothing.
 */
export function decide(command: SetCurrencyRate, rate: CurrencyRate | null, meta: CommandMeta & { id: number }): CurrencyRateEvent[] {
  if (rate?.per_aed === command.per_aed) return [];
  return [{ type: 'CurrencyRateSet', data: { code: currencyOfRateId(meta.id), per_aed: command.per_aed, at: meta.now } }];
}
