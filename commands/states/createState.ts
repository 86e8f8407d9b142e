import { z } from 'zod';
import type { StateEvent, StateRegion } from '../../src/catalogue/state.js';
import { slugSchema } from '../../src/catalogue/slug.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict } from '../../src/domain/errors.js';
import { singleLineText } from '../../src/catalogue/text.js';

export const countryCodeSchema = z
  .string()
  .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code in capitals')
  .meta({ description: 'ISO 3166-1 alpha-2 country code.', example: 'AE' });

export const createStateSchema = z
  .object({
    name: singleLineText(200, { min: 1 }),
    slug: slugSchema,
    country_code: countryCodeSchema,
  })
  .strict();

export type CreateState = z.infer<typeof createStateSchema>;

export function decide(command: CreateState, state: StateRegion | null, meta: CommandMeta & { id: number }): StateEvent[] {
  if (state) throw new Conflict(`State ${meta.id} already exists.`);
  return [{ type: 'StateCreated', data: { state_id: meta.id, ...command, at: meta.now } }];
}
