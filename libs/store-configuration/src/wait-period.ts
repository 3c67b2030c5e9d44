import { Duration } from 'luxon';

/**
 * A store's `wait_period` (docs/ledger.md, "Availability"): how long after a sale its money becomes
 * available to be paid out. The calendar rule that applies it is libs/schedule's availableOn.
 */

/** The wait when the configuration sets none: a week, a usual first payout delay. */
export const DEFAULT_WAIT_PERIOD = 'P7D';
/** The longest wait a configuration may set. */
export const LONGEST_WAIT_PERIOD = Duration.fromObject({ days: 90 });

/**
 * An ISO 8601 period of days, weeks or hours (P7D, P2W, PT36H; P0D: available the next local
 * midnight), at most LONGEST_WAIT_PERIOD. Months and years are refused: their length varies.
 */
export function isWaitPeriod(period: string): boolean {
  if (!/^P(?!$)(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?)?$/.test(period)) return false;
  const duration = Duration.fromISO(period);
  return duration.isValid && duration.as('milliseconds') <= LONGEST_WAIT_PERIOD.as('milliseconds');
}
