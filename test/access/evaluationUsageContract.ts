import { afterEach, expect, it } from 'vitest';
import type { EvaluationUsage } from '../../src/access/evaluationUsage.js';

/** What every EvaluationUsage adapter must do; each adapter's spec calls this. */
export function evaluationUsageContract(open: () => EvaluationUsage): void {
  const opened: EvaluationUsage[] = [];
  const usage = () => {
    const store = open();
    opened.push(store);
    return store;
  };
  // Keys of one run differ from every earlier run's, so a shared Redis needs no cleanup.
  const run = `${Date.now()}-${Math.random()}`;

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it('when requests are recorded, then each answer is the count including it', async () => {
    const store = usage();
    expect(await store.record(1, `a-${run}`)).toBe(1);
    expect(await store.record(1, `a-${run}`)).toBe(2);
  });

  it('when another client or another evaluation of the same client records, then it counts on its own', async () => {
    const store = usage();
    await store.record(1, `b-${run}`);
    expect(await store.record(2, `b-${run}`)).toBe(1);
    expect(await store.record(1, `c-${run}`)).toBe(1);
  });

  it('when many requests are recorded at once, then every count from 1 to N is answered exactly once', async () => {
    const store = usage();
    const counts = await Promise.all(Array.from({ length: 50 }, () => store.record(3, `d-${run}`)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
  });
}
