/*
 * Which documents a query starts from: all of an ordering, or those an equality lookup (on `_id` or a
 * declared index) gives when it narrows the collection well.
 */
import type { Condition, Doc, DocId, Filter, Scalar } from '../readStore.js';
import type { EqualityIndex } from './indexes.js';
import type { Ordering, Positions } from './ordering.js';

/** Below this share of the collection, equality-index candidates are filtered and ranked instead of a scan. */
const CANDIDATE_SHARE = 0.25;

/** The scalar values an equality condition accepts, when it can be answered from a lookup. */
function equalityValues(condition: Condition): readonly Scalar[] | undefined {
  if (condition === null || typeof condition !== 'object') return [condition];
  if (condition.$eq !== undefined) return [condition.$eq];
  if (Array.isArray(condition.$in)) return condition.$in;
  return undefined;
}

/** When an equality lookup narrows the collection well, where its documents sit in the ordering. */
export function candidatePositions(
  filter: Filter | undefined,
  docs: ReadonlyMap<DocId, Doc>,
  equalityIndexes: ReadonlyMap<string, EqualityIndex>,
  ordering: Ordering,
): Positions | undefined {
  const candidates = equalityCandidates(filter, docs, equalityIndexes);
  if (!candidates || candidates.size >= docs.size * CANDIDATE_SHARE) return undefined;
  return ordering.positionsOf(candidates);
}

/** The smallest superset an equality lookup (on `_id` or a declared index) gives, if any applies. */
export function equalityCandidates(
  filter: Filter | undefined,
  docs: ReadonlyMap<DocId, Doc>,
  equalityIndexes: ReadonlyMap<string, EqualityIndex>,
): Set<Doc> | undefined {
  let smallest: Set<Doc> | undefined;
  for (const [path, condition] of Object.entries(filter ?? {})) {
    if (condition === undefined) continue;
    const values = equalityValues(condition);
    if (!values) continue;
    let found: Set<Doc> | undefined;
    if (path === '_id') {
      found = new Set();
      for (const value of values) {
        const doc = value === null ? undefined : docs.get(value as DocId);
        if (doc) found.add(doc);
      }
    } else {
      found = equalityIndexes.get(path)?.lookup(values);
    }
    if (found && (!smallest || found.size < smallest.size)) smallest = found;
  }
  return smallest;
}
