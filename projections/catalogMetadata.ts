import { assertNever } from '../src/domain/decider.js';
import { projectNatures, projectStatuses, type ProjectNature, type ProjectStatus } from '../src/catalogue/project.js';
import type { UnitTypeEvent, UnitTypeKind } from '../src/catalogue/unitType.js';
import { alreadyApplied, everyEventType, positionNumber, type PositionedDoc, type Projection } from '../src/projectionEngine/projection.js';

export const CATALOG_METADATA = 'catalog_metadata';
export const CATALOG_METADATA_ID = 'catalog';

export interface UnitTypeEntry {
  /** A string, as the project field `bedrooms` lists unit-type ids. */
  id: string;
  name: string;
  kind: UnitTypeKind;
  bedrooms: number | null;
  sort_order: number;
}

export interface CatalogMetadataDoc extends PositionedDoc {
  _id: typeof CATALOG_METADATA_ID;
  /** Ordered by sort_order, then id. */
  unit_types: UnitTypeEntry[];
  natures: readonly ProjectNature[];
  statuses: readonly ProjectStatus[];
  updated_at: string;
}

const byDisplayOrder = (a: UnitTypeEntry, b: UnitTypeEntry) => a.sort_order - b.sort_order || Number(a.id) - Number(b.id);

/** GET /catalog/metadata: one document listing the unit types (and the values of nature and status). */
export const catalogMetadataProjection: Projection<UnitTypeEvent> = {
  name: 'catalogMetadata',
  version: 2,
  collections: [CATALOG_METADATA],
  indexes: {},
  handles: everyEventType<UnitTypeEvent>({ UnitTypeCreated: true, UnitTypeRevised: true }),
  async apply(event, ctx) {
    const current = await ctx.get<CatalogMetadataDoc>(CATALOG_METADATA, CATALOG_METADATA_ID);
    if (alreadyApplied(current, event)) return;
    const id = String(event.data.unit_type_id);
    const others = (current?.unit_types ?? []).filter((unitType) => unitType.id !== id);
    let entry: UnitTypeEntry | undefined;
    switch (event.type) {
      case 'UnitTypeCreated': {
        const { name, kind, bedrooms, sort_order } = event.data;
        entry = { id, name, kind, bedrooms, sort_order };
        break;
      }
      case 'UnitTypeRevised': {
        const existing = current?.unit_types.find((unitType) => unitType.id === id);
        entry = existing && { ...existing, ...event.data.changes };
        break;
      }
      default:
        return assertNever(event);
    }
    if (!entry) return;
    ctx.put(CATALOG_METADATA, {
      _id: CATALOG_METADATA_ID,
      unit_types: [...others, entry].sort(byDisplayOrder),
      natures: projectNatures,
      statuses: projectStatuses,
      updated_at: event.data.at,
      _position: positionNumber(event),
    } satisfies CatalogMetadataDoc);
  },
};
