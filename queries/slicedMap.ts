import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Synchronous work a request may do before it lets the event loop serve the others: a page of 100 items
 * shaped in one go held every other client's request for several milliseconds (issue 19).
 */
export const SLICE_MS = 1;

/**
 * `items.map(shape)`, in slices of about `sliceMs` of synchronous work: when a slice has taken that long,
 * the next item waits for a turn of the event loop (setImmediate, after the I/O callbacks already due),
 * so requests that arrived meanwhile are served between slices. Work that fits in one slice costs no turn.
 */
export async function mapInSlices<T, R>(
  items: readonly T[],
  shape: (item: T, index: number) => R,
  sliceMs: number = SLICE_MS,
): Promise<R[]> {
  const shaped: R[] = [];
  let sliceStart = performance.now();
  for (const [index, item] of items.entries()) {
    if (performance.now() - sliceStart >= sliceMs) {
      await nextTurn();
      sliceStart = performance.now();
    }
    shaped.push(shape(item, index));
  }
  return shaped;
}

/**
 * Lets the event loop serve the requests that arrived meanwhile when the synchronous work since `start` has
 * taken a slice: a large response written right after the work that built it held other clients' requests
 * for both (a change-feed page: its reads and shaping, then its hashing, joining and writing, issue 19).
 */
export async function yieldAfterSlice(start: number, sliceMs: number = SLICE_MS): Promise<void> {
  if (performance.now() - start >= sliceMs) await nextTurn();
}
