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

/**
 * availableOn for many instants (the poster's batch of sales): the same answers, computed twice per
 * UTC minute, wait period and time zone rather than once per instant (luxon's zone arithmetic was
 * most of ledger-service's CPU per posting). Within one UTC minute a zone's offset is constant (its
 * changes fall on whole minutes), so availableOn is non-decreasing across the minute: equal at its
 * first and last millisecond, it is that for every instant between; otherwise (a day starts inside
 * the minute) each instant of it is computed on its own. Remembers every minute it met: make one per
 * batch.
 */
export function availabilityMemo(): (at: Date, waitPeriod: string, timeZone: string) => Date {
  const minutes = new Map<string, number | null>();
  return (at, waitPeriod, timeZone) => {
    const minute = Math.floor(at.getTime() / 60_000) * 60_000;
    const key = `${minute}|${waitPeriod}|${timeZone}`;
    let known = minutes.get(key);
    if (known === undefined) {
      const first = availableOn(new Date(minute), waitPeriod, timeZone).getTime();
      const last = availableOn(new Date(minute + 59_999), waitPeriod, timeZone).getTime();
      known = first === last ? first : null;
      minutes.set(key, known);
    }
    return known === null ? availableOn(at, waitPeriod, timeZone) : new Date(known);
  };
}
