import { describe, expect, it } from 'vitest';
import { decide as createUnitType, type CreateUnitType } from '../../commands/unitTypes/createUnitType.js';
import { decide as reviseUnitType } from '../../commands/unitTypes/reviseUnitType.js';
import { unitTypeAggregate, type UnitTypeEvent } from '../../src/catalogue/unitType.js';
import { deciderSpec, defaultMeta } from '../support/deciderSpec.js';

const at = defaultMeta.now;

const aUnitType = (overrides: Partial<CreateUnitType> = {}): CreateUnitType => ({
  name: '2 Bedrooms',
  kind: 'bedrooms',
  bedrooms: 2,
  sort_order: 20,
  ...overrides,
});

const created: UnitTypeEvent = { type: 'UnitTypeCreated', data: { unit_type_id: 1, ...aUnitType(), at: '2024-01-01T00:00:00.000Z' } };

describe('createUnitType', () => {
  const spec = deciderSpec(unitTypeAggregate, createUnitType);

  it.each([
    aUnitType({ name: 'Studio', kind: 'studio', bedrooms: 0 }),
    aUnitType({ name: '1 Bedroom', kind: 'bedrooms', bedrooms: 1 }),
    aUnitType({ name: '5 Bedrooms', kind: 'bedrooms', bedrooms: 5 }),
    aUnitType({ name: '6+ Bedrooms', kind: 'bedrooms_or_more', bedrooms: 6 }),
    aUnitType({ name: 'Office', kind: 'other', bedrooms: null }),
  ])('when a $kind unit type has $bedrooms bedrooms, then UnitTypeCreated is emitted', (command) => {
    spec
      .given([])
      .when(command, { id: 4 })
      .then([{ type: 'UnitTypeCreated', data: { unit_type_id: 4, ...command, at } }]);
  });

  it.each([
    { kind: 'studio', bedrooms: 1 },
    { kind: 'studio', bedrooms: null },
    { kind: 'bedrooms', bedrooms: 0 },
    { kind: 'bedrooms', bedrooms: 6 },
    { kind: 'bedrooms', bedrooms: null },
    { kind: 'bedrooms_or_more', bedrooms: 7 },
    { kind: 'other', bedrooms: 0 },
  ] as const)('when a $kind unit type has $bedrooms bedrooms, then it is refused naming body.bedrooms', (pair) => {
    const error = spec.given([]).when(aUnitType(pair)).thenThrows('VALIDATION_FAILED');
    expect(error).toMatchObject({ details: { fields: { 'body.bedrooms': expect.any(String) } } });
  });

  it('when the unit type already exists, then it is refused with CONFLICT', () => {
    spec.given([created]).when(aUnitType()).thenThrows('CONFLICT');
  });
});

describe('reviseUnitType', () => {
  const spec = deciderSpec(unitTypeAggregate, reviseUnitType);

  it('when name and sort order change, then UnitTypeRevised carries both', () => {
    spec
      .given([created])
      .when({ name: 'Two Bedrooms', sort_order: 25 })
      .then([{ type: 'UnitTypeRevised', data: { unit_type_id: 1, changes: { name: 'Two Bedrooms', sort_order: 25 }, at } }]);
  });

  it('when kind and bedrooms change together to a valid pair, then UnitTypeRevised carries both', () => {
    spec
      .given([created])
      .when({ kind: 'studio', bedrooms: 0 })
      .then([{ type: 'UnitTypeRevised', data: { unit_type_id: 1, changes: { kind: 'studio', bedrooms: 0 }, at } }]);
  });

  it('when only the kind changes and the stored bedrooms no longer fit, then it is refused naming body.bedrooms', () => {
    const error = spec.given([created]).when({ kind: 'studio' }).thenThrows('VALIDATION_FAILED');
    expect(error).toMatchObject({ details: { fields: { 'body.bedrooms': 'must be 0 for a studio' } } });
  });

  it('when only the bedrooms change within the kind, then it is accepted', () => {
    spec
      .given([created])
      .when({ bedrooms: 3 })
      .then([{ type: 'UnitTypeRevised', data: { unit_type_id: 1, changes: { bedrooms: 3 }, at } }]);
  });

  it('when nothing differs from the current values, then nothing is emitted', () => {
    spec.given([created]).when({ kind: 'bedrooms', bedrooms: 2 }).then([]);
  });

  it('when no field is given, then it is refused with VALIDATION_FAILED', () => {
    spec.given([created]).when({}).thenThrows('VALIDATION_FAILED');
  });

  it('when the unit type does not exist, then it is refused with NOT_FOUND', () => {
    spec.given([]).when({ name: 'Studio' }).thenThrows('NOT_FOUND');
  });
});
