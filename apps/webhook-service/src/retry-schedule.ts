import type { AppConfig } from '@kessai/config';

export type RetrySchedule = Pick<
  AppConfig,
  | 'WEBHOOK_MAX_ATTEMPTS'
  | 'WEBHOOK_RETRY_BASE_MS'
  | 'WEBHOOK_RETRY_FACTOR'
  | 'WEBHOOK_RETRY_MAX_DELAY_MS'
  | 'WEBHOOK_RETRY_JITTER'
>;

/**
 * How long after failed try `attempt` (from 1) the next one comes, or null when it was the last:
 * BASE × FACTOR^(attempt-1), at most MAX_DELAY, spread by ± JITTER of itself (random ∈ [0, 1)) so
 * that deliveries failing together do not come back together. Defaults: 30 s, 2 min, 8 min, 32 min,
 * 2 h 8 min, 8 h 32 min, then 12 h five times: 12 tries over about 71 hours (docs/webhooks.md).
 */
export function nextAttemptDelayMs(
  schedule: RetrySchedule,
  attempt: number,
  random: () => number = Math.random,
): number | null {
  if (attempt >= schedule.WEBHOOK_MAX_ATTEMPTS) return null;
  const base = Math.min(
    schedule.WEBHOOK_RETRY_BASE_MS * schedule.WEBHOOK_RETRY_FACTOR ** (attempt - 1),
    schedule.WEBHOOK_RETRY_MAX_DELAY_MS,
  );
  return Math.max(0, Math.round(base * (1 + schedule.WEBHOOK_RETRY_JITTER * (2 * random() - 1))));
}
