import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** how long the state may take to arrive (default 4 s: inside jest's 5 s, so that this wait's message is what fails) */
  timeoutMs?: number;
  /** the pause between two probes (default 20 ms) */
  intervalMs?: number;
  /** what is awaited, for the message when it never comes */
  what?: string;
}

/**
 * Probes until `probe` answers a truthy value, and resolves with it: a state (a row's status, a job's
 * state, an API answer) awaited instead of a fixed sleep. A probe that throws is probed again (an
 * assertion inside it may hold later); past the deadline the last error, or the last falsy answer,
 * fails the wait. The deadline reads the monotonic clock, so a test that mocks Date.now cannot stall it.
 */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 4_000, intervalMs = 20, what = 'the awaited state' }: EventuallyOptions = {},
): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    let failure: Error | undefined;
    let answer: T | undefined;
    try {
      answer = await probe();
      if (answer) return answer;
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
    }
    if (performance.now() > deadline) {
      if (failure) throw failure;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last answer: ${String(answer)})`);
    }
    await sleep(intervalMs);
  }
}
