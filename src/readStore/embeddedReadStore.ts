import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { createPrivateDatabaseFile } from '../dataDir.js';
import { assertNever } from '../domain/decider.js';
import { startTypeScriptWorker } from '../typeScriptWorker.js';
import { BUSY_TIMEOUT_MS, SCHEMA, WRITE_SQL } from './embedded/sqliteSchema.js';
import type { WriterBatch, WriterMessage, WriterReply, WriterSettings } from './embedded/writerProtocol.js';
import {
  DuplicateKeyError,
  indexName,
  type Checkpoint,
  type Condition,
  type Doc,
  type DocId,
  type Filter,
  type FindOptions,
  type FindResult,
  type GenerationStore,
  type IndexSpec,
  type ReadStore,
  type Scalar,
  type SortDirection,
  type WriteOp,
} from './readStore.js';

/*
 * Embedded read store. SQLite (WAL) is the durable copy: documents keyed by (physical collection, id), the
 * checkpoints, the logical -> physical aliases of blue/green generations, declared indexes and one version
 * counter per physical collection. Queries are answered from an in-memory mirror of each collection, with
 * sorted orderings, equality lookups and recent query results cached until the collection next changes.
 *
 * Documents in the mirror are frozen copies parsed from the stored JSON: a write replaces an object and
 * never mutates one, so `find`/`get` hand out the stored objects themselves (callers must not mutate them;
 * trying to throws a TypeError).
 *
 * Several processes may share the file (an API and a projector). Before answering, a store asks SQLite's
 * `PRAGMA data_version`, which changes only when another connection committed; then it re-reads aliases,
 * index declarations and collection versions, and reloads only the documents written since the version
 * its mirror holds.
 *
 * A generation writes physical collections named `<collection>@<generation>` and checkpoints scoped by its
 * id; promote points the aliases at them and moves the checkpoints to the live scope in one transaction.
 * Beginning a generation drops any unfinished one of the same collections (a rebuild that died).
 *
 * A file-backed store commits a generation's writes on a second connection in a worker thread (see
 * GenerationWriter), so that a rebuild projects the next page while SQLite writes, and waits for the WAL
 * checkpoints' fsyncs, on the other core. Such a write is checked (ids, unique keys) and serialised before
 * it resolves; it is committed, with its checkpoints, in the order written, before any later read of the
 * generation, its promote or its discard.
 */

/** Distinct queries (filter, text, sort) whose full, ordered match list each collection keeps. */
const RESULT_CACHE_SIZE = 64;
/** Below this share of the collection, equality-index candidates are filtered and ranked instead of a scan. */
const CANDIDATE_SHARE = 0.25;
/** The checkpoint scope of the live store; a generation's checkpoints are scoped by its id. */
const LIVE_SCOPE = '';

// ---------------------------------------------------------------------------------------------------------
// MongoDB value semantics on plain JSON documents
// ---------------------------------------------------------------------------------------------------------

type ValueTest = (value: unknown) => boolean;
type SortSpec = Array<[field: string, direction: SortDirection]>;

/** An empty array as a sort key: MongoDB orders it before null and missing. */
const EMPTY_ARRAY = Symbol('empty array');

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ARRAY_INDEX = /^\d+$/;

/**
 * The values a dotted path reaches, MongoDB style: an array met on the way fans out over its object
 * elements (and a numeric part also indexes it); a path that ends nowhere yields `undefined` (missing).
 * A value that is itself an array is returned as is; the tests look into it one level deep.
 */
function collectLeaves(value: unknown, parts: readonly string[], depth: number, out: unknown[]): void {
  if (depth === parts.length) {
    out.push(value);
    return;
  }
  const part = parts[depth]!;
  if (Array.isArray(value)) {
    if (ARRAY_INDEX.test(part) && Number(part) < value.length) collectLeaves(value[Number(part)], parts, depth + 1, out);
    for (const element of value) {
      if (isPlainObject(element)) collectLeaves(element[part], parts, depth + 1, out);
    }
    return;
  }
  if (isPlainObject(value)) {
    collectLeaves(value[part], parts, depth + 1, out);
    return;
  }
  out.push(undefined);
}

function leavesOf(doc: Doc, parts: readonly string[]): unknown[] {
  const out: unknown[] = [];
  collectLeaves(doc, parts, 0, out);
  if (out.length === 0) out.push(undefined);
  return out;
}

/** Several values one dotted path reaches in one document (through an array of objects). */
class Leaves {
  constructor(readonly values: readonly unknown[]) {}
}

/** What a path holds in one document, as a query column keeps it: the value, or Leaves when there are several. */
function slotOf(doc: Doc, path: string, parts: readonly string[] | undefined): unknown {
  if (!parts) return doc[path];
  let value: unknown = doc;
  for (let depth = 0; depth < parts.length; depth++) {
    if (Array.isArray(value)) {
      const leaves: unknown[] = [];
      collectLeaves(value, parts, depth, leaves);
      return leaves.length <= 1 ? leaves[0] : new Leaves(leaves);
    }
    if (!isPlainObject(value)) return undefined;
    value = value[parts[depth]!];
  }
  return value;
}

/** Any value in the slot passes `test`; the tests themselves look one level into array values. */
const slotPasses = (slot: unknown, test: ValueTest): boolean => (slot instanceof Leaves ? slot.values.some(test) : test(slot));

function equalsTest(expected: Scalar): ValueTest {
  if (expected === null) {
    return (value) => value === undefined || value === null || (Array.isArray(value) && value.includes(null));
  }
  return (value) => value === expected || (Array.isArray(value) && value.includes(expected));
}

function inTest(candidates: readonly Scalar[]): ValueTest {
  const wanted = new Set<unknown>(candidates);
  const wantsNull = wanted.has(null);
  return (value) => {
    if (Array.isArray(value)) return value.some((element) => wanted.has(element));
    return wanted.has(value) || (wantsNull && value === undefined);
  };
}

type RangeOperator = '$gt' | '$gte' | '$lt' | '$lte';

function compareToBound(operator: RangeOperator, value: string | number, bound: string | number): boolean {
  switch (operator) {
    case '$gt':
      return value > bound;
    case '$gte':
      return value >= bound;
    case '$lt':
      return value < bound;
    case '$lte':
      return value <= bound;
  }
}

/** Range operators compare only within a type (numbers with numbers, strings with strings), as MongoDB does. */
function rangeTest(operator: RangeOperator, bound: string | number): ValueTest {
  const type = typeof bound;
  const scalarTest = (value: unknown) => typeof value === type && compareToBound(operator, value as string | number, bound);
  return (value) => (Array.isArray(value) ? value.some(scalarTest) : scalarTest(value));
}

const existsTest: ValueTest = (value) => value !== undefined;

/*
 * Queries run column-wise: an ordering of the collection keeps, per path a query touches, the slot of each
 * document in that order. Each condition narrows the ascending list of surviving positions (all of them,
 * or those an equality index gave) in one tight loop.
 */

/** Ascending positions of documents in an ordering. */
type Positions = Int32Array;

/**
 * The steps of one query narrow positions from one scratch buffer into the other (queries run
 * synchronously, so one pair serves all); only the final positions are copied out, to be cached.
 */
const scratch = { even: new Int32Array(0), odd: new Int32Array(0) };

/** The whole collection in one sort order, with the query columns built on it so far. */
class Ordering {
  private readonly columns = new Map<string, readonly unknown[]>();
  private searchTexts: ReadonlyArray<string | undefined> | undefined;
  private everyPosition: Positions | undefined;
  private positionOf: Map<Doc, number> | undefined;

  constructor(readonly docs: readonly Doc[]) {}

  column(path: string): readonly unknown[] {
    let column = this.columns.get(path);
    if (!column) {
      const parts = path.includes('.') ? path.split('.') : undefined;
      column = this.docs.map((doc) => slotOf(doc, path, parts));
      this.columns.set(path, column);
    }
    return column;
  }

  searchColumn(): ReadonlyArray<string | undefined> {
    this.searchTexts ??= this.docs.map((doc) => (typeof doc._search === 'string' ? doc._search.toLowerCase() : undefined));
    return this.searchTexts;
  }

  /** Positions of the given documents, ascending. */
  positionsOf(docs: ReadonlySet<Doc>): Positions {
    this.positionOf ??= new Map(this.docs.map((doc, position) => [doc, position]));
    const positions = new Int32Array(docs.size);
    let index = 0;
    for (const doc of docs) positions[index++] = this.positionOf.get(doc)!;
    return positions.sort();
  }

  /** The positions, out of `from` (all by default), of the documents passing every step. */
  select(steps: readonly QueryStep[], from?: Positions): Positions {
    const start = from ?? (this.everyPosition ??= Int32Array.from(this.docs, (_, position) => position));
    if (steps.length === 0) return start;
    if (scratch.even.length < start.length) {
      scratch.even = new Int32Array(start.length);
      scratch.odd = new Int32Array(start.length);
    }
    let input = start;
    let count = start.length;
    for (let index = 0; index < steps.length && count > 0; index++) {
      const output = index % 2 === 0 ? scratch.even : scratch.odd;
      count = steps[index]!.narrow(this, input, count, output);
      input = output;
    }
    return input.slice(0, count);
  }
}

/**
 * Copies into `output` the positions, among the first `count` of `input`, whose slot in `column` passes;
 * answers how many it kept. Plain values are compared inline; arrays and multi-valued paths go through
 * the general tests.
 */
type Selection = (column: readonly unknown[], input: Positions, count: number, output: Positions) => number;

function equalsSelection(expected: Scalar, keep: boolean): Selection {
  const test = equalsTest(expected);
  return (column, input, count, output) => {
    let kept = 0;
    for (let index = 0; index < count; index++) {
      const position = input[index]!;
      const slot = column[position];
      const matches =
        (expected === null ? slot === undefined || slot === null : slot === expected) ||
        (typeof slot === 'object' && slot !== null && slotPasses(slot, test));
      if (matches === keep) output[kept++] = position;
    }
    return kept;
  };
}

function inSelection(candidates: readonly Scalar[]): Selection {
  const test = inTest(candidates);
  const wanted = new Set<unknown>(candidates);
  const wantsNull = wanted.has(null);
  return (column, input, count, output) => {
    let kept = 0;
    for (let index = 0; index < count; index++) {
      const position = input[index]!;
      const slot = column[position];
      const matches =
        wanted.has(slot) || (wantsNull && slot === undefined) || (typeof slot === 'object' && slot !== null && slotPasses(slot, test));
      if (matches) output[kept++] = position;
    }
    return kept;
  };
}

function rangeSelection(operator: RangeOperator, bound: string | number): Selection {
  const type = typeof bound;
  const test = rangeTest(operator, bound);
  return (column, input, count, output) => {
    let kept = 0;
    for (let index = 0; index < count; index++) {
      const position = input[index]!;
      const slot = column[position];
      const matches =
        typeof slot === type
          ? compareToBound(operator, slot as string | number, bound)
          : typeof slot === 'object' && slot !== null && slotPasses(slot, test);
      if (matches) output[kept++] = position;
    }
    return kept;
  };
}

function existsSelection(wanted: boolean): Selection {
  return (column, input, count, output) => {
    let kept = 0;
    for (let index = 0; index < count; index++) {
      const position = input[index]!;
      if (slotPasses(column[position], existsTest) === wanted) output[kept++] = position;
    }
    return kept;
  };
}

/** Over the lower-cased `_search` column. */
function textSelection(needle: string): Selection {
  return (texts, input, count, output) => {
    let kept = 0;
    for (let index = 0; index < count; index++) {
      const position = input[index]!;
      if ((texts[position] as string | undefined)?.includes(needle)) output[kept++] = position;
    }
    return kept;
  };
}

interface QueryStep {
  /** Steps run cheapest and most selective first: equality, ranges, existence, negations, text. */
  order: number;
  narrow(ordering: Ordering, input: Positions, count: number, output: Positions): number;
}

const onPath = (path: string, order: number, selection: Selection): QueryStep => ({
  order,
  narrow: (ordering, input, count, output) => selection(ordering.column(path), input, count, output),
});

function conditionSteps(path: string, condition: Condition): QueryStep[] {
  if (condition === null || typeof condition !== 'object') return [onPath(path, 0, equalsSelection(condition, true))];
  const steps: QueryStep[] = [];
  for (const [operator, operand] of Object.entries(condition)) {
    if (operand === undefined) continue;
    switch (operator) {
      case '$eq':
        steps.push(onPath(path, 0, equalsSelection(operand as Scalar, true)));
        break;
      case '$in':
        if (!Array.isArray(operand)) throw new TypeError(`$in on ${path} takes an array`);
        steps.push(onPath(path, 1, inSelection(operand as Scalar[])));
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (typeof operand !== 'number' && typeof operand !== 'string') {
          throw new TypeError(`${operator} on ${path} takes a number or a string, got ${JSON.stringify(operand)}`);
        }
        steps.push(onPath(path, 2, rangeSelection(operator, operand)));
        break;
      case '$exists':
        steps.push(onPath(path, 3, existsSelection(Boolean(operand))));
        break;
      case '$ne':
        steps.push(onPath(path, 4, equalsSelection(operand as Scalar, false)));
        break;
      default:
        throw new TypeError(`Unsupported filter operator ${operator} on ${path}`);
    }
  }
  return steps;
}

/** `text` is matched case-insensitively as a literal substring of `_search`; empty text matches everything. */
function compileQuery(filter: Filter | undefined, text: string | undefined): QueryStep[] {
  const steps: QueryStep[] = [];
  for (const [path, condition] of Object.entries(filter ?? {})) {
    if (condition !== undefined) steps.push(...conditionSteps(path, condition));
  }
  if (text) {
    const selection = textSelection(text.toLowerCase());
    steps.push({ order: 5, narrow: (ordering, input, count, output) => selection(ordering.searchColumn(), input, count, output) });
  }
  return steps.sort((left, right) => left.order - right.order);
}

/** MongoDB's cross-type order (BSON comparison order) for the JSON types a document holds. */
function typeRank(value: unknown): number {
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

function compareValues(left: unknown, right: unknown): number {
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
function sortKeyReader(path: string, direction: SortDirection): (doc: Doc) => unknown {
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
function normalizeSort(sort: FindOptions['sort']): SortSpec {
  const spec: SortSpec = [];
  for (const [field, direction] of sort ?? []) {
    if (direction !== 1 && direction !== -1) throw new TypeError(`Sort direction of ${field} must be 1 or -1`);
    spec.push([field, direction]);
  }
  if (!spec.some(([field]) => field === '_id')) spec.push(['_id', 1]);
  return spec;
}

function sortDocs(docs: Iterable<Doc>, spec: SortSpec): Doc[] {
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

/** The scalar keys an equality lookup files a document under: array elements, and null for missing. */
function equalityKeys(doc: Doc, path: string): Set<unknown> {
  const keys = new Set<unknown>();
  const leaves = path.includes('.') ? leavesOf(doc, path.split('.')) : [doc[path]];
  for (const leaf of leaves) {
    if (Array.isArray(leaf)) for (const element of leaf) keys.add(element);
    else keys.add(leaf ?? null);
  }
  return keys;
}

/** The scalar values an equality condition accepts, when it can be answered from a lookup. */
function equalityValues(condition: Condition): readonly Scalar[] | undefined {
  if (condition === null || typeof condition !== 'object') return [condition];
  if (condition.$eq !== undefined) return [condition.$eq];
  if (Array.isArray(condition.$in)) return condition.$in;
  return undefined;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const nested of Object.values(value)) deepFreeze(nested);
    Object.freeze(value);
  }
  return value;
}

/** Stored id: JSON keeps the number 1 and the string '1' apart, as MongoDB does. */
const idKey = (id: DocId): string => JSON.stringify(id);

function assertDocId(id: unknown, collection: string): asserts id is DocId {
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
    throw new TypeError(`Document _id in ${collection} must be a string or a finite number, got ${JSON.stringify(id)}`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// In-memory mirror of one physical collection
// ---------------------------------------------------------------------------------------------------------

class EqualityIndex {
  private readonly byValue = new Map<unknown, Set<Doc>>();

  constructor(readonly path: string) {}

  add(doc: Doc): void {
    for (const key of equalityKeys(doc, this.path)) {
      let docs = this.byValue.get(key);
      if (!docs) {
        docs = new Set();
        this.byValue.set(key, docs);
      }
      docs.add(doc);
    }
  }

  remove(doc: Doc): void {
    for (const key of equalityKeys(doc, this.path)) {
      const docs = this.byValue.get(key);
      docs?.delete(doc);
      if (docs?.size === 0) this.byValue.delete(key);
    }
  }

  lookup(values: readonly Scalar[]): Set<Doc> {
    if (values.length === 1) return this.byValue.get(values[0]) ?? new Set();
    const union = new Set<Doc>();
    for (const value of values) for (const doc of this.byValue.get(value) ?? []) union.add(doc);
    return union;
  }
}

class UniqueIndex {
  readonly name: string;
  /** Key -> id of the document holding it. */
  readonly owners = new Map<string, DocId>();
  /** Id -> its document's keys, so that a replaced or deleted document gives them up without being kept. */
  private readonly keysById = new Map<DocId, readonly string[]>();

  /** The field of an index on one top-level field. */
  private readonly singleField: string | undefined;

  constructor(
    readonly collection: string,
    readonly spec: IndexSpec,
  ) {
    this.name = indexName(spec);
    const field = spec.keys.length === 1 ? spec.keys[0]![0] : undefined;
    this.singleField = field === undefined || field.includes('.') ? undefined : field;
  }

  /** One key per combination of the values each field holds (MongoDB multikey); missing counts as null. */
  keysOf(doc: Doc): string[] {
    if (this.singleField !== undefined) {
      // The usual case (a slug): one top-level field holding one value, its own single combination.
      const value = doc[this.singleField];
      if (value === null || typeof value !== 'object') return [JSON.stringify([value ?? null])];
    }
    let combinations: unknown[][] = [[]];
    for (const [field] of this.spec.keys) {
      const values = [...equalityKeys(doc, field)];
      if (values.length === 0) values.push([]);
      combinations = combinations.flatMap((prefix) => values.map((value) => [...prefix, value]));
    }
    return combinations.map((combination) => JSON.stringify(combination));
  }

  keysHeldBy(id: DocId): readonly string[] | undefined {
    return this.keysById.get(id);
  }

  /** Records the document's keys; false when another document holds one of them (that key stays its). */
  add(doc: Doc): boolean {
    const keys = this.keysOf(doc);
    this.keysById.set(doc._id, keys);
    let added = true;
    for (const key of keys) {
      const owner = this.owners.get(key);
      if (owner !== undefined && owner !== doc._id) added = false;
      else this.owners.set(key, doc._id);
    }
    return added;
  }

  remove(id: DocId): void {
    for (const key of this.keysById.get(id) ?? []) if (this.owners.get(key) === id) this.owners.delete(key);
    this.keysById.delete(id);
  }
}

/** A change to one document: its new version, or null when deleted. */
interface DocChange {
  id: DocId;
  doc: Doc | null;
}

/**
 * The unique indexes of one collection, which is all a write needs to check: a collection this store only
 * writes (a rebuild's fresh generation) is guarded by its keys alone, without a mirror of its documents.
 */
class UniqueKeys {
  constructor(private readonly indexes: readonly UniqueIndex[] = []) {}

  get isEmpty(): boolean {
    return this.indexes.length === 0;
  }

  /**
   * `enforce` throws DuplicateKeyError when the documents violate an index; without it (documents already
   * committed) the first holder keeps a key.
   */
  static build(logical: string, specs: readonly IndexSpec[], docs: Iterable<Doc>, enforce: boolean): UniqueKeys {
    const indexes = specs.filter((spec) => spec.unique).map((spec) => new UniqueIndex(logical, spec));
    for (const doc of docs) {
      for (const index of indexes) if (!index.add(doc) && enforce) throw new DuplicateKeyError(logical, index.name);
    }
    return new UniqueKeys(indexes);
  }

  /** Throws DuplicateKeyError if applying the changes in order would break a unique index. */
  check(changes: readonly DocChange[]): void {
    for (const index of this.indexes) {
      const stagedOwners = new Map<string, DocId | null>();
      const stagedKeys = new Map<DocId, readonly string[]>();
      const ownerOf = (key: string) => (stagedOwners.has(key) ? stagedOwners.get(key) : index.owners.get(key));
      for (const { id, doc } of changes) {
        for (const key of stagedKeys.get(id) ?? index.keysHeldBy(id) ?? []) if (ownerOf(key) === id) stagedOwners.set(key, null);
        const keys = doc ? index.keysOf(doc) : [];
        for (const key of keys) {
          const owner = ownerOf(key);
          if (owner !== undefined && owner !== null && owner !== id) throw new DuplicateKeyError(index.collection, index.name);
          stagedOwners.set(key, id);
        }
        stagedKeys.set(id, keys);
      }
    }
  }

  /** A change already committed (and checked by `check` or by the connection that wrote it). */
  apply(change: DocChange): void {
    for (const index of this.indexes) {
      index.remove(change.id);
      if (change.doc) index.add(change.doc);
    }
  }
}

interface MirrorIndexes {
  equality: Map<string, EqualityIndex>;
  unique: UniqueKeys;
}

const BY_ID: SortSpec = [['_id', 1]];

interface Matches {
  ordering: Ordering;
  positions: Positions;
}

class CollectionMirror {
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
    this.orderings.clear();
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
    const matches = { ordering, positions: ordering.select(steps, this.candidatePositions(filter, ordering)) };
    this.results.set(cacheKey, matches);
    if (this.results.size > RESULT_CACHE_SIZE) this.results.delete(this.results.keys().next().value!);
    return matches;
  }

  /** The matching document with the smallest `_id`. */
  first(filter: Filter): Doc | undefined {
    // One equality with a plain value on `_id` or an indexed path (a slug lookup on every request): the
    // index holds exactly the matching documents, so no query needs compiling or ordering.
    const conditions = Object.values(filter);
    const only = conditions.length === 1 ? conditions[0] : undefined;
    if (typeof only === 'string' || typeof only === 'number' || typeof only === 'boolean') {
      const matches = this.candidates(filter);
      if (matches) {
        let smallest: Doc | undefined;
        for (const doc of matches) if (!smallest || compareValues(doc._id, smallest._id) < 0) smallest = doc;
        return smallest;
      }
    }
    const ordering = this.ordering(BY_ID);
    const positions = ordering.select(compileQuery(filter, undefined), this.candidatePositions(filter, ordering));
    return positions.length === 0 ? undefined : ordering.docs[positions[0]!];
  }

  /** When an equality lookup narrows the collection well, where its documents sit in the ordering. */
  private candidatePositions(filter: Filter | undefined, ordering: Ordering): Positions | undefined {
    const candidates = this.candidates(filter);
    if (!candidates || candidates.size >= this.docs.size * CANDIDATE_SHARE) return undefined;
    return ordering.positionsOf(candidates);
  }

  /** The smallest superset an equality lookup (on `_id` or a declared index) gives, if any applies. */
  private candidates(filter: Filter | undefined): Set<Doc> | undefined {
    let smallest: Set<Doc> | undefined;
    for (const [path, condition] of Object.entries(filter ?? {})) {
      if (condition === undefined) continue;
      const values = equalityValues(condition);
      if (!values) continue;
      let found: Set<Doc> | undefined;
      if (path === '_id') {
        found = new Set();
        for (const value of values) {
          const doc = value === null ? undefined : this.docs.get(value as DocId);
          if (doc) found.add(doc);
        }
      } else {
        found = this.equalityIndexes.get(path)?.lookup(values);
      }
      if (found && (!smallest || found.size < smallest.size)) smallest = found;
    }
    return smallest;
  }

  private ordering(sort: SortSpec): Ordering {
    const key = JSON.stringify(sort);
    let ordering = this.orderings.get(key);
    if (!ordering) {
      ordering = new Ordering(sortDocs(this.docs.values(), sort));
      this.orderings.set(key, ordering);
    }
    return ordering;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The generation writer: a generation's commits on their own connection, in a worker thread
// ---------------------------------------------------------------------------------------------------------

/**
 * The writer thread's nice value (Linux). A rebuild keeps three threads busy on what may be two cores: the
 * one projecting, which the rebuild waits for, and the log reader and this writer, which are ahead of it
 * and can wait. As equals, the scheduler had the projecting thread wait for a core a quarter of its time;
 * below it, they take what it leaves, and the writer still catches up whenever the projecting thread waits
 * for it (a full queue, a read of the generation, its promotion).
 */
const HELPER_THREAD_NICENESS = 10;

/** Serialised documents in flight past which a write waits for the writer, so a slow disk cannot pile up memory. */
const WRITER_MAX_IN_FLIGHT_CHARS = 32 * 1024 * 1024;

/**
 * Commits made through the connections of this process, by database file. A read (and a generation's
 * queued write) looks for other connections' commits (PRAGMA data_version) once per event-loop turn, and
 * again within the turn only when this count moved: asking on every read cost a sixth of a project
 * request's CPU. So a read sees every commit of this process, and every commit of another process made
 * before the turn's first look.
 */
const commitsInProcess = new Map<string, number>();

function announceCommit(file: string): void {
  commitsInProcess.set(file, (commitsInProcess.get(file) ?? 0) + 1);
}

/**
 * Commits generations' writes on a connection of its own, in a worker thread. Replies come back in the
 * order batches were sent, so the sizes in flight are a queue. The thread holds the process open only
 * while batches are in flight.
 */
class GenerationWriter {
  private readonly worker: Worker;
  private readonly inFlight: Array<{ generation: string; chars: number }> = [];
  private inFlightChars = 0;
  private readonly failures = new Map<string, Error>();
  private crash: Error | undefined;
  private waiters: Array<() => void> = [];

  constructor(private readonly file: string) {
    const settings: WriterSettings = { file, busyTimeoutMs: BUSY_TIMEOUT_MS, niceness: HELPER_THREAD_NICENESS };
    this.worker = startTypeScriptWorker(new URL('./embedded/writerThread.ts', import.meta.url), { workerData: settings });
    this.worker.unref();
    this.worker.on('message', (reply: WriterReply) => this.replied(reply));
    this.worker.on('error', (error) => this.crashed(error));
    this.worker.on('exit', (code) => this.crashed(new Error(`The generation writer thread exited (code ${code})`)));
  }

  /** Throws what keeps the generation from being written: a failed batch of it, or the thread's end. */
  assertWritable(generation: string): void {
    const failure = this.crash ?? this.failures.get(generation);
    if (failure) throw failure;
  }

  get broken(): boolean {
    return this.crash !== undefined;
  }

  hasInFlight(generation: string): boolean {
    return this.inFlight.some((batch) => batch.generation === generation);
  }

  send(batch: WriterBatch, chars: number): void {
    this.assertWritable(batch.generation);
    if (this.inFlight.length === 0) this.worker.ref();
    this.worker.postMessage(batch, [batch.rowPhysicals.buffer, batch.idLengths.buffer, batch.docEnds.buffer, batch.docs.buffer]);
    this.inFlight.push({ generation: batch.generation, chars });
    this.inFlightChars += chars;
  }

  /** Resolves once the serialised documents in flight are below the bound. */
  async room(): Promise<void> {
    while (this.inFlightChars > WRITER_MAX_IN_FLIGHT_CHARS && !this.crash) await this.nextReply();
  }

  /** Resolves once every batch of the generation is committed; rejects with its failure. */
  async settled(generation: string): Promise<void> {
    while (this.hasInFlight(generation) && !this.crash) await this.nextReply();
    this.assertWritable(generation);
  }

  /** Resolves once nothing is in flight, whatever became of it. */
  async idle(): Promise<void> {
    while (this.inFlight.length > 0 && !this.crash) await this.nextReply();
  }

  forget(generation: string): void {
    this.failures.delete(generation);
  }

  async close(): Promise<void> {
    await this.idle();
    if (this.crash) return;
    const exited = once(this.worker, 'exit');
    // Unreferenced while idle, the thread would otherwise let the process exit before close resolves.
    this.worker.ref();
    this.worker.postMessage(null satisfies WriterMessage);
    await exited;
  }

  private nextReply(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private replied(reply: WriterReply): void {
    announceCommit(this.file);
    const batch = this.inFlight.shift();
    if (batch) this.inFlightChars -= batch.chars;
    if (reply.error) this.failures.set(reply.generation, Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    if (this.inFlight.length === 0) this.worker.unref();
    this.wake();
  }

  private crashed(error: Error): void {
    this.crash ??= error;
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}

// ---------------------------------------------------------------------------------------------------------
// The engine: one SQLite connection, the mirrors, and the views (live store, generations) on them
// ---------------------------------------------------------------------------------------------------------

/** The unique keys of a physical collection without a mirror, as of its collection version. */
interface KeyGuard {
  readonly logical: string;
  readonly keys: UniqueKeys;
  version: number;
}

/** Where a store reads and writes: the live collections, or a generation's own ones. */
interface StoreView {
  physicalOf(collection: string): string;
  readonly checkpointScope: string;
  assertUsable(): void;
}

class Generation implements StoreView {
  finished = false;
  /** The writer thread its writes are queued on (file-backed stores), from its first queued write. */
  writer: GenerationWriter | undefined;
  /**
   * Unique keys of its own collections for queued writes, ahead of the table by what is in flight; keyed
   * by physical collection, with the unique index specs they were built for.
   */
  readonly keys = new Map<string, { signature: string; keys: UniqueKeys }>();

  constructor(
    readonly id: string,
    /** Logical collection -> this generation's physical collection. */
    readonly physicals: ReadonlyMap<string, string>,
    private readonly engine: EmbeddedEngine,
  ) {}

  get checkpointScope(): string {
    return this.id;
  }

  physicalOf(collection: string): string {
    return this.physicals.get(collection) ?? this.engine.physicalOf(collection);
  }

  assertUsable(): void {
    this.engine.assertUsable();
    if (this.finished) throw new Error(`Generation ${this.id} is finished (promoted, discarded or closed)`);
  }
}

const newGenerationId = (): string => `g${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;

function validateIndexSpec(collection: string, spec: IndexSpec): void {
  if (spec.keys.length === 0) throw new TypeError(`An index on ${collection} needs at least one key`);
  for (const [field, direction] of spec.keys) {
    if (direction !== 1 && direction !== -1) throw new TypeError(`Index direction of ${collection}.${field} must be 1 or -1`);
  }
}

type Statements = ReturnType<typeof prepareStatements>;

function prepareStatements(db: Database.Database) {
  return {
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    ping: db.prepare<[], number>('SELECT 1').pluck(),
    aliases: db.prepare<[], [string, string]>('SELECT logical, physical FROM aliases').raw(),
    upsertAlias: db.prepare<[string, string]>(
      'INSERT INTO aliases (logical, physical) VALUES (?, ?) ON CONFLICT (logical) DO UPDATE SET physical = excluded.physical',
    ),
    declaredIndexes: db
      .prepare<[], [string, string, string]>('SELECT collection, name, spec FROM declared_indexes ORDER BY collection, name')
      .raw(),
    insertIndex: db.prepare<[string, string, string]>('INSERT OR REPLACE INTO declared_indexes (collection, name, spec) VALUES (?, ?, ?)'),
    versions: db.prepare<[], [string, number]>('SELECT collection, version FROM collection_versions').raw(),
    versionOf: db.prepare<[string], number>('SELECT version FROM collection_versions WHERE collection = ?').pluck(),
    bumpVersion: db.prepare<[string], number>(WRITE_SQL.bumpVersion).pluck(),
    deleteVersion: db.prepare<[string]>('DELETE FROM collection_versions WHERE collection = ?'),
    docs: db.prepare<[string], string>('SELECT doc FROM documents WHERE collection = ?').pluck(),
    docsSince: db.prepare<[string, number], string>('SELECT doc FROM documents WHERE collection = ? AND version > ?').pluck(),
    countDocs: db.prepare<[string], number>('SELECT COUNT(*) FROM documents WHERE collection = ?').pluck(),
    docIds: db.prepare<[string], string>('SELECT id FROM documents WHERE collection = ?').pluck(),
    upsertDoc: db.prepare<[string, string, number, string]>(WRITE_SQL.upsertDoc),
    deleteDoc: db.prepare<[string, string]>(WRITE_SQL.deleteDoc),
    dropDocs: db.prepare<[string]>('DELETE FROM documents WHERE collection = ?'),
    checkpoint: db.prepare<[string, string], string>('SELECT position FROM checkpoints WHERE scope = ? AND name = ?').pluck(),
    upsertCheckpoint: db.prepare<[string, string, string]>(WRITE_SQL.upsertCheckpoint),
    promoteCheckpoints: db.prepare<[string, string]>(
      `INSERT INTO checkpoints (scope, name, position) SELECT ?, name, position FROM checkpoints WHERE scope = ?
       ON CONFLICT (scope, name) DO UPDATE SET position = excluded.position`,
    ),
    dropCheckpoints: db.prepare<[string]>('DELETE FROM checkpoints WHERE scope = ?'),
    pendingOf: db.prepare<[string], [string, string]>('SELECT physical, logical FROM pending_generations WHERE generation = ?').raw(),
    pendingGenerationsOf: db.prepare<[string], string>('SELECT DISTINCT generation FROM pending_generations WHERE logical = ?').pluck(),
    insertPending: db.prepare<[string, string, string]>('INSERT INTO pending_generations (physical, logical, generation) VALUES (?, ?, ?)'),
    dropPending: db.prepare<[string]>('DELETE FROM pending_generations WHERE generation = ?'),
  };
}

/** Ids and checkpoints validated, documents serialised, before any lock is taken; `json` undefined means a delete. */
function prepareWrite(ops: readonly WriteOp[], checkpoints: readonly Checkpoint[]) {
  const prepared = ops.map((op) => {
    switch (op.op) {
      case 'put':
        assertDocId(op.doc._id, op.collection);
        return { collection: op.collection, id: op.doc._id, doc: op.doc, json: JSON.stringify(op.doc) };
      case 'delete':
        assertDocId(op.id, op.collection);
        return { collection: op.collection, id: op.id, doc: null, json: undefined };
      default:
        return assertNever(op);
    }
  });
  for (const checkpoint of checkpoints) assertCheckpoint(checkpoint);
  return prepared;
}

function assertCheckpoint(checkpoint: Checkpoint): void {
  if (typeof checkpoint.position !== 'bigint') throw new TypeError(`Checkpoint ${checkpoint.name} position must be a bigint`);
}

const utf8 = new TextEncoder();

/**
 * The documents' JSON in UTF-8, back to back, and where each ends (-1 for a delete): the body of a
 * WriterBatch. Room is made for what JSON of mostly ASCII takes (uninitialised: every byte up to the last
 * end is written), and more only when a document needs it; the room left over goes along unread.
 */
function encodeDocs(jsons: ReadonlyArray<string | undefined>, chars: number): { docs: Uint8Array<ArrayBuffer>; docEnds: Int32Array<ArrayBuffer> } {
  let docs = uninitialisedBytes(chars + (chars >> 3) + 64);
  const docEnds = new Int32Array(jsons.length);
  let end = 0;
  for (let row = 0; row < jsons.length; row++) {
    const json = jsons[row];
    if (json === undefined) {
      docEnds[row] = -1;
      continue;
    }
    let { read, written } = utf8.encodeInto(json, docs.subarray(end));
    end += written;
    while (read < json.length) {
      // A character takes at most 3 bytes in UTF-8 (a surrogate pair 4, for its 2 characters).
      const grown = uninitialisedBytes(Math.max(docs.length * 2, end + (json.length - read) * 3));
      grown.set(docs.subarray(0, end));
      docs = grown;
      const rest = utf8.encodeInto(json.slice(read), docs.subarray(end));
      read += rest.read;
      end += rest.written;
    }
    docEnds[row] = end;
  }
  return { docs, docEnds };
}

/** A byte array of its own buffer (so that it can be transferred), not zeroed first. */
function uninitialisedBytes(length: number): Uint8Array<ArrayBuffer> {
  const bytes = Buffer.allocUnsafeSlow(length);
  return new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length);
}

class EmbeddedEngine implements StoreView {
  readonly checkpointScope = LIVE_SCOPE;
  private readonly db: Database.Database;
  private closed = false;
  private dataVersion: number;
  /** See commitsInProcess. */
  private lookedThisTurn = false;
  private commitsSeen = -1;
  private aliases = new Map<string, string>();
  /** Logical collection -> declared indexes by name, as stored in declared_indexes. */
  private indexSpecs = new Map<string, Map<string, IndexSpec>>();
  private readonly mirrors = new Map<string, CollectionMirror>();
  /**
   * Unique keys of physical collections written here without a mirror: checking a write against them
   * costs no parsing, freezing and indexing of every document, which is all a rebuild's fresh generation
   * needs until it is queried. A physical collection has a mirror or a key guard, never both.
   */
  private readonly keyGuards = new Map<string, KeyGuard>();
  /** Commits generations' writes (file-backed stores), started by the first such write. */
  private writer: GenerationWriter | undefined;

  private readonly statements: Statements;

  constructor(file: string) {
    createPrivateDatabaseFile(file);
    this.db = new Database(file);
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    this.statements = prepareStatements(this.db);
    this.dataVersion = this.statements.dataVersion.get()!;
    this.readMetadata();
  }

  assertUsable(): void {
    if (this.closed) throw new Error('The read store is closed');
  }

  physicalOf(collection: string): string {
    return this.aliases.get(collection) ?? collection;
  }

  // --- queries ------------------------------------------------------------------------------------------

  find(view: StoreView, collection: string, options: FindOptions = {}): FindResult<Doc> {
    const mirror = this.freshMirror(view, collection);
    const { ordering, positions } = mirror.matching(options.filter, options.text, normalizeSort(options.sort));
    const skip = Math.max(0, options.skip ?? 0);
    const end = options.limit === undefined ? positions.length : Math.min(positions.length, skip + Math.max(0, options.limit));
    const items: Doc[] = [];
    for (let index = skip; index < end; index++) items.push(ordering.docs[positions[index]!]!);
    return { items, total: positions.length };
  }

  get(view: StoreView, collection: string, id: DocId): Doc | null {
    return this.freshMirror(view, collection).docs.get(id) ?? null;
  }

  getMany(view: StoreView, collection: string, ids: readonly DocId[]): Doc[] {
    const { docs } = this.freshMirror(view, collection);
    const found: Doc[] = [];
    for (const id of ids) {
      const doc = docs.get(id);
      if (doc) found.push(doc);
    }
    return found;
  }

  findOne(view: StoreView, collection: string, filter: Filter): Doc | null {
    return this.freshMirror(view, collection).first(filter) ?? null;
  }

  getCheckpoint(view: StoreView, name: string): bigint | null {
    view.assertUsable();
    const position = this.statements.checkpoint.get(view.checkpointScope, name);
    return position === undefined ? null : BigInt(position);
  }

  ping(): boolean {
    if (this.closed) return false;
    try {
      return this.statements.ping.get() === 1;
    } catch {
      return false;
    }
  }

  // --- writes -------------------------------------------------------------------------------------------

  write(view: StoreView, ops: readonly WriteOp[], checkpoints: readonly Checkpoint[]): void {
    view.assertUsable();
    if (ops.length === 0 && checkpoints.length === 0) return;
    const prepared = prepareWrite(ops, checkpoints);
    // Queued writes of a generation are checked against its own keys, which this write bypasses.
    if (view instanceof Generation) view.keys.clear();

    const applied = this.db
      .transaction(() => {
        this.syncWithOtherConnections();
        const targets = new Map<
          string,
          { mirror: CollectionMirror | undefined; guard: KeyGuard | undefined; changes: DocChange[]; version: number }
        >();
        const rows = prepared.map(({ collection, id, doc, json }) => {
          const physical = view.physicalOf(collection);
          let target = targets.get(physical);
          if (!target) {
            // A mirror not loaded yet is left alone (it loads from the table later); unique keys are checked without it.
            const mirror = this.mirrors.get(physical);
            const guard = mirror || !this.hasUniqueIndexes(collection) ? undefined : this.keyGuardOf(physical, collection);
            target = { mirror, guard, changes: [], version: 0 };
            targets.set(physical, target);
          }
          // The mirror keeps its own frozen copy; the key guard only reads the keys, before this write returns.
          if (target.mirror) target.changes.push({ id, doc: json === undefined ? null : (deepFreeze(JSON.parse(json)) as Doc) });
          else if (target.guard) target.changes.push({ id, doc });
          return { physical, id: idKey(id), json };
        });
        for (const { mirror, guard, changes } of targets.values()) {
          mirror?.checkUnique(changes);
          guard?.keys.check(changes);
        }
        for (const [physical, target] of targets) target.version = this.statements.bumpVersion.get(physical)!;
        for (const { physical, id, json } of rows) {
          if (json === undefined) this.statements.deleteDoc.run(physical, id);
          else this.statements.upsertDoc.run(physical, id, targets.get(physical)!.version, json);
        }
        for (const { name, position } of checkpoints) this.statements.upsertCheckpoint.run(view.checkpointScope, name, position.toString());
        return targets;
      })
      .immediate();
    this.announceCommit();

    for (const { mirror, guard, changes, version } of applied.values()) {
      if (mirror) {
        for (const change of changes) mirror.apply(change);
        mirror.version = version;
      } else if (guard) {
        for (const change of changes) guard.keys.apply(change);
        guard.version = version;
      }
    }
  }

  /**
   * Hands a generation's write to the writer thread when it can take it: a file-backed store, every
   * operation on the generation's own collections, and their unique keys known (see Generation.keys).
   * False leaves the write to the synchronous path, which the caller takes once the generation has settled.
   */
  queueWrite(generation: Generation, ops: readonly WriteOp[], checkpoints: readonly Checkpoint[]): boolean {
    generation.assertUsable();
    if (this.db.memory) return false;
    if (this.writer?.broken) this.writer = undefined;
    const writer = (generation.writer ??= this.writer ??= new GenerationWriter(this.db.name));
    writer.assertWritable(generation.id);
    // Another connection may have declared indexes since. Looking once per turn, as reads do, misses only
    // declarations that could as well have come a moment after this write; looking on every write cost a
    // rebuild a re-read of the metadata per page and projection, since the writer's own commits count as
    // another connection's.
    this.syncOncePerTurn();
    const physicals: string[] = [];
    const targets = new Map<string, { index: number; keys: UniqueKeys; changes: DocChange[] }>();
    for (const { collection } of ops) {
      if (targets.has(collection)) continue;
      const physical = generation.physicals.get(collection);
      const keys = physical === undefined ? undefined : this.generationKeysOf(generation, writer, physical, collection);
      if (physical === undefined || !keys) return false;
      targets.set(collection, { index: physicals.push(physical) - 1, keys, changes: [] });
    }
    for (const checkpoint of checkpoints) assertCheckpoint(checkpoint);
    const rowPhysicals = new Int32Array(ops.length);
    const idLengths = new Int32Array(ops.length);
    const storedIds = new Array<string>(ops.length);
    const jsons = new Array<string | undefined>(ops.length);
    let chars = 0;
    for (let row = 0; row < ops.length; row++) {
      // As prepareWrite, without an object per row: this runs for every document a rebuild writes.
      const op = ops[row]!;
      const target = targets.get(op.collection)!;
      let id: DocId;
      let doc: Doc | null;
      let json: string | undefined;
      switch (op.op) {
        case 'put':
          id = op.doc._id;
          assertDocId(id, op.collection);
          doc = op.doc;
          json = JSON.stringify(doc);
          break;
        case 'delete':
          id = op.id;
          assertDocId(id, op.collection);
          doc = null;
          json = undefined;
          break;
        default:
          return assertNever(op);
      }
      if (!target.keys.isEmpty) target.changes.push({ id, doc });
      const storedId = idKey(id);
      rowPhysicals[row] = target.index;
      idLengths[row] = storedId.length;
      storedIds[row] = storedId;
      jsons[row] = json;
      chars += json?.length ?? 0;
    }
    const { docs, docEnds } = encodeDocs(jsons, chars);
    const batch: WriterBatch = {
      generation: generation.id,
      scope: generation.checkpointScope,
      physicals,
      rowPhysicals,
      idLengths,
      ids: storedIds.join(''),
      docEnds,
      docs,
      checkpoints: checkpoints.map(({ name, position }) => [name, String(position)]),
    };
    for (const { keys, changes } of targets.values()) keys.check(changes);
    writer.send(batch, docs.byteLength);
    for (const { keys, changes } of targets.values()) for (const change of changes) keys.apply(change);
    return true;
  }

  /** Resolves once the generation's queued writes are committed; rejects with the failure of one. */
  async settled(generation: Generation): Promise<void> {
    await generation.writer?.settled(generation.id);
  }

  /** Backpressure for queued writes: resolves once the writer has caught up enough. */
  async writerRoom(generation: Generation): Promise<void> {
    await generation.writer?.room();
  }

  /** Resolves once no generation has writes in flight. */
  async writerIdle(): Promise<void> {
    await this.writer?.idle();
  }

  async closeWriter(): Promise<void> {
    await this.writer?.close();
    this.writer = undefined;
  }

  /**
   * A generation's unique keys of one of its physical collections; built from the table only while none
   * of its writes is in flight (undefined otherwise), and again whenever the unique indexes change.
   */
  private generationKeysOf(generation: Generation, writer: GenerationWriter, physical: string, logical: string): UniqueKeys | undefined {
    const specs = [...(this.indexSpecs.get(logical)?.values() ?? [])].filter((spec) => spec.unique);
    const signature = JSON.stringify(specs);
    const known = generation.keys.get(physical);
    if (known?.signature === signature) return known.keys;
    if (writer.hasInFlight(generation.id)) return undefined;
    const keys =
      specs.length === 0 ? new UniqueKeys() : this.db.transaction(() => UniqueKeys.build(logical, specs, this.storedDocs(physical), false))();
    generation.keys.set(physical, { signature, keys });
    return keys;
  }

  ensureIndexes(view: StoreView, collection: string, indexes: readonly IndexSpec[]): void {
    view.assertUsable();
    for (const spec of indexes) validateIndexSpec(collection, spec);
    const declared = this.db
      .transaction(() => {
        this.syncWithOtherConnections();
        const specs = new Map(this.indexSpecs.get(collection));
        let added = false;
        for (const spec of indexes) {
          const name = indexName(spec);
          const existing = specs.get(name);
          if (existing) {
            if (Boolean(existing.unique) !== Boolean(spec.unique)) {
              throw new Error(`Index ${name} on ${collection} already exists with different options`);
            }
            continue;
          }
          const normalized: IndexSpec = {
            keys: spec.keys.map(([field, direction]) => [field, direction]),
            ...(spec.unique ? { unique: true } : {}),
          };
          specs.set(name, normalized);
          this.statements.insertIndex.run(collection, name, JSON.stringify(normalized));
          added = true;
        }
        if (!added) return undefined;
        // Kept in name order, as readMetadata reads them, so other connections' declarations compare equal.
        const sorted = new Map([...specs].sort(([left], [right]) => (left < right ? -1 : 1)));
        const all = [...sorted.values()];
        const mirrors = [...this.mirrors.values()].filter((mirror) => mirror.logical === collection);
        const built = mirrors.map((mirror) => ({ mirror, indexes: mirror.buildIndexes(all, true) }));
        // As createIndexes does, a unique index is refused while the stored documents violate it; collections
        // without a mirror are checked from their table, and keep the keys as their guard.
        const guards = new Map<string, KeyGuard>();
        if (all.some((spec) => spec.unique)) {
          for (const physical of new Set([view.physicalOf(collection), this.physicalOf(collection)])) {
            if (!this.mirrors.has(physical)) guards.set(physical, this.loadKeyGuard(physical, collection, all, true));
          }
        }
        return { specs: sorted, built, guards };
      })
      .immediate();
    this.announceCommit();
    if (!declared) return;
    this.indexSpecs.set(collection, declared.specs);
    for (const { mirror, indexes } of declared.built) mirror.useIndexes(indexes);
    this.dropKeyGuards(collection);
    for (const [physical, guard] of declared.guards) this.keyGuards.set(physical, guard);
  }

  // --- blue/green ---------------------------------------------------------------------------------------

  beginGeneration(collections: readonly string[]): Generation {
    this.assertUsable();
    if (collections.length === 0) throw new TypeError('beginGeneration needs at least one collection');
    if (new Set(collections).size !== collections.length) throw new TypeError('beginGeneration got a collection twice');
    const id = newGenerationId();
    const physicals = new Map(collections.map((collection) => [collection, `${collection}@${id}`]));
    this.db
      .transaction(() => {
        this.syncWithOtherConnections();
        // An unfinished generation of the same collections belongs to a rebuild that died or was replaced.
        const superseded = new Set(collections.flatMap((collection) => this.statements.pendingGenerationsOf.all(collection)));
        for (const generation of superseded) this.dropGeneration(generation);
        for (const [logical, physical] of physicals) {
          this.dropPhysical(physical);
          this.statements.insertPending.run(physical, logical, id);
        }
      })
      .immediate();
    this.announceCommit();
    return new Generation(id, physicals, this);
  }

  promote(generation: Generation): void {
    generation.assertUsable();
    const replaced = this.db
      .transaction(() => {
        this.syncWithOtherConnections();
        const pending = this.statements.pendingOf.all(generation.id);
        if (pending.length !== generation.physicals.size) {
          throw new Error(`Generation ${generation.id} is no longer pending: a newer generation of its collections replaced it`);
        }
        const replaced: string[] = [];
        for (const [logical, physical] of generation.physicals) {
          const previous = this.physicalOf(logical);
          this.statements.upsertAlias.run(logical, physical);
          if (previous !== physical) {
            this.dropPhysical(previous);
            replaced.push(previous);
          }
        }
        this.statements.promoteCheckpoints.run(LIVE_SCOPE, generation.id);
        this.statements.dropCheckpoints.run(generation.id);
        this.statements.dropPending.run(generation.id);
        return replaced;
      })
      .immediate();
    this.announceCommit();
    for (const [logical, physical] of generation.physicals) this.aliases.set(logical, physical);
    for (const physical of replaced) this.mirrors.delete(physical);
    generation.finished = true;
    generation.writer?.forget(generation.id);
  }

  discard(generation: Generation): void {
    if (generation.finished) return;
    this.assertUsable();
    this.db
      .transaction(() => {
        this.syncWithOtherConnections();
        this.dropGeneration(generation.id, [...generation.physicals.values()]);
      })
      .immediate();
    this.announceCommit();
    generation.finished = true;
    generation.writer?.forget(generation.id);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.mirrors.clear();
    this.keyGuards.clear();
    this.db.close();
  }

  // --- internals ----------------------------------------------------------------------------------------

  private hasUniqueIndexes(collection: string): boolean {
    for (const spec of this.indexSpecs.get(collection)?.values() ?? []) if (spec.unique) return true;
    return false;
  }

  private freshMirror(view: StoreView, collection: string): CollectionMirror {
    view.assertUsable();
    this.syncOncePerTurn();
    return this.mirrorOf(view.physicalOf(collection), collection);
  }

  private mirrorOf(physical: string, logical: string): CollectionMirror {
    let mirror = this.mirrors.get(physical);
    if (!mirror) {
      mirror = this.loadMirror(physical, logical);
      this.mirrors.set(physical, mirror);
      this.keyGuards.delete(physical);
    }
    return mirror;
  }

  /** Runs inside a transaction, so that the keys and the version belong together. */
  private keyGuardOf(physical: string, logical: string): KeyGuard {
    let guard = this.keyGuards.get(physical);
    if (!guard) {
      guard = this.loadKeyGuard(physical, logical, [...(this.indexSpecs.get(logical)?.values() ?? [])], false);
      this.keyGuards.set(physical, guard);
    }
    return guard;
  }

  /** Runs inside a transaction; `enforce`: see UniqueKeys.build. */
  private loadKeyGuard(physical: string, logical: string, specs: readonly IndexSpec[], enforce: boolean): KeyGuard {
    return { logical, keys: UniqueKeys.build(logical, specs, this.storedDocs(physical), enforce), version: this.statements.versionOf.get(physical) ?? 0 };
  }

  private storedDocs(physical: string): Doc[] {
    return this.statements.docs.all(physical).map((json) => JSON.parse(json) as Doc);
  }

  private dropKeyGuards(logical: string): void {
    for (const [physical, guard] of this.keyGuards) if (guard.logical === logical) this.keyGuards.delete(physical);
  }

  private loadMirror(physical: string, logical: string): CollectionMirror {
    return this.db.transaction(() => {
      const mirror = new CollectionMirror(physical, logical);
      mirror.version = this.statements.versionOf.get(physical) ?? 0;
      for (const json of this.statements.docs.all(physical)) {
        const doc = deepFreeze(JSON.parse(json) as Doc);
        mirror.docs.set(doc._id, doc);
      }
      mirror.useIndexes(mirror.buildIndexes([...(this.indexSpecs.get(logical)?.values() ?? [])], false));
      return mirror;
    })();
  }

  private announceCommit(): void {
    if (!this.db.memory) announceCommit(this.db.name);
  }

  /** See commitsInProcess. */
  private syncOncePerTurn(): void {
    const commits = commitsInProcess.get(this.db.name) ?? 0;
    if (this.lookedThisTurn && commits === this.commitsSeen) return;
    this.syncWithOtherConnections();
    this.commitsSeen = commits;
    if (!this.lookedThisTurn) {
      this.lookedThisTurn = true;
      setImmediate(() => {
        this.lookedThisTurn = false;
      }).unref();
    }
  }

  /** Another connection committed since we last looked: pick up its aliases, indexes and documents. */
  private syncWithOtherConnections(): void {
    this.assertUsable();
    const dataVersion = this.statements.dataVersion.get()!;
    if (dataVersion === this.dataVersion) return;
    this.db.transaction(() => {
      this.readMetadata();
      const versions = new Map(this.statements.versions.all());
      for (const [physical, mirror] of this.mirrors) {
        const version = versions.get(physical) ?? 0;
        if (version === mirror.version) continue;
        if (version < mirror.version) this.mirrors.delete(physical);
        else this.catchUp(mirror, version);
      }
      // Rebuilt from the table when next needed: without the documents, a guard cannot catch up.
      for (const [physical, guard] of this.keyGuards) {
        if ((versions.get(physical) ?? 0) !== guard.version) this.keyGuards.delete(physical);
      }
    })();
    this.dataVersion = dataVersion;
  }

  private readMetadata(): void {
    this.aliases = new Map(this.statements.aliases.all());
    const indexSpecs = new Map<string, Map<string, IndexSpec>>();
    for (const [collection, name, spec] of this.statements.declaredIndexes.all()) {
      let specs = indexSpecs.get(collection);
      if (!specs) {
        specs = new Map();
        indexSpecs.set(collection, specs);
      }
      specs.set(name, JSON.parse(spec) as IndexSpec);
    }
    const specsOf = (specs: typeof indexSpecs, logical: string) => [...(specs.get(logical)?.values() ?? [])];
    const changed = (logical: string) => JSON.stringify(specsOf(this.indexSpecs, logical)) !== JSON.stringify(specsOf(indexSpecs, logical));
    for (const mirror of this.mirrors.values()) {
      if (changed(mirror.logical)) mirror.useIndexes(mirror.buildIndexes(specsOf(indexSpecs, mirror.logical), false));
    }
    for (const [physical, guard] of this.keyGuards) if (changed(guard.logical)) this.keyGuards.delete(physical);
    this.indexSpecs = indexSpecs;
  }

  /** Applies what other connections wrote to the collection since the mirror's version. */
  private catchUp(mirror: CollectionMirror, version: number): void {
    for (const json of this.statements.docsSince.all(mirror.physical, mirror.version)) {
      const doc = deepFreeze(JSON.parse(json) as Doc);
      mirror.apply({ id: doc._id, doc });
    }
    if (this.statements.countDocs.get(mirror.physical) !== mirror.docs.size) {
      const stored = new Set(this.statements.docIds.all(mirror.physical));
      for (const id of [...mirror.docs.keys()]) if (!stored.has(idKey(id))) mirror.apply({ id, doc: null });
    }
    mirror.version = version;
  }

  private dropPhysical(physical: string): void {
    this.statements.dropDocs.run(physical);
    this.statements.deleteVersion.run(physical);
    this.mirrors.delete(physical);
    this.keyGuards.delete(physical);
  }

  /** Drops a generation's collections (never a live one), its checkpoints and its pending record. */
  private dropGeneration(generation: string, physicals?: readonly string[]): void {
    const live = new Set(this.aliases.values());
    const dropped = physicals ?? this.statements.pendingOf.all(generation).map(([physical]) => physical);
    for (const physical of dropped) if (!live.has(physical)) this.dropPhysical(physical);
    this.statements.dropCheckpoints.run(generation);
    this.statements.dropPending.run(generation);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The port
// ---------------------------------------------------------------------------------------------------------

/** The port on a view; `settled` resolves before each operation's turn (a generation's queued writes). */
function storeOn(engine: EmbeddedEngine, view: StoreView, settled: () => Promise<void> = async () => undefined) {
  return {
    async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
      await settled();
      engine.ensureIndexes(view, collection, indexes);
    },
    async find<T extends Doc = Doc>(collection: string, options?: FindOptions): Promise<FindResult<T>> {
      await settled();
      return engine.find(view, collection, options) as FindResult<T>;
    },
    async get<T extends Doc = Doc>(collection: string, id: DocId): Promise<T | null> {
      await settled();
      return engine.get(view, collection, id) as T | null;
    },
    async getMany<T extends Doc = Doc>(collection: string, ids: DocId[]): Promise<T[]> {
      await settled();
      return engine.getMany(view, collection, ids) as T[];
    },
    async findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null> {
      await settled();
      return engine.findOne(view, collection, filter) as T | null;
    },
    async write(ops: WriteOp[], checkpoints: Checkpoint[] = []): Promise<void> {
      await settled();
      engine.write(view, ops, checkpoints);
    },
    async getCheckpoint(name: string): Promise<bigint | null> {
      await settled();
      return engine.getCheckpoint(view, name);
    },
    async ping(): Promise<boolean> {
      return engine.ping();
    },
  };
}

/**
 * The embedded read store: `file` is the SQLite database (created if absent); without it everything lives
 * in memory and disappears on close (tests). Returned documents are frozen and shared: do not mutate them.
 */
export function createEmbeddedReadStore(options: { file?: string } = {}): ReadStore {
  const engine = new EmbeddedEngine(options.file ?? ':memory:');
  return {
    ...storeOn(engine, engine),
    async beginGeneration(collections: string[]): Promise<GenerationStore> {
      // Writes still queued for a generation this one replaces must not land after it dropped them.
      await engine.writerIdle();
      const generation = engine.beginGeneration(collections);
      const settled = () => engine.settled(generation);
      return {
        ...storeOn(engine, generation, settled),
        async write(ops: WriteOp[], checkpoints: Checkpoint[] = []): Promise<void> {
          if (engine.queueWrite(generation, ops, checkpoints)) return engine.writerRoom(generation);
          await settled();
          engine.write(generation, ops, checkpoints);
        },
        generation: generation.id,
        async beginGeneration(): Promise<GenerationStore> {
          throw new Error('A generation is begun on the live store, not inside another generation');
        },
        async promote(): Promise<void> {
          await settled();
          engine.promote(generation);
        },
        async discard(): Promise<void> {
          // Whatever became of its writes, the generation is dropped.
          await settled().catch(() => undefined);
          engine.discard(generation);
        },
        /** Releases this view; the connection belongs to the live store, and unpromoted data stays until discarded or replaced. */
        async close(): Promise<void> {
          generation.finished = true;
        },
      };
    },
    async close(): Promise<void> {
      await engine.closeWriter();
      engine.close();
    },
  };
}
