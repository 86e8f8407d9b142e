/*
 * Queries run column-wise: an ordering of the collection keeps, per path a query touches, the slot of each
 * document in that order. Each condition narrows the ascending list of surviving positions (all of them,
 * or those an equality index gave) in one tight loop.
 */
import type { Doc } from '../readStore.js';
import { slotOf } from './documentPaths.js';

/** Ascending positions of documents in an ordering. */
export type Positions = Int32Array;

/**
 * The steps of one query narrow positions from one scratch buffer into the other (queries run
 * synchronously, so one pair serves all); only the final positions are copied out, to be cached.
 */
const scratch = { even: new Int32Array(0), odd: new Int32Array(0) };

/** The whole collection in one sort order, with the query columns built on it so far. */
export class Ordering {
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

/** One condition of a compiled query (see filter.ts). */
export interface QueryStep {
  /** Steps run cheapest and most selective first: equality, ranges, existence, negations, text. */
  order: number;
  narrow(ordering: Ordering, input: Positions, count: number, output: Positions): number;
}
