/*
 * The declared indexes of a collection: equality lookups (which the query planner uses) and unique keys
 * (which writes are checked against).
 */
import { DuplicateKeyError, indexName, type Doc, type DocId, type IndexSpec, type Scalar } from '../readStore.js';
import { leavesOf } from './documentPaths.js';

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

export function validateIndexSpec(collection: string, spec: IndexSpec): void {
  if (spec.keys.length === 0) throw new TypeError(`An index on ${collection} needs at least one key`);
  for (const [field, direction] of spec.keys) {
    if (direction !== 1 && direction !== -1) throw new TypeError(`Index direction of ${collection}.${field} must be 1 or -1`);
  }
}

export class EqualityIndex {
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
export interface DocChange {
  id: DocId;
  doc: Doc | null;
}

/**
 * The unique indexes of one collection, which is all a write needs to check: a collection this store only
 * writes (a rebuild's fresh generation) is guarded by its keys alone, without a mirror of its documents.
 */
export class UniqueKeys {
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
