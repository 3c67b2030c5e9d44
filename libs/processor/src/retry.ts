import { isRetryableProcessorError, type TransientProcessorError } from './processor-errors';

export interface ProcessorRetryPolicy {
  /** total tries, the first included */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_PROCESSOR_RETRY_POLICY: ProcessorRetryPolicy = {
  attempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
};

/**
 * Exponential backoff with full jitter: a random delay up to base·2^(retry−1), capped. The jitter
 * keeps many workers that failed together from retrying together. A processor's Retry-After
 * (capped too) is a lower bound.
 */
export function backoffDelayMs(
  retry: number,
  policy: ProcessorRetryPolicy,
  error?: TransientProcessorError,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const jittered = Math.floor(random() * ceiling);
  const floor = Math.min(policy.maxDelayMs, error?.retryAfterMs ?? 0);
  return Math.max(jittered, floor);
}

export interface RetryHooks {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onRetry?: (error: TransientProcessorError, retry: number, delayMs: number) => void;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs a processor call, retrying transient failures with backoff and rethrowing anything final
 * at once, or the last transient failure when the attempts run out. Only for idempotent calls,
 * which every PaymentProcessor call is when its idempotency key is kept between attempts.
 */
export async function withProcessorRetries<T>(
  call: (attempt: number) => Promise<T>,
  policy: ProcessorRetryPolicy = DEFAULT_PROCESSOR_RETRY_POLICY,
  hooks: RetryHooks = {},
): Promise<T> {
  const sleep = hooks.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt);
    } catch (error) {
      if (!isRetryableProcessorError(error) || attempt >= policy.attempts) throw error;
      const delay = backoffDelayMs(attempt, policy, error, hooks.random);
      hooks.onRetry?.(error, attempt, delay);
      await sleep(delay);
    }
  }
}
