import { DateTime } from 'luxon';
import { DAYS_OF_WEEK, type TransferSchedule } from '@kessai/store-configuration';

/**
 * The payout days of a merchant's `transfer_schedule` (docs/ledger.md, "Payout schedule"), in its
 * `display_time_zone`: the calendar days on which a payout is made, each the key of its period (one
 * transfer per merchant, currency and payout day). Pure: the instant comes in as an input.
 *
 * - weekly: every `day_of_week`;
 * - biweekly: every other `day_of_week`, the weeks counted from Monday 1970-01-05 (even ones);
 * - semimonthly: `day_of_month` and the day 15 later (or earlier, from the 16th on);
 * - monthly: `day_of_month`; bimonthly: the same in January, March, May, July, September, November.
 * A day past a shorter month's end is that month's last day. `week_of_month` is not read.
 */

/** A payout day: its local date and the instant it starts, which bounds the money it pays. */
export interface PayoutDay {
  /** YYYY-MM-DD in the merchant's time zone */
  day: string;
  /** the local day's start: money available before it is paid on this day */
  startsAt: Date;
}

/** The latest payout day that has started at or before `at` (the one a payout run owes). */
export function lastPayoutDay(
  schedule: Pick<TransferSchedule, 'period' | 'day_of_week' | 'day_of_month'>,
  timeZone: string,
  at: Date,
): PayoutDay {
  let day = DateTime.fromJSDate(at, { zone: timeZone }).startOf('day');
  // every period has a payout day within 62 local days
  for (let i = 0; i < 70; i++, day = day.minus({ days: 1 }).startOf('day')) {
    if (isPayoutDay(schedule, day)) return { day: day.toISODate() as string, startsAt: day.toJSDate() };
  }
  throw new Error(`no payout day found for ${JSON.stringify(schedule)}`);
}

/** Monday 1970-01-05: the first week of the biweekly count. */
const FIRST_MONDAY = DateTime.fromISO('1970-01-05', { zone: 'UTC' });

function isPayoutDay(
  schedule: Pick<TransferSchedule, 'period' | 'day_of_week' | 'day_of_month'>,
  day: DateTime,
): boolean {
  const weekday = DAYS_OF_WEEK[day.weekday % 7];
  switch (schedule.period) {
    case 'weekly':
      return weekday === schedule.day_of_week;
    case 'biweekly': {
      if (weekday !== schedule.day_of_week) return false;
      const local = DateTime.fromISO(day.toISODate() as string, { zone: 'UTC' });
      const weeks = Math.floor(local.diff(FIRST_MONDAY, 'days').days / 7);
      return weeks % 2 === 0;
    }
    case 'semimonthly': {
      const first = schedule.day_of_month <= 15 ? schedule.day_of_month : schedule.day_of_month - 15;
      return day.day === clamp(first, day) || day.day === clamp(first + 15, day);
    }
    case 'monthly':
      return day.day === clamp(schedule.day_of_month, day);
    case 'bimonthly':
      return day.month % 2 === 1 && day.day === clamp(schedule.day_of_month, day);
  }
}

/** `dayOfMonth` in `day`'s month: its last day when the month is shorter. */
function clamp(dayOfMonth: number, day: DateTime): number {
  return Math.min(dayOfMonth, day.daysInMonth as number);
}
