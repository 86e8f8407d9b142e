import { isDeepStrictEqual } from 'node:util';

/** One field an event changed: its path in the record (`name`, `floor_plans.12.title`, `tokens.0.revoked_at`) and its values. */
export interface FieldChange {
  field: string;
  /** null where the field did not exist. */
  before: unknown;
  after: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function collect(before: unknown, after: unknown, path: string, changes: FieldChange[]): void {
  if (isDeepStrictEqual(before, after)) return;
  const at = (key: string | number) => (path === '' ? String(key) : `${path}.${key}`);
  if (isRecord(before) && isRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) collect(before[key], after[key], at(key), changes);
    return;
  }
  // Lists of the same length change item by item (a caption edited); a list that grew or shrank is shown whole.
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, index) => collect(item, after[index], at(index), changes));
    return;
  }
  changes.push({ field: path, before: before ?? null, after: after ?? null });
}

/**
 * The fields that differ between two states of a record, down to the leaves that changed, in the order of
 * the record's fields. A record that did not exist (null) is compared as one without fields, so the event
 * that created it lists each field with `before` null.
 */
export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  const changes: FieldChange[] = [];
  collect(isRecord(before) ? before : {}, isRecord(after) ? after : {}, '', changes);
  return changes;
}
