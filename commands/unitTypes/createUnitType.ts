import { z } from 'zod';
import {
  bedroomsFitKind,
  bedroomsRuleFor,
  unitTypeKinds,
  type UnitType,
  type UnitTypeEvent,
  type UnitTypeKind,
} from '../../src/catalogue/unitType.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { Conflict, ValidationFailed } from '../../src/domain/errors.js';
import { singleLineText } from '../../src/catalogue/text.js';

export const unitTypeKindSchema = z.enum(unitTypeKinds).meta({
  description:
    'studio: bedrooms 0; bedrooms: bedrooms 1..5; bedrooms_or_more: bedrooms 6 (shown as 6+); other: bedrooms null (offices, retail, duplex).',
});

export const createUnitTypeSchema = z
  .object({
    name: singleLineText(100, { min: 1 }).meta({ example: '2 Bedrooms' }),
    kind: unitTypeKindSchema,
    bedrooms: z.number().int().min(0).nullable().meta({ description: 'Must match kind (see kind).' }),
    sort_order: z.number().int().meta({ description: 'Position in catalog metadata unit_types, ascending.' }),
  })
  .strict();

export type CreateUnitType = z.infer<typeof createUnitTypeSchema>;

export function decide(command: CreateUnitType, unitType: UnitType | null, meta: CommandMeta & { id: number }): UnitTypeEvent[] {
  if (unitType) throw new Conflict(`Unit type ${meta.id} already exists.`);
  refuseMismatchedBedrooms(command.kind, command.bedrooms);
  return [{ type: 'UnitTypeCreated', data: { unit_type_id: meta.id, ...command, at: meta.now } }];
}

export function refuseMismatchedBedrooms(kind: UnitTypeKind, bedrooms: number | null): void {
  if (!bedroomsFitKind(kind, bedrooms)) throw new ValidationFailed({ 'body.bedrooms': bedroomsRuleFor[kind] });
}
