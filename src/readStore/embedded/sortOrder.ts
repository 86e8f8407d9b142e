/*
 * MongoDB's sort: the BSON comparison order across the JSON types, array sort keys, and `_id` as the final
 * tie-breaker.
 */
import type { Doc, FindOptions, SortDirection } from '../readStore.js';
import { leavesOf } from './documentPaths.js';

export type SortSpec = Array<[field: string, direction: SortDirection]>;

/** An empty array as a sort key: MongoDB orders it before null and missing. */
const EMPTY_ARRAY = Symbol('empty array');

/** MongoDB's cross-type order (BSON comparison order) for the JSON types a document holds. */
export function typeRank(value: unknown): number {
  if (value === undefined || value === null) return 1;
  switch (typeof value) {
    case 'number':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
    case 'symbol':
      return 0;
    default:
      return Array.isArray(value) ? 5 : 4;
  }
}

const sign = (difference: number): number => (difference < 0 ? -1 : difference > 0 ? 1 : 0);

export function compareValues(left: unknown, right: unknown): number {
  if (typeof left === 'number' && typeof right === 'number') return left < right ? -1 : left > right ? 1 : 0;
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  const rank = typeRank(left);
  const difference = rank - typeRank(right);
  if (difference !== 0) return sign(difference);
  switch (rank) {
    case 4:
      return compareObjects(left as Record<string, unknown>, right as Record<string, unknown>);
    case 5:
      return compareArrays(left as unknown[], right as unknown[]);
    case 8:
      return sign(Number(left) - Number(right));
    default:
      return 0;
  }
}

function compareArrays(left: readonly unknown[], right: readonly unknown[]): number {
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const order = compareValues(left[index], right[index]);
    if (order !== 0) return order;
  }
  return sign(left.length - right.length);
}

/** Field by field: the value's type, then the field name, then the value. */
function compareObjects(left: Record<string, unknown>, right: Record<string, unknown>): number {
  const leftKeys = Object.keys(left);
  const rightKeys = Object.keys(right);
  for (let index = 0; index < Math.min(leftKeys.length, rightKeys.length); index++) {
    const leftValue = left[leftKeys[index]!];
    const rightValue = right[rightKeys[index]!];
    const order =
      sign(typeRank(leftValue) - typeRank(rightValue)) ||
      compareValues(leftKeys[index], rightKeys[index]) ||
      compareValues(leftValue, rightValue);
    if (order !== 0) return order;
  }
  return sign(leftKeys.length - rightKeys.length);
}

/**
 * The value a document sorts by: MongoDB takes the smallest element of an array ascending and the largest
 * descending; missing sorts as null.
 */
export function sortKeyReader(path: string, direction: SortDirection): (doc: Doc) => unknown {
  const parts = path.includes('.') ? path.split('.') : undefined;
  const wanted = direction === 1 ? -1 : 1;
  const pick = (leaves: readonly unknown[]): unknown => {
    let best: unknown;
    let found = false;
    const consider = (value: unknown) => {
      if (!found || compareValues(value, best) === wanted) best = value;
      found = true;
    };
    for (const leaf of leaves) {
      if (!Array.isArray(leaf)) consider(leaf ?? null);
      else if (leaf.length === 0) consider(EMPTY_ARRAY);
      else for (const element of leaf) consider(element ?? null);
    }
    return best;
  };
  if (!parts) {
    return (doc) => {
      const value = doc[path];
      return Array.isArray(value) ? pick([value]) : (value ?? null);
    };
  }
  return (doc) => pick(leavesOf(doc, parts));
}

/** The caller's sort with `_id` ascending appended as the final tie-breaker. */
export function normalizeSort(sort: FindOptions['sort']): SortSpec {
  const spec: SortSpec = [];
  for (const [field, direction] of sort ?? []) {
    if (direction !== 1 && direction !== -1) throw new TypeError(`Sort direction of ${field} must be 1 or -1`);
    spec.push([field, direction]);
  }
  if (!spec.some(([field]) => field === '_id')) spec.push(['_id', 1]);
  return spec;
}

export function sortDocs(docs: Iterable<Doc>, spec: SortSpec): Doc[] {
  const readers = spec.map(([field, direction]) => sortKeyReader(field, direction));
  const directions = spec.map(([, direction]) => direction);
  const keyed = Array.from(docs, (doc) => ({ doc, keys: readers.map((read) => read(doc)) }));
  keyed.sort((left, right) => {
    for (let index = 0; index < directions.length; index++) {
      const order = compareValues(left.keys[index], right.keys[index]);
      if (order !== 0) return order * directions[index]!;
    }
    return 0;
  });
  return keyed.map(({ doc }) => doc);
}
