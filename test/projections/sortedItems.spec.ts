import { describe, expect, it } from 'vitest';
import { insertSorted, removeFirst } from '../../projections/shared/sortedItems.js';

interface Item {
  id: number;
  position: number;
}

const byPosition = (a: Item, b: Item) => a.position - b.position;

describe('changes in place to ordered arrays', () => {
  it('when items are inserted one by one, then the array equals a stable sort of them appended, ties in order of arrival', () => {
    let seed = 7;
    const next = (range: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor(seed / 65_536) % range;
    };
    const sorted: Item[] = [];
    const appended: Item[] = [];
    for (let id = 0; id < 300; id++) {
      const item = { id, position: next(20) };
      insertSorted(sorted, item, byPosition);
      appended.push(item);
      expect(sorted).toEqual([...appended].sort(byPosition));
    }
  });

  it('when the first accepted item is removed, then its index is answered and later matches stay', () => {
    const items = [
      { id: 1, position: 1 },
      { id: 2, position: 1 },
      { id: 2, position: 2 },
    ];
    expect(removeFirst(items, (item) => item.id === 2)).toBe(1);
    expect(items).toEqual([
      { id: 1, position: 1 },
      { id: 2, position: 2 },
    ]);
    expect(removeFirst(items, (item) => item.id === 9)).toBe(-1);
    expect(items).toHaveLength(2);
  });
});
