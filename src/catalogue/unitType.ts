import { assertNever, type Aggregate } from '../domain/decider.js';
import type { DomainEvent } from '../eventStore/eventStore.js';

/**
 * How a unit type counts bedrooms; each kind fixes what `bedrooms` may be (see bedroomsFitKind). The
 * public `bedroom_types` and `bedroom_range` of projects are derived from these pairs.
 */
export const unitTypeKinds = ['studio', 'bedrooms', 'bedrooms_or_more', 'other'] as const;
export type UnitTypeKind = (typeof unitTypeKinds)[number];

/** The folded UnitType; the aggregate's state is null before UnitTypeCreated. */
export interface UnitType {
  name: string;
  kind: UnitTypeKind;
  bedrooms: number | null;
  sort_order: number;
}

export type UnitTypeEvent =
  | DomainEvent<'UnitTypeCreated', UnitType & { unit_type_id: number; at: string }>
  | DomainEvent<'UnitTypeRevised', { unit_type_id: number; changes: Partial<UnitType>; at: string }>;

export const unitTypeStream = (id: number): string => `unitType-${id}`;

/** A studio is never 1 bedroom; "6+" is stored as 6; non-residential types have no bedroom count. */
export function bedroomsFitKind(kind: UnitTypeKind, bedrooms: number | null): boolean {
  switch (kind) {
    case 'studio':
      return bedrooms === 0;
    case 'bedrooms':
      return bedrooms !== null && Number.isInteger(bedrooms) && bedrooms >= 1 && bedrooms <= 5;
    case 'bedrooms_or_more':
      return bedrooms === 6;
    case 'other':
      return bedrooms === null;
    default:
      return assertNever(kind);
  }
}

export const bedroomsRuleFor: Record<UnitTypeKind, string> = {
  studio: 'must be 0 for a studio',
  bedrooms: 'must be an integer from 1 to 5 for kind bedrooms',
  bedrooms_or_more: 'must be 6 for kind bedrooms_or_more',
  other: 'must be null for kind other',
};

export function evolveUnitType(unitType: UnitType | null, event: UnitTypeEvent): UnitType | null {
  switch (event.type) {
    case 'UnitTypeCreated': {
      const { name, kind, bedrooms, sort_order } = event.data;
      return { name, kind, bedrooms, sort_order };
    }
    case 'UnitTypeRevised':
      return unitType && { ...unitType, ...event.data.changes };
    default:
      return assertNever(event);
  }
}

export const unitTypeAggregate: Aggregate<UnitType | null, UnitTypeEvent> = {
  category: 'unitType',
  streamName: unitTypeStream,
  initialState: () => null,
  evolve: evolveUnitType,
};
