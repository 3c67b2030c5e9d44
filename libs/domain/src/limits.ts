/**
 * Resource limits (spec "Limits"), the one place their numbers live. Two kinds:
 * - active limits: at most N live resources per scope (a merchant's own resources, store_id null,
 *   and each store's resources are counted apart); a resource stops counting when it is revoked or
 *   deactivated;
 * - daily quotas: at most N creations per scope per UTC calendar day (00:00:00.000Z to the next
 *   midnight), whatever happens to the created resources later.
 * Creating beyond a limit fails with ResourceLimitError (400 RESOURCE_LIMIT_REACHED).
 */
export const ACTIVE_LIMITS = {
  app_token: 20,
  webhook: 20,
} as const;

export const DAILY_QUOTAS = {
  password_reset: 5,
  test_charge: 1_440,
} as const;

/** How far one advance may move a test clock: five years (a year of 366 days, five times). */
export const MAX_TEST_CLOCK_ADVANCE_MS = 5 * 366 * 24 * 3_600_000;

export type ActiveLimitedResource = keyof typeof ACTIVE_LIMITS;
export type DailyQuotaResource = keyof typeof DAILY_QUOTAS;

/** The UTC calendar day of an instant, as YYYY-MM-DD: the key daily quotas are counted under. */
export function utcDay(at: Date): string {
  if (Number.isNaN(at.getTime())) throw new RangeError('utcDay needs a valid date');
  return at.toISOString().slice(0, 10);
}
