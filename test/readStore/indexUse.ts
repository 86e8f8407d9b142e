import type { ReadCall } from '../../src/readStore/readCall.js';
import {
  indexName,
  sequenceFilter,
  type Condition,
  type Filter,
  type IndexSpec,
  type SortDirection,
} from '../../src/readStore/readStore.js';

/*
 * Which declared indexes can serve a read, judged as MongoDB's query planner judges them: an index is a
 * candidate when the filter bounds its first key (an equality, `$in` or range condition on it), or when it
 * walks the documents in the sort's order. MongoDB scans the whole collection only when no index is a
 * candidate, so a read with a candidate is never a collection scan. A `find` also counts its matches, and a
 * count has no sort to follow: a `find` needs an index its filter bounds.
 */

/** The index every collection has. */
export const ID_INDEX: IndexSpec = { keys: [['_id', 1]] };
export const ID_INDEX_NAME = '_id_';

const nameOf = (spec: IndexSpec): string => (spec === ID_INDEX ? ID_INDEX_NAME : indexName(spec));

/** Whether the condition gives an index on its path bounds to scan between. */
function bounds(condition: Condition | undefined): boolean {
  if (condition === undefined) return false;
  if (condition === null || typeof condition !== 'object') return true;
  return ['$eq', '$in', '$gt', '$gte', '$lt', '$lte'].some((operator) => condition[operator as keyof typeof condition] !== undefined);
}

/** A plain equality: one value, so an index on the path holds its matches in the order of its later keys. */
function isEquality(condition: Condition | undefined): boolean {
  if (condition === undefined) return false;
  if (condition === null || typeof condition !== 'object') return true;
  return condition.$eq !== undefined && Object.values(condition).filter((operand) => operand !== undefined).length === 1;
}

/** The sort as the read store sends it: `_id` ascending appended as the tie-breaker when absent. */
export function sortOf(call: ReadCall): Array<[string, SortDirection]> {
  if (call.method === 'get' || call.method === 'getMany') return [];
  const sort = call.method === 'find' ? [...(call.options.sort ?? [])] : [];
  if (!sort.some(([field]) => field === '_id')) sort.push(['_id', 1]);
  return sort;
}

export function filterOf(call: ReadCall): Filter {
  switch (call.method) {
    case 'find':
      return call.options.filter ?? {};
    case 'findOne':
      return call.filter;
    case 'get':
      return { _id: call.id };
    case 'getMany':
      return { _id: { $in: call.ids } };
    case 'readSequence':
      return sequenceFilter(call.range);
  }
}

/** The indexes (declared, or `_id_`) whose first key the read's filter bounds. */
export function boundingIndexes(call: ReadCall, declared: readonly IndexSpec[]): string[] {
  const filter = filterOf(call);
  return [ID_INDEX, ...declared].filter((spec) => bounds(filter[spec.keys[0]![0]])).map(nameOf);
}

/**
 * The index that walks the read's matches in its sort order, if one does: after keys the filter holds to one
 * value, its next keys are the sort's, all in the sort's directions or all reversed.
 */
export function sortingIndex(call: ReadCall, declared: readonly IndexSpec[]): string | null {
  if (call.method === 'get' || call.method === 'getMany') return null;
  const filter = filterOf(call);
  const sort = sortOf(call);
  for (const spec of [ID_INDEX, ...declared]) {
    let start = 0;
    while (
      start < spec.keys.length &&
      isEquality(filter[spec.keys[start]![0]]) &&
      !sort.some(([field]) => field === spec.keys[start]![0])
    ) {
      start += 1;
    }
    const walked = spec.keys.slice(start, start + sort.length);
    if (walked.length < sort.length) continue;
    const same = walked.every(([field, direction], index) => field === sort[index]![0] && direction === sort[index]![1]);
    const reversed = walked.every(([field, direction], index) => field === sort[index]![0] && direction === -sort[index]![1]);
    if (same || reversed) return nameOf(spec);
  }
  return null;
}

/** Whether MongoDB has an index to serve the read (see the header): no collection scan. */
export function servedByIndex(call: ReadCall, declared: readonly IndexSpec[]): boolean {
  if (boundingIndexes(call, declared).length > 0) return true;
  return call.method === 'findOne' && sortingIndex(call, declared) !== null;
}

/** A filter value as the table shows it: what the code fixes (booleans) as it is, what a request chooses as `?`. */
function shownValue(value: unknown): string {
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return '[…]';
  if (value !== null && typeof value === 'object') {
    const operators = Object.entries(value).filter(([, operand]) => operand !== undefined);
    return `{${operators.map(([operator, operand]) => `${operator}: ${shownValue(operand)}`).join(', ')}}`;
  }
  return '?';
}

/** The read in one line, values left out: method, collection, filter, text, sort, paging. */
export function describeRead(call: ReadCall): string {
  switch (call.method) {
    case 'get':
      return `get ${call.collection} by _id`;
    case 'getMany':
      return `getMany ${call.collection} by _id`;
    case 'readSequence':
      return `readSequence ${call.collection} by _id range limit ?`;
    case 'findOne':
    case 'find': {
      const filter = Object.entries(filterOf(call)).filter(([, condition]) => condition !== undefined);
      const parts = [
        `${call.method} ${call.collection}`,
        `{${filter.map(([path, condition]) => `${path}: ${shownValue(condition)}`).join(', ')}}`,
      ];
      if (call.method === 'find' && call.options.text) parts.push('text ?');
      parts.push(`sort ${indexName({ keys: sortOf(call) })}`);
      if (call.method === 'find') {
        const { skip, limit } = call.options;
        if (skip) parts.push('skip ?');
        if (limit !== undefined) parts.push(limit === 0 ? 'count only' : 'limit ?');
      } else {
        parts.push('first');
      }
      return parts.join(' ');
    }
  }
}
