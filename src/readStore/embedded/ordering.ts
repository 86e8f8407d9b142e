/*
 * Queries run column-wise: an ordering of the collection keeps, per path a query touches, the slot of each
 * document in that order. Each condition narrows the ascending list of surviving positions (all of them,
 * or those an equality index gave) in one tight loop; a range on the leading sort key cuts its run out by
 * binary search instead.
 *
 * Writes do not re-sort. The ordering notes which documents changed; before its next read it moves each one
 * out of and into its binary-searched place, in the documents and in every column alike: a few by splicing,
 * more in one merging pass. Past a share of the collection (see CATCH_UP_SHARE) the mirror drops it instead,
 * to be sorted afresh when next read.
 */
import type { Doc, DocId, SortDirection } from '../readStore.js';
import { Leaves, slotOf } from './documentPaths.js';
import { compareValues, sortDocs, sortKeyReader, typeRank, type SortSpec } from './sortOrder.js';

/** Ascending positions of documents in an ordering. */
export type Positions = Int32Array;

export type RangeOperator = '$gt' | '$gte' | '$lt' | '$lte';

/** A range condition, as a step announces it for binary search on the leading sort key. */
export interface RangeBound {
  path: string;
  operator: RangeOperator;
  bound: string | number;
}

/** One condition of a compiled query (see filter.ts). */
export interface QueryStep {
  /** Steps run cheapest and most selective first: equality, ranges, existence, negations, text. */
  order: number;
  /** Set on range conditions: on the ordering's leading sort key they narrow by binary search. */
  range?: RangeBound;
  narrow(ordering: Ordering, input: Positions, count: number, output: Positions): number;
}

/**
 * An ordering catches up with at most one changed document in CATCH_UP_SHARE of its size; past that the
 * mirror drops it and sorts afresh when it is next read, so an ordering nobody reads remembers little.
 * Catching up with a batch that size still costs a fraction of a fresh sort (README.md, "Orderings
 * through writes").
 */
export const CATCH_UP_SHARE = 16;

/** Up to this many moved documents, each is spliced out and in; beyond, one pass merges them all. */
const SPLICED_MOVES = 8;

/**
 * The steps of one query narrow positions from one scratch buffer into the other (queries run
 * synchronously, so one pair serves all); only the final positions are copied out, to be cached.
 */
const scratch = { even: new Int32Array(0), odd: new Int32Array(0) };

/** 0, 1, 2, ...: every ordering's "all positions" is a view of it, so it is never written once filled. */
let identity = new Int32Array(0);

function everyPosition(count: number): Positions {
  if (identity.length < count) identity = Int32Array.from({ length: Math.max(count, identity.length * 2) }, (_, position) => position);
  return identity.subarray(0, count);
}

const isMultiValued = (slot: unknown): boolean => slot instanceof Leaves || Array.isArray(slot);

const pathParts = (path: string): string[] | undefined => (path.includes('.') ? path.split('.') : undefined);

const searchTextOf = (doc: Doc): string | undefined => (typeof doc._search === 'string' ? doc._search.toLowerCase() : undefined);

/** The first index in [0, length) where `after` holds, `after` being false and then true along the indexes. */
function firstWhere(length: number, after: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (after(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * Where a key lies against a range condition in BSON order: -1 below the passing values, 0 passing, 1 above.
 * Ranges compare only within the bound's type; other types lie wholly below or above.
 */
function sideOfRange(key: unknown, { operator, bound }: RangeBound): number {
  const rank = typeRank(key);
  const boundRank = typeRank(bound);
  if (rank !== boundRank) return rank < boundRank ? -1 : 1;
  const order = compareValues(key, bound);
  switch (operator) {
    case '$gte':
      return order < 0 ? -1 : 0;
    case '$gt':
      return order <= 0 ? -1 : 0;
    case '$lte':
      return order > 0 ? 1 : 0;
    case '$lt':
      return order >= 0 ? 1 : 0;
  }
}

/** The whole collection in one sort order, with the query columns built on it so far. */
export class Ordering {
  private held: Doc[];
  private readonly columns = new Map<string, unknown[]>();
  private searchTexts: Array<string | undefined> | undefined;
  private positionOf: Map<Doc, number> | undefined;
  private readonly readers: ReadonlyArray<(doc: Doc) => unknown>;
  private readonly directions: readonly SortDirection[];
  private readonly leadingPath: string;
  /** Documents changed since the ordering last caught up, by id: the one it holds for that id (null: none). */
  private readonly changed = new Map<DocId, Doc | null>();
  /** Slots of the leading path holding several values (arrays, fanned-out paths); counted on first need. */
  private leadingMultiValued: number | undefined;

  constructor(
    private readonly sort: SortSpec,
    docs: Iterable<Doc>,
  ) {
    this.held = sortDocs(docs, sort);
    this.readers = sort.map(([field, direction]) => sortKeyReader(field, direction));
    this.directions = sort.map(([, direction]) => direction);
    this.leadingPath = sort[0]![0];
  }

  get docs(): readonly Doc[] {
    return this.held;
  }

  column(path: string): readonly unknown[] {
    let column = this.columns.get(path);
    if (!column) {
      const parts = pathParts(path);
      column = this.held.map((doc) => slotOf(doc, path, parts));
      this.columns.set(path, column);
    }
    return column;
  }

  searchColumn(): ReadonlyArray<string | undefined> {
    this.searchTexts ??= this.held.map(searchTextOf);
    return this.searchTexts;
  }

  /**
   * Notes that the document under `id` changed from `previous` (undefined: it is new). False when the
   * ordering has too many changes to catch up with cheaply, and should be dropped.
   */
  noteChange(id: DocId, previous: Doc | undefined): boolean {
    if (!this.changed.has(id)) this.changed.set(id, previous ?? null);
    return this.changed.size * CATCH_UP_SHARE <= this.held.length;
  }

  /** Moves the documents changed since the last catch-up to their places, given the collection's documents now. */
  catchUp(current: ReadonlyMap<DocId, Doc>): void {
    if (this.changed.size === 0) return;
    const leaving: Doc[] = [];
    const entering: Doc[] = [];
    for (const [id, held] of this.changed) {
      const now = current.get(id) ?? null;
      if (now === held) continue;
      if (held) leaving.push(held);
      if (now) entering.push(now);
    }
    this.changed.clear();
    if (leaving.length + entering.length === 0) return;
    this.positionOf = undefined;
    if (this.leadingMultiValued !== undefined) {
      const parts = pathParts(this.leadingPath);
      for (const doc of leaving) if (isMultiValued(slotOf(doc, this.leadingPath, parts))) this.leadingMultiValued--;
      for (const doc of entering) if (isMultiValued(slotOf(doc, this.leadingPath, parts))) this.leadingMultiValued++;
    }
    if (leaving.length + entering.length <= SPLICED_MOVES) {
      for (const doc of leaving) this.removeAt(this.positionOfHeld(doc));
      for (const doc of entering) this.insertAt(this.insertionPoint(doc), doc);
    } else {
      this.merge(leaving, entering);
    }
  }

  /** Positions of the given documents, ascending. */
  positionsOf(docs: ReadonlySet<Doc>): Positions {
    const positions = new Int32Array(docs.size);
    let index = 0;
    // A binary search per document beats building the lookup of every position when they are few.
    if (!this.positionOf && docs.size * Math.log2(this.held.length + 1) < this.held.length) {
      for (const doc of docs) positions[index++] = this.positionOfHeld(doc);
    } else {
      this.positionOf ??= new Map(this.held.map((doc, position) => [doc, position]));
      for (const doc of docs) positions[index++] = this.positionOf.get(doc)!;
    }
    return positions.sort();
  }

  /** The positions, out of `from` (all by default), of the documents passing every step. */
  select(steps: readonly QueryStep[], from?: Positions): Positions {
    let start = from ?? everyPosition(this.held.length);
    const remaining: QueryStep[] = [];
    for (const step of steps) {
      if (step.range?.path === this.leadingPath && this.leadingSingleValued()) start = this.withinRun(start, step.range);
      else remaining.push(step);
    }
    if (remaining.length === 0) return start;
    if (scratch.even.length < start.length) {
      scratch.even = new Int32Array(start.length);
      scratch.odd = new Int32Array(start.length);
    }
    let input = start;
    let count = start.length;
    for (let index = 0; index < remaining.length && count > 0; index++) {
      const output = index % 2 === 0 ? scratch.even : scratch.odd;
      count = remaining[index]!.narrow(this, input, count, output);
      input = output;
    }
    return input.slice(0, count);
  }

  /**
   * With single values only, a document passes a range on the leading path exactly when its sort key does,
   * and those keys lie in one run of the ordering.
   */
  private leadingSingleValued(): boolean {
    this.leadingMultiValued ??= this.column(this.leadingPath).filter(isMultiValued).length;
    return this.leadingMultiValued === 0;
  }

  /** The part of `input` (ascending positions) inside the run of leading sort keys passing `range`. */
  private withinRun(input: Positions, range: RangeBound): Positions {
    const read = this.readers[0]!;
    const direction = this.directions[0]!;
    const side = (position: number) => direction * sideOfRange(read(this.held[position]!), range);
    const from = firstWhere(this.held.length, (position) => side(position) >= 0);
    const to = firstWhere(this.held.length, (position) => side(position) > 0);
    return input.subarray(
      firstWhere(input.length, (index) => input[index]! >= from),
      firstWhere(input.length, (index) => input[index]! >= to),
    );
  }

  /** How `doc` sorts against the document at `position`: negative before it, 0 the same keys, positive after. */
  private compareTo(doc: Doc, keys: readonly unknown[], position: number): number {
    const other = this.held[position]!;
    if (other === doc) return 0;
    for (let index = 0; index < keys.length; index++) {
      const order = compareValues(keys[index], this.readers[index]!(other));
      if (order !== 0) return order * this.directions[index]!;
    }
    return 0;
  }

  /** Where `doc` would go: the first position whose document does not sort before it. */
  private insertionPoint(doc: Doc): number {
    const keys = this.readers.map((read) => read(doc));
    return firstWhere(this.held.length, (position) => this.compareTo(doc, keys, position) <= 0);
  }

  /** The position of a document the ordering holds; `_id` ends every sort, so its keys are unique. */
  private positionOfHeld(doc: Doc): number {
    const position = this.insertionPoint(doc);
    if (this.held[position] !== doc) throw new Error(`Ordering lost track of document ${JSON.stringify(doc._id)}`);
    return position;
  }

  private removeAt(position: number): void {
    this.held.splice(position, 1);
    for (const column of this.columns.values()) column.splice(position, 1);
    this.searchTexts?.splice(position, 1);
  }

  private insertAt(position: number, doc: Doc): void {
    this.held.splice(position, 0, doc);
    for (const [path, column] of this.columns) column.splice(position, 0, slotOf(doc, path, pathParts(path)));
    this.searchTexts?.splice(position, 0, searchTextOf(doc));
  }

  /**
   * Rewrites the documents and every column in one pass: the held positions minus the leaving ones, with the
   * entering documents (sorted among themselves, then each binary-searched among the held) at their places.
   */
  private merge(leaving: readonly Doc[], entering: readonly Doc[]): void {
    const leavingPositions = Int32Array.from(leaving, (doc) => this.positionOfHeld(doc)).sort();
    const sorted = sortDocs(entering, this.sort);
    const insertionPoints = sorted.map((doc) => this.insertionPoint(doc));
    // Each new position's source: a held position, or -(k + 1) for the k-th entering document.
    const sources = new Int32Array(this.held.length - leaving.length + entering.length);
    let written = 0;
    let nextLeaving = 0;
    let nextEntering = 0;
    for (let position = 0; position <= this.held.length; position++) {
      while (nextEntering < sorted.length && insertionPoints[nextEntering] === position) sources[written++] = -++nextEntering;
      if (position === this.held.length) break;
      if (leavingPositions[nextLeaving] === position) nextLeaving++;
      else sources[written++] = position;
    }
    const rewritten = <T>(old: readonly T[], valueOf: (doc: Doc) => T): T[] => {
      const values = new Array<T>(sources.length);
      for (let index = 0; index < sources.length; index++) {
        const source = sources[index]!;
        values[index] = source >= 0 ? old[source]! : valueOf(sorted[-source - 1]!);
      }
      return values;
    };
    for (const [path, column] of this.columns) {
      const parts = pathParts(path);
      this.columns.set(
        path,
        rewritten(column, (doc) => slotOf(doc, path, parts)),
      );
    }
    if (this.searchTexts) this.searchTexts = rewritten(this.searchTexts, searchTextOf);
    this.held = rewritten(this.held, (doc) => doc);
  }
}
