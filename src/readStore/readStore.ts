/**
 * Read store port: documents in named collections, queried the way the /v1 endpoints need.
 * Adapters: embedded (default) and MongoDB (MONGODB_URL). Semantics follow MongoDB's, so both adapters
 * answer identically (see test/readStore/readStoreContract.ts).
 */

export type DocId = string | number;
export type Doc = { _id: DocId } & Record<string, unknown>;
export type Scalar = string | number | boolean | null;

/**
 * A condition on one field (dotted paths reach into nested objects). As in MongoDB, a condition on an
 * array field matches when any element matches; `null` / `$eq: null` also match a missing field.
 */
export type Condition =
  | Scalar
  | {
      $eq?: Scalar;
      $ne?: Scalar;
      $in?: Scalar[];
      $gt?: string | number;
      $gte?: string | number;
      $lt?: string | number;
      $lte?: string | number;
      $exists?: boolean;
    };

/** All field conditions must hold. */
export type Filter = Record<string, Condition>;

export type SortDirection = 1 | -1;

export interface FindOptions {
  filter?: Filter;
  /**
   * Free-text `q`: case-insensitive substring match against the document's `_search` string, which the
   * projection writes (already lower-cased). Regex metacharacters in `q` are literal. Empty text does not
   * restrict the result.
   */
  text?: string;
  /**
   * Sort keys in priority order; `_id` ascending is always appended as the final tie-breaker so pages are
   * stable. Missing and null values sort before everything else ascending (MongoDB order).
   */
  sort?: Array<[field: string, direction: SortDirection]>;
  /** 0-based offset and page size; omitted limit = all, limit 0 = no items (total still counted). */
  skip?: number;
  limit?: number;
  /**
   * The top-level fields the caller reads of each item, besides `_id`: an item may then hold only those
   * (MongoDB projects them; a lean embedded mirror answers from the fields it holds, reading no whole
   * document). Omitted: whole documents.
   */
  fields?: readonly string[];
}

export interface FindResult<T> {
  items: T[];
  /** Number of documents matching filter and text, ignoring skip/limit. */
  total: number;
}

export type WriteOp =
  /** Insert or replace the whole document. */
  { op: 'put'; collection: string; doc: Doc } | { op: 'delete'; collection: string; id: DocId };

export interface Checkpoint {
  name: string;
  position: bigint;
  /**
   * The writer's lease token (src/projectionEngine/projectorLease.ts). The store keeps the highest token a
   * checkpoint was written with, and refuses the whole write, with StaleFencingTokenError, when one of its
   * checkpoints carries a lower one: a projector whose lease lapsed while it was paused cannot write after
   * the next holder did. A checkpoint written without a token is not checked and keeps the stored token.
   */
  fencingToken?: number;
}

/** An index a query needs: keys in order; `unique` enforces uniqueness. */
export interface IndexSpec {
  keys: Array<[field: string, direction: SortDirection]>;
  unique?: boolean;
}

/**
 * A put (or an index declaration over existing documents) would give two documents the same key of a
 * unique index. Both adapters throw it (MongoDB's E11000 is translated); the write it belongs to stores no
 * checkpoint.
 */
export class DuplicateKeyError extends Error {
  readonly code = 'DUPLICATE_KEY';
  constructor(
    readonly collection: string,
    /** Index name in MongoDB's default form, e.g. `slug_1` or `developer_1_name_1`. */
    readonly index: string,
    message = `Duplicate key in ${collection} for unique index ${index}`,
  ) {
    super(message);
    this.name = 'DuplicateKeyError';
  }
}

/**
 * A write carried a checkpoint whose fencing token is lower than the one stored for that checkpoint: another
 * holder of its lease has written since. Nothing of the write is stored.
 */
export class StaleFencingTokenError extends Error {
  readonly code = 'STALE_FENCING_TOKEN';
  constructor(
    readonly checkpoint: string,
    readonly fencingToken: number,
    /** The token stored with the checkpoint, when the store could tell. */
    readonly storedToken: number | null,
  ) {
    super(
      `Checkpoint ${checkpoint} was written with fencing token ${storedToken ?? 'greater than this one'}; ` +
        `a write with token ${fencingToken} is refused`,
    );
    this.name = 'StaleFencingTokenError';
  }
}

/** The widest position a sequence id holds: every safe integer has at most 16 digits. */
const SEQUENCE_DIGITS = 16;

/**
 * The `_id` of the document at `position` of a log-ordered collection (readSequence): the position in 16
 * decimal digits, zero-padded, so that the order of the ids, as strings, is the order of the positions.
 */
export function sequenceId(position: number): string {
  if (!Number.isSafeInteger(position) || position < 0)
    throw new RangeError(`A sequence position must be a non-negative safe integer, got ${position}`);
  return String(position).padStart(SEQUENCE_DIGITS, '0');
}

/** The documents of a log-ordered collection at positions after < n <= until, at most `limit` of them. */
export interface SequenceRange {
  after: number;
  until: number;
  limit: number;
}

/**
 * The `_id`s that bound the range, exclusive and inclusive; a RangeError for a position or a limit that is not
 * a non-negative safe integer.
 */
export function sequenceBounds(range: SequenceRange): { after: string; until: string } {
  if (!Number.isSafeInteger(range.limit) || range.limit < 0)
    throw new RangeError(`A sequence limit must be a non-negative safe integer, got ${range.limit}`);
  return { after: sequenceId(range.after), until: sequenceId(range.until) };
}

/** The range as a filter on `_id`, which an adapter walks (and a test can `find` with); see sequenceBounds. */
export function sequenceFilter(range: SequenceRange): Filter {
  const { after, until } = sequenceBounds(range);
  return { _id: { $gt: after, $lte: until } };
}

/** MongoDB's default index name: `field_direction` pairs joined by `_`. */
export const indexName = (index: IndexSpec): string => index.keys.map(([field, direction]) => `${field}_${direction}`).join('_');

/**
 * Documents a store returns are shared with it and must not be mutated (the embedded store hands out its
 * own frozen copies; change a copy and `put` it instead).
 */
export interface ReadStore {
  /** Declares the indexes the queries on `collection` need (MongoDB creates them; embedded builds lookups). */
  ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void>;
  find<T extends Doc = Doc>(collection: string, options?: FindOptions): Promise<FindResult<T>>;
  get<T extends Doc = Doc>(collection: string, id: DocId): Promise<T | null>;
  /** The documents that exist, in the order of `ids`. */
  getMany<T extends Doc = Doc>(collection: string, ids: DocId[]): Promise<T[]>;
  /**
   * A page of a log-ordered collection, whose documents are keyed by sequenceId alone: those at positions in
   * (after, until], ascending, at most `limit`. Nothing is counted, and the walk is by `_id`, so a page costs
   * the same however deep it starts and however large the collection (the embedded store reads the table's
   * key range and loads no mirror).
   */
  readSequence<T extends Doc = Doc>(collection: string, range: SequenceRange): Promise<T[]>;
  /** The matching document with the smallest `_id`, or null. */
  findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null>;
  /**
   * Applies the operations in order, then stores the checkpoints. Embedded: one transaction. MongoDB:
   * ordered bulk writes, checkpoints last, so a crash in between re-applies (projections are idempotent);
   * a live write whose checkpoints carry fencing tokens is one transaction, checked against the stored
   * tokens first (see Checkpoint.fencingToken).
   */
  write(ops: WriteOp[], checkpoints?: Checkpoint[]): Promise<void>;
  getCheckpoint(name: string): Promise<bigint | null>;
  /**
   * Blue/green rebuild: a store whose `collections` (and checkpoints written through it) are fresh, empty
   * physical collections of a new generation. Reads of other collections pass through to the live ones.
   * The live store keeps serving the old generation until `promote`.
   */
  beginGeneration(collections: string[]): Promise<GenerationStore>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A generation's `write` may resolve once the write is checked and accepted, before it is committed (the
 * embedded store commits on another thread meanwhile): every write is committed, in order and with its
 * checkpoints, before any later read of the generation, `promote` or `discard` proceeds; a write that
 * failed to commit fails the generation's later reads, writes and `promote` (`discard` still drops it).
 * Nothing is served from a generation before `promote`, so nothing is lost that a rebuild would not redo.
 */
export interface GenerationStore extends ReadStore {
  readonly generation: string;
  /** Atomically points the live collections (and their checkpoints) at this generation; drops the old ones. */
  promote(): Promise<void>;
  /** Drops this generation's collections without touching the live ones. */
  discard(): Promise<void>;
  /**
   * For a generation, `close` only releases this view (the connection belongs to the live store); unpromoted
   * data stays until discarded or replaced by the next generation of the same collections. A generation
   * cannot begin another generation.
   */
  close(): Promise<void>;
}
