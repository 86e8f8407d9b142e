/**
 * Changes in place to the ordered arrays of a document a projection owns (see ProjectionContext.draft): an
 * event changes one item, so the item is put where a sort of the whole array would put it, rather than
 * the array copied and sorted again.
 */

/**
 * Inserts `item` into `items`, ordered by `compare`, where a stable sort of `items` with it appended would
 * put it: after the items it does not precede.
 */
export function insertSorted<Item>(items: Item[], item: Item, compare: (a: Item, b: Item) => number): void {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(items[middle]!, item) <= 0) low = middle + 1;
    else high = middle;
  }
  if (low === items.length) items.push(item);
  else items.splice(low, 0, item);
}

/** Removes the first item `isIt` accepts (an id is unique within such an array); answers its index, or -1. */
export function removeFirst<Item>(items: Item[], isIt: (item: Item) => boolean): number {
  const index = items.findIndex(isIt);
  if (index !== -1) items.splice(index, 1);
  return index;
}
