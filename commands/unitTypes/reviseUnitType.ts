import type { z } from 'zod';
import { changedFields, hasChanges, requireSomeField, revisionDescription } from '../../src/catalogue/changes.js';
import type { UnitType, UnitTypeEvent } from '../../src/catalogue/unitType.js';
import type { CommandMeta } from '../../src/domain/decider.js';
import { NotFound } from '../../src/domain/errors.js';
import { createUnitTypeSchema, refuseMismatchedBedrooms } from './createUnitType.js';

/** Every field is optional; kind and bedrooms must still fit together once the revision is applied. */
export const reviseUnitTypeSchema = createUnitTypeSchema.partial().strict().meta({ description: revisionDescription });

export type ReviseUnitType = z.infer<typeof reviseUnitTypeSchema>;

export function decide(command: ReviseUnitType, unitType: UnitType | null, meta: CommandMeta & { id: number }): UnitTypeEvent[] {
  if (!unitType) throw new NotFound(`Unit type ${meta.id} does not exist.`);
  requireSomeField(command);
  const changes = changedFields(unitType, command);
  if (!hasChanges(changes)) return [];
  const revised = { ...unitType, ...changes };
  refuseMismatchedBedrooms(revised.kind, revised.bedrooms);
  return [{ type: 'UnitTypeRevised', data: { unit_type_id: meta.id, changes, at: meta.now } }];
}
