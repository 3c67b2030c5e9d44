import { DateTime, Duration } from 'luxon';
import { DEFAULT_WAIT_PERIOD, isWaitPeriod } from '@kessai/store-configuration';

/**
 * When a store's money becomes available to be paid out (docs/ledger.md, "Availability"): the
 * merchant's `wait_period` after the money was taken, rounded up to the start of a day in the
 * merchant's time zone (`display_time_zone`), so that everything taken on one local day becomes
 * available together. Pure: the instant comes in as an input.
 */

/** The start of the first local day beginning at or after `at` + `waitPeriod`, in `timeZone`. */
export function availableOn(at: Date, waitPeriod: string, timeZone: string): Date {
  const duration = Duration.fromISO(isWaitPeriod(waitPeriod) ? waitPeriod : DEFAULT_WAIT_PERIOD);
  const ready = DateTime.fromJSDate(at, { zone: timeZone }).plus(duration);
  const day = ready.startOf('day');
  return (day.equals(ready) ? day : day.plus({ days: 1 }).startOf('day')).toJSDate();
}
