/**
 * The one way a test waits for something that happens on its own time (a projection catching up, a child
 * process answering, a subscription delivering): it asks again until the answer is there, never sleeps a
 * fixed time and hopes. A fixed sleep either wastes time or, on a loaded 2-core machine, is too short.
 */

export interface EventuallyOptions {
  /**
   * How long to keep asking, in real milliseconds. The default stays below vitest's testTimeout, so that a
   * wait that never ends fails with its own message rather than a bare test timeout.
   */
  timeoutMs?: number;
}

/** Thrown from an attempt when waiting longer cannot help (the process it waits for has exited, say). */
export class GiveUp extends Error {
  override readonly name = 'GiveUp';
}

const DEFAULT_TIMEOUT_MS = 10_000;
const FIRST_PAUSE_MS = 10;
const LONGEST_PAUSE_MS = 50;

/** What counts as "not yet": so that a boolean check and a lookup that may find nothing both read naturally. */
type NotYet = undefined | false;

/**
 * Calls `attempt` until it returns something other than undefined or false, and returns that. An attempt
 * that throws (a failed expect, say) is tried again too, unless it throws GiveUp. Pauses between attempts
 * grow from 10 to 50 ms. Past the deadline it fails naming `what` it waited for and what the last attempt
 * said. An attempt that never settles is not cut short: give it its own timeout.
 */
export async function eventually<T>(
  what: string,
  attempt: () => T | NotYet | Promise<T | NotYet>,
  options: EventuallyOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const giveUpAt = performance.now() + timeoutMs;
  let pauseMs = FIRST_PAUSE_MS;
  for (let attempts = 1; ; attempts++) {
    let last: { kind: 'value'; value: NotYet } | { kind: 'error'; error: unknown };
    try {
      const value = await attempt();
      if (value !== undefined && value !== false) return value as T;
      last = { kind: 'value', value: value as NotYet };
    } catch (error) {
      if (error instanceof GiveUp) throw new Error(`gave up waiting for ${what}: ${error.message}`, { cause: error });
      last = { kind: 'error', error };
    }
    const remainingMs = giveUpAt - performance.now();
    if (remainingMs <= 0) {
      const said = last.kind === 'value' ? `returned ${String(last.value)}` : `threw ${messageOf(last.error)}`;
      throw new Error(`gave up after ${timeoutMs} ms (${attempts} attempts) waiting for ${what}; the last attempt ${said}`, {
        cause: last.kind === 'error' ? last.error : undefined,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(pauseMs, remainingMs)));
    pauseMs = Math.min(2 * pauseMs, LONGEST_PAUSE_MS);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
