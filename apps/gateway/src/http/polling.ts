import { setTimeout as sleep } from 'node:timers/promises';
import { pollingQuerySchema } from './request.schemas';
import { parseInput } from './validation';

/** How often a polling GET re-reads a pending resource's status. */
export const POLLING_INTERVAL_MS = 100;

/**
 * `polling=true` of a GET (api-reference §8): while `status()` answers `waitingStatus` (`pending`
 * unless told; a subscription waits while `unverified`), re-reads it every POLLING_INTERVAL_MS, at
 * most `maxWaitMs` or until the client goes away. Resolves when the status changed or the wait is
 * over; the caller then reads the resource as it is.
 */
export async function waitWhilePending(
  status: () => Promise<string | null>,
  maxWaitMs: number,
  signal?: AbortSignal,
  waitingStatus = 'pending',
): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0 || signal?.aborted) return;
    try {
      await sleep(Math.min(POLLING_INTERVAL_MS, remaining), undefined, { signal });
    } catch {
      return; // the client went away
    }
    if ((await status()) !== waitingStatus) return;
  }
}

/** What a GET's read waits for: whether it polls, for how long at most, until the client goes away. */
export interface PollingOptions {
  polling: boolean;
  maxWaitMs: number;
  signal?: AbortSignal;
  /** the status waited out: `pending` unless told */
  waitingStatus?: string;
}

/**
 * A GET's polling options: `polling` from its query (pollingQuerySchema, parsed before the route
 * reads anything, so that a malformed one is a 400 whatever the path names), waiting at most
 * `maxWaitMs` (CHARGE_POLLING_MAX_WAIT_MS) or until the client closes the connection.
 */
export function pollingOf(
  query: Record<string, unknown>,
  reply: Parameters<typeof closeSignal>[0],
  maxWaitMs: number,
): PollingOptions {
  const { polling } = parseInput(pollingQuerySchema, query);
  return { polling, maxWaitMs, signal: closeSignal(reply) };
}

/**
 * A GET's read with `polling=true`: `read()` once, and while it is `pending` (or
 * `options.waitingStatus`) wait for its status to change (waitWhilePending), then read again.
 */
export async function readPolling<T extends { status: string }>(
  read: () => Promise<T>,
  status: () => Promise<string | null>,
  options: PollingOptions,
): Promise<T> {
  const waitingStatus = options.waitingStatus ?? 'pending';
  const first = await read();
  if (!options.polling || first.status !== waitingStatus) return first;
  await waitWhilePending(status, options.maxWaitMs, options.signal, waitingStatus);
  return read();
}

/** Aborted when the connection closes before the answer is sent (a polling client that gave up). */
export function closeSignal(reply: {
  raw: { once(event: 'close', listener: () => void): unknown };
}): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => controller.abort());
  return controller.signal;
}
