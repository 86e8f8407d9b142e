/*
 * The in-memory mirror of one physical collection: its documents, frozen, with the lookups of its declared
 * indexes, its sorted orderings (which follow its writes: see ordering.ts) and its recent query results,
 * cached until the collection next changes. A lean mirror holds of each document only the fields its queries
 * read (see CollectionMirror.heldFields), and the whole documents it last handed out.
 */
import { indexName, type Doc, type DocId, type Filter, type IndexSpec } from '../readStore.js';
import { compileQuery } from './filter.js';
import { EqualityIndex, UniqueKeys, type DocChange } from './indexes.js';
import { Ordering, type Positions } from './ordering.js';
import { candidatePositions, equalityLookup, narrowingLookup, type EmbeddedReadPlan, type EqualityLookup } from './queryPlanner.js';
import { compareValues, type SortSpec } from './sortOrder.js';

/** Distinct queries (filter, text, sort) whose full, ordered match list each collection keeps. */
const RESULT_CACHE_SIZE = 64;

/**
 * Whole documents a lean mirror keeps once read twice, the most recently read first: a working set of details
 * and list pages is then parsed once, and keeps its identity (which the serialised representations are cached
 * by) while it stays in. About 30 MB of projects.
 */
const WHOLE_DOCUMENTS_KEPT = 8_000;
/**
 * Whole documents read once, kept until this many more have been: a client paging through the whole catalogue
 * (a full sync of the change feed) reads each document once, and passes through these without evicting the
 * working set above (the "2Q" replacement policy).
 */
const WHOLE_DOCUMENTS_ON_PROBATION = 2_000;

/** The field `text` searches (FindOptions.text). */
const SEARCH_FIELD = '_search';

/** The top-level field a (dotted) path reads. */
const headOf = (path: string): string => {
  const dot = path.indexOf('.');
  return dot === -1 ? path : path.slice(0, dot);
};

/** What a lean mirror of a collection with these declared indexes holds of each document. */
export function leanFields(specs: readonly IndexSpec[]): ReadonlySet<string> {
  return new Set(['_id', SEARCH_FIELD, ...specs.flatMap((spec) => spec.keys.map(([field]) => headOf(field)))]);
}

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
  /** The documents as the mirror holds them: whole, or for a lean mirror its held fields only. */
  readonly docs = new Map<DocId, Doc>();
  /** The collection version (collection_versions) the mirror reflects. */
  version = 0;
  private equalityIndexes = new Map<string, EqualityIndex>();
  private uniqueKeys = new UniqueKeys();
  private readonly orderings = new Map<string, Ordering>();
  private readonly results = new Map<string, Matches>();
  /** A lean mirror's whole documents read more than once, least recently read first. */
  private readonly wholeDocs = new Map<DocId, Doc>();
  /** Those read once, oldest first. */
  private readonly wholeDocsOnProbation = new Map<DocId, Doc>();

  constructor(
    readonly physical: string,
    readonly logical: string,
    /**
     * Undefined: the mirror holds whole documents. Otherwise the top-level fields it holds of each (leanFields):
     * at 200,000 projects whole documents took 0.7 GB of heap, and every young-generation collection pays for
     * the size of the old generation. Queries on other fields are answered by the engine from the table.
     */
    readonly heldFields?: ReadonlySet<string>,
  ) {}

  /** What the mirror keeps of a (frozen) document. */
  held(doc: Doc): Doc {
    if (!this.heldFields) return doc;
    const held: Doc = { _id: doc._id };
    for (const field of this.heldFields) if (Object.hasOwn(doc, field)) held[field] = doc[field];
    return Object.freeze(held);
  }

  /** The fields a query reads that the mirror does not hold (none for a mirror of whole documents). */
  missingFields(filter: Filter | undefined, text: string | undefined, sort: SortSpec): string[] {
    const heldFields = this.heldFields;
    if (!heldFields) return [];
    const read = [...Object.keys(filter ?? {}), ...sort.map(([field]) => field), ...(text ? [SEARCH_FIELD] : [])].map(headOf);
    return [...new Set(read.filter((field) => !heldFields.has(field)))];
  }

  /** A whole document a lean mirror handed out and still keeps; read a second time, it joins the working set. */
  keptWhole(id: DocId): Doc | undefined {
    const doc = this.wholeDocs.get(id) ?? this.wholeDocsOnProbation.get(id);
    if (doc) {
      this.wholeDocs.delete(id);
      this.wholeDocsOnProbation.delete(id);
      this.wholeDocs.set(id, doc);
      if (this.wholeDocs.size > WHOLE_DOCUMENTS_KEPT) this.wholeDocs.delete(this.wholeDocs.keys().next().value!);
    }
    return doc;
  }

  /** Keeps a whole document read (for the mirror's current version) for the first time. */
  keepWhole(doc: Doc): void {
    this.wholeDocsOnProbation.set(doc._id, doc);
    if (this.wholeDocsOnProbation.size > WHOLE_DOCUMENTS_ON_PROBATION) {
      this.wholeDocsOnProbation.delete(this.wholeDocsOnProbation.keys().next().value!);
    }
  }

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
    const doc = change.doc && this.held(change.doc);
    if (previous) {
      for (const index of this.equalityIndexes.values()) index.remove(previous);
      this.docs.delete(change.id);
    }
    if (doc) {
      this.docs.set(change.id, doc);
      for (const index of this.equalityIndexes.values()) index.add(doc);
    }
    this.wholeDocs.delete(change.id);
    this.wholeDocsOnProbation.delete(change.id);
    this.uniqueKeys.apply({ id: change.id, doc });
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
