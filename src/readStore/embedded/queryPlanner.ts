/*
 * Which documents a query starts from: all of an ordering, or those an equality lookup (on `_id` or a
 * declared index) gives when it narrows the collection well. `EmbeddedReadPlan` says which, for `explain`.
 */
import type { Condition, Doc, DocId, Filter, Scalar } from '../readStore.js';
import type { EqualityIndex } from './indexes.js';
import type { Ordering, Positions } from './ordering.js';

/** Below this share of the collection, equality-index candidates are filtered and ranked instead of a scan. */
const CANDIDATE_SHARE = 0.25;

/** How the embedded store answers a read: what `EmbeddedEngine.explain` reports. */
export interface EmbeddedReadPlan {
  /**
   * Where the matching starts: `_id` (the documents by id), `lookup <path>` (the documents an equality lookup
   * on `_id` or a declared index gives), `ordering` (every document of the sort's ordering), or `_id range`
   * (a readSequence page from the table's primary key, the collection having no mirror).
   */
  source: string;
  /**
   * The mirror's sort order the matches are walked in, named as an index (`name_1__id_1`); null when none is
   * walked (a read by id, or an `_id range` of the table).
   */
  ordering: string | null;
}

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
  const lookup = narrowingLookup(filter, docs, equalityIndexes);
  return lookup && ordering.positionsOf(lookup.docs);
}

/** The equality lookup a query starts from, when it narrows the collection well: its path and its documents. */
export function narrowingLookup(
  filter: Filter | undefined,
  docs: ReadonlyMap<DocId, Doc>,
  equalityIndexes: ReadonlyMap<string, EqualityIndex>,
): EqualityLookup | undefined {
  const lookup = equalityLookup(filter, docs, equalityIndexes);
  return lookup && lookup.docs.size < docs.size * CANDIDATE_SHARE ? lookup : undefined;
}

export interface EqualityLookup {
  /** `_id`, or the path of a declared index. */
  path: string;
  docs: Set<Doc>;
}

/** The lookup (on `_id` or a declared index) giving the smallest superset of the matches, if any applies. */
export function equalityLookup(
  filter: Filter | undefined,
  docs: ReadonlyMap<DocId, Doc>,
  equalityIndexes: ReadonlyMap<string, EqualityIndex>,
): EqualityLookup | undefined {
  let smallest: EqualityLookup | undefined;
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
    if (found && (!smallest || found.size < smallest.docs.size)) smallest = { path, docs: found };
  }
  return smallest;
}
