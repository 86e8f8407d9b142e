import { describe, expect, it } from 'vitest';
import { mapInSlices, yieldAfterSlice } from '../../queries/slicedMap.js';

/** Holds the thread for `ms`, as shaping a large item would. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('mapInSlices', () => {
  it('when items are shaped, then the results are those of map, in order, with each index', async () => {
    expect(await mapInSlices(['a', 'b', 'c'], (item, index) => `${index}:${item}`)).toEqual(['0:a', '1:b', '2:c']);
    expect(await mapInSlices([], () => 1)).toEqual([]);
  });

  it('when the shaping outlasts a slice, then a callback queued meanwhile runs between slices, before the rest', async () => {
    const order: string[] = [];
    const shaping = mapInSlices([1, 2, 3, 4], (item) => {
      if (item === 1) setImmediate(() => order.push('other request'));
      busyFor(2);
      order.push(`item ${item}`);
    });
    await shaping;
    expect(order.indexOf('other request')).toBeGreaterThan(0);
    expect(order.indexOf('other request')).toBeLessThan(order.indexOf('item 4'));
  });

  it('when the whole work fits in one slice, then it finishes without waiting for a turn of the event loop', async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    await mapInSlices([1, 2, 3], (item) => item * 2, 1_000);
    expect(turned).toBe(false);
  });
});

describe('yieldAfterSlice', () => {
  it('when the work since the start has taken a slice, then a callback queued meanwhile runs before the work goes on', async () => {
    const start = performance.now();
    let turned = false;
    setImmediate(() => (turned = true));
    busyFor(2);
    await yieldAfterSlice(start, 1);
    expect(turned).toBe(true);
  });

  it('when the work since the start fits in a slice, then it goes on without waiting for a turn of the event loop', async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    await yieldAfterSlice(performance.now(), 1_000);
    expect(turned).toBe(false);
  });
});
