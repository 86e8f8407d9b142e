import { z } from 'zod';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';
import { currencyOfRateId, type CurrencyRate, type CurrencyRateEvent } from '../../src/pdf/currencyRate.js';

export const removeCurrencyRateSchema = z.object({}).strict();

export type RemoveCurrencyRate = z.infer<typeof removeCurrencyRateSchema>;

/** Withdraws an editor's rate: a pegged currency is back at its peg, another one has no rate (its brochures get 422). */
export function decide(_command: RemoveCurrencyRate, rate: CurrencyRate | null, meta: CommandMeta & { id: number }): CurrencyRateEvent[] {
  const code = currencyOfRateId(meta.id);
  if (!rate || rate.per_aed === null) throw new NotFound(`No rate is set for ${code}.`);
  return [{ type: 'CurrencyRateRemoved', data: { code, at: meta.now } }];
}
