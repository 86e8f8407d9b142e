/*
 * MongoDB's filter operators, as far as the read side uses them ($eq, $in, $gt, $gte, $lt, $lte, $exists,
 * $ne on dotted paths), and the `text` search over `_search`, compiled to steps that narrow the positions
 * of an ordering column by column (see ordering.ts).
 */
import type { Condition, Filter, Scalar } from '../readStore.js';
import { Leaves } from './documentPaths.js';
import type { Positions, QueryStep, RangeOperator } from './ordering.js';

type ValueTest = (value: unknown) => boolean;

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
        steps.push({ ...onPath(path, 2, rangeSelection(operator, operand)), range: { path, operator, bound: operand } });
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
export function compileQuery(filter: Filter | undefined, text: string | undefined): QueryStep[] {
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
