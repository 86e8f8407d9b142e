/*
 * The in-memory mirror of one physical collection: its documents, frozen, with the lookups of its declared
 * indexes, its sorted orderings (which follow its writes: see ordering.ts) and its recent query results,
 * cached until the collection next changes.
 */
import { indexName, type Doc, type DocId, type Filter, type IndexSpec } from '../readStore.js';
import { compileQuery } from './filter.js';
import { EqualityIndex, UniqueKeys, type DocChange } from './indexes.js';
import { Ordering, type Positions } from './ordering.js';
import { candidatePositions, equalityLookup, narrowingLookup, type EmbeddedReadPlan, type EqualityLookup } from './queryPlanner.js';
import { compareValues, type SortSpec } from './sortOrder.js';

/** Distinct queries (filter, text, sort) whose full, ordered match list each collection keeps. */
const RESULT_CACHE_SIZE = 64;

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const nested of Object.values(value)) deepFreeze(nested);
    Object.freeze(value);
  }
  return value;
}

export interface MirrorIndexes {
  equality: Map<string, EqualityIndex>;
  unique: UniqueKeys;
}

const BY_ID: SortSpec = [['_id', 1]];

interface Matches {
  ordering: Ordering;
  positions: Positions;
}

export class CollectionMirror {
  readonly docs = new Map<DocId, Doc>();
  /** The collection version (collection_versions) the mirror reflects. */
  version = 0;
  private equalityIndexes = new Map<string, EqualityIndex>();
  private uniqueKeys = new UniqueKeys();
  private readonly orderings = new Map<string, Ordering>();
  private readonly results = new Map<string, Matches>();

  constructor(
    readonly physical: string,
    readonly logical: string,
  ) {}

  /** Lookups for the declared indexes over the current documents (`enforce`: see UniqueKeys.build). */
  buildIndexes(specs: readonly IndexSpec[], enforce: boolean): MirrorIndexes {
    const equality = new Map<string, EqualityIndex>();
    for (const spec of specs) {
      for (const [field] of spec.keys) if (field !== '_id') equality.set(field, new EqualityIndex(field));
    }
    for (const doc of this.docs.values()) for (const index of equality.values()) index.add(doc);
    return { equality, unique: UniqueKeys.build(this.logical, specs, this.docs.values(), enforce) };
  }

  useIndexes(indexes: MirrorIndexes): void {
    this.equalityIndexes = indexes.equality;
    this.uniqueKeys = indexes.unique;
  }

  checkUnique(changes: readonly DocChange[]): void {
    this.uniqueKeys.check(changes);
  }

  /** Changes already committed (and checked by checkUnique or by the connection that wrote them). */
  apply(change: DocChange): void {
    const previous = this.docs.get(change.id);
    if (previous) {
      for (const index of this.equalityIndexes.values()) index.remove(previous);
      this.docs.delete(change.id);
    }
    if (change.doc) {
      this.docs.set(change.id, change.doc);
      for (const index of this.equalityIndexes.values()) index.add(change.doc);
    }
    this.uniqueKeys.apply(change);
    for (const [key, ordering] of this.orderings) if (!ordering.noteChange(change.id, previous)) this.orderings.delete(key);
    this.results.clear();
  }

  /** Every matching document, as positions in the sort's ordering; kept until the collection changes. */
  matching(filter: Filter | undefined, text: string | undefined, sort: SortSpec): Matches {
    const cacheKey = JSON.stringify([filter ?? {}, text ?? '', sort]);
    const cached = this.results.get(cacheKey);
    if (cached) {
      this.results.delete(cacheKey);
      this.results.set(cacheKey, cached);
      return cached;
    }
    const steps = compileQuery(filter, text);
    const ordering = this.ordering(sort);
    const matches = { ordering, positions: ordering.select(steps, candidatePositions(filter, this.docs, this.equalityIndexes, ordering)) };
    this.results.set(cacheKey, matches);
    if (this.results.size > RESULT_CACHE_SIZE) this.results.delete(this.results.keys().next().value!);
    return matches;
  }

  /** What `matching` starts from and walks for a query, without matching anything. */
  plan(filter: Filter | undefined, sort: SortSpec): EmbeddedReadPlan {
    const lookup = narrowingLookup(filter, this.docs, this.equalityIndexes);
    return { source: lookup ? `lookup ${lookup.path}` : 'ordering', ordering: indexName({ keys: sort }) };
  }

  /** The same for `first`. */
  firstPlan(filter: Filter): EmbeddedReadPlan {
    const exact = this.exactLookup(filter);
    return exact ? { source: `lookup ${exact.path}`, ordering: null } : this.plan(filter, BY_ID);
  }

  /** The matching document with the smallest `_id`. */
  first(filter: Filter): Doc | undefined {
    const exact = this.exactLookup(filter);
    if (exact) {
      let smallest: Doc | undefined;
      for (const doc of exact.docs) if (!smallest || compareValues(doc._id, smallest._id) < 0) smallest = doc;
      return smallest;
    }
    const ordering = this.ordering(BY_ID);
    const positions = ordering.select(
      compileQuery(filter, undefined),
      candidatePositions(filter, this.docs, this.equalityIndexes, ordering),
    );
    return positions.length === 0 ? undefined : ordering.docs[positions[0]!];
  }

  /**
   * One equality with a plain value on `_id` or an indexed path (a slug lookup on every request): the
   * lookup holds exactly the matching documents, so no query needs compiling or ordering.
   */
  private exactLookup(filter: Filter): EqualityLookup | undefined {
    const conditions = Object.values(filter);
    const only = conditions.length === 1 ? conditions[0] : undefined;
    if (typeof only !== 'string' && typeof only !== 'number' && typeof only !== 'boolean') return undefined;
    return equalityLookup(filter, this.docs, this.equalityIndexes);
  }

  private ordering(sort: SortSpec): Ordering {
    const key = JSON.stringify(sort);
    let ordering = this.orderings.get(key);
    if (!ordering) {
      ordering = new Ordering(sort, this.docs.values());
      this.orderings.set(key, ordering);
    } else {
      ordering.catchUp(this.docs);
    }
    return ordering;
  }
}
