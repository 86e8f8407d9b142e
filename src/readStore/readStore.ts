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
   * projection writes (already lower-cased). Regex metacharacters in `q` are literal.
   */
  text?: string;
  /**
   * Sort keys in priority order; `_id` ascending is always appended as the final tie-breaker so pages are
   * stable. Missing and null values sort before everything else ascending (MongoDB order).
   */
  sort?: Array<[field: string, direction: SortDirection]>;
  /** 0-based offset and page size; omitted limit = all. */
  skip?: number;
  limit?: number;
}

export interface FindResult<T> {
  items: T[];
  /** Number of documents matching filter and text, ignoring skip/limit. */
  total: number;
}

export type WriteOp =
  /** Insert or replace the whole document. */
  | { op: 'put'; collection: string; doc: Doc }
  | { op: 'delete'; collection: string; id: DocId };

export interface Checkpoint {
  name: string;
  position: bigint;
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

/** MongoDB's default index name: `field_direction` pairs joined by `_`. */
export const indexName = (index: IndexSpec): string => index.keys.map(([field, direction]) => `${field}_${direction}`).join('_');

export interface ReadStore {
  /** Declares the indexes the queries on `collection` need (MongoDB creates them; embedded builds lookups). */
  ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void>;
  find<T extends Doc = Doc>(collection: string, options?: FindOptions): Promise<FindResult<T>>;
  get<T extends Doc = Doc>(collection: string, id: DocId): Promise<T | null>;
  /** The documents that exist, in the order of `ids`. */
  getMany<T extends Doc = Doc>(collection: string, ids: DocId[]): Promise<T[]>;
  findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null>;
  /**
   * Applies the operations in order, then stores the checkpoints. Embedded: one transaction. MongoDB:
   * ordered bulk writes, checkpoints last, so a crash in between re-applies (projections are idempotent).
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

export interface GenerationStore extends ReadStore {
  readonly generation: string;
  /** Atomically points the live collections (and their checkpoints) at this generation; drops the old ones. */
  promote(): Promise<void>;
  /** Drops this generation's collections without touching the live ones. */
  discard(): Promise<void>;
}
