import { describe, expect, it } from 'vitest';
import { eventually, GiveUp } from './eventually.js';

describe('eventually', () => {
  it('when the attempt succeeds on the third try, then it returns that value after three attempts', async () => {
    let attempts = 0;
    const value = await eventually('the third try', () => {
      attempts += 1;
      return attempts === 3 ? { answer: 42 } : undefined;
    });
    expect(value).toEqual({ answer: 42 });
    expect(attempts).toBe(3);
  });

  it('when the attempt throws, or answers false, before it succeeds, then both count as not yet', async () => {
    let attempts = 0;
    const value = await eventually('the third try', async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('not there yet');
      return attempts === 3;
    });
    expect(value).toBe(true);
    expect(attempts).toBe(3);
  });

  it('when the deadline passes, then it fails naming what it waited for and what the last attempt said', async () => {
    let attempts = 0;
    const waiting = eventually(
      'the projection to catch up',
      () => {
        attempts += 1;
        throw new Error(`behind at attempt ${attempts}`);
      },
      { timeoutMs: 50 },
    );
    const failure = await waiting.then(
      () => expect.unreachable('eventually resolved'),
      (error: unknown) => error as Error,
    );
    expect(failure.message).toMatch(
      /^gave up after 50 ms \(\d+ attempts\) waiting for the projection to catch up; the last attempt threw behind at attempt \d+$/,
    );
    expect(failure.message).toContain(`behind at attempt ${attempts}`);
    expect(failure.cause).toEqual(new Error(`behind at attempt ${attempts}`));
  });

  it('when the deadline passes with the attempt still answering undefined, then it says so', async () => {
    await expect(eventually('a value', () => undefined, { timeoutMs: 30 })).rejects.toThrow(
      /waiting for a value; the last attempt returned undefined$/,
    );
  });

  it('when the attempt throws GiveUp, then it fails at once without trying again', async () => {
    let attempts = 0;
    const startedAt = performance.now();
    await expect(
      eventually('the child process to listen', () => {
        attempts += 1;
        throw new GiveUp('it exited with code 1');
      }),
    ).rejects.toThrow('gave up waiting for the child process to listen: it exited with code 1');
    expect(attempts).toBe(1);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
  });
});
