/*
 * Dotted paths into plain JSON documents, as MongoDB reads them: an array met on the way fans out over its
 * elements.
 */
import type { Doc } from '../readStore.js';

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ARRAY_INDEX = /^\d+$/;

/**
 * The values a dotted path reaches, MongoDB style: an array met on the way fans out over its object
 * elements (and a numeric part also indexes it); a path that ends nowhere yields `undefined` (missing).
 * A value that is itself an array is returned as is; the tests look into it one level deep.
 */
export function collectLeaves(value: unknown, parts: readonly string[], depth: number, out: unknown[]): void {
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

export function leavesOf(doc: Doc, parts: readonly string[]): unknown[] {
  const out: unknown[] = [];
  collectLeaves(doc, parts, 0, out);
  if (out.length === 0) out.push(undefined);
  return out;
}

/** Several values one dotted path reaches in one document (through an array of objects). */
export class Leaves {
  constructor(readonly values: readonly unknown[]) {}
}

/** What a path holds in one document, as a query column keeps it: the value, or Leaves when there are several. */
export function slotOf(doc: Doc, path: string, parts: readonly string[] | undefined): unknown {
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
