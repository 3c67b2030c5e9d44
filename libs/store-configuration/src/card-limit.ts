import { DateTime, Duration } from 'luxon';
import type { CardLimit } from './configuration';

// `card_configuration.card_limit` (CardLimit, with the other settings' types): its window's rules
// (decision 0070). Pure: the instant "now" is an input.

/** The longest window a card limit may look back over. */
export const LONGEST_CARD_LIMIT_WINDOW = Duration.fromObject({ days: 366 });

/** Dates only: a window of hours would be a velocity rule, which the SDK's type does not describe. */
const DATE_PERIOD = /^P(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?$/;

/** Whether `period` is a positive ISO 8601 period of dates at most LONGEST_CARD_LIMIT_WINDOW long. */
export function isCardLimitDuration(period: string): boolean {
  if (period === 'P' || !DATE_PERIOD.test(period)) return false;
  const duration = Duration.fromISO(period);
  if (!duration.isValid) return false;
  const millis = duration.as('milliseconds');
  // months and years are counted as 30 and 365 days only to bound the window; the window itself
  // goes back on the calendar (cardLimitWindowStart)
  return millis > 0 && duration <= LONGEST_CARD_LIMIT_WINDOW;
}

/** The instant the limit's window opens: `duration` before `now`, on the calendar (UTC). */
export function cardLimitWindowStart(limit: CardLimit, now: Date): Date {
  return DateTime.fromJSDate(now, { zone: 'utc' }).minus(Duration.fromISO(limit.duration)).toJSDate();
}
