import { isDeepStrictEqual } from 'node:util';
import { ValidationFailed } from '../domain/errors.js';

/**
 * The part of a partial revision that differs from the current values. Revise events carry only real
 * changes, so a revision that repeats what is already there emits nothing.
 */
export function changedFields<Fields extends object>(current: Fields, requested: Partial<Fields>): Partial<Fields> {
  const changes: Partial<Fields> = {};
  for (const key of Object.keys(requested) as Array<keyof Fields>) {
    const value = requested[key];
    if (value !== undefined && !isDeepStrictEqual(value, current[key])) changes[key] = value;
  }
  return changes;
}

/** A revise command must name at least one field; an empty body is a client mistake, not a no-op. */
export function requireSomeField(requested: object): void {
  if (Object.values(requested).every((value) => value === undefined)) {
    throw new ValidationFailed({ body: 'names no field to change' });
  }
}

export const hasChanges = (changes: object): boolean => Object.keys(changes).length > 0;

/** How every partial revision behaves, for the API document. */
export const revisionDescription =
  'Only the fields to change, at least one. Fields equal to their current value are ignored; a revision that changes nothing writes nothing and answers the current state and revision.';
