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

/** What a charge is held to by the store's card limit: at most `amount` for the card since `since`. */
export interface AppliedCardLimit {
  amount: bigint;
  since: Date;
}

/**
 * The store's card limit as one charge is held to it, POST /charges and the subscription engine's
 * payments alike (decisions 0070, 0076): a card charge in the limit's currency (charges in other
 * currencies, and other payment types, are not limited), its window opened `duration` before `now`;
 * null when no limit applies. What the card was charged in the window is summed by the statement
 * that inserts the charge, under the card's lock (libs/db, charges.sql.ts `cardLimitOkSql`).
 */
export function cardLimitFor(
  configuration: { card_configuration: { card_limit: CardLimit | null } },
  charge: { paymentType: string; currency: string },
  now: Date,
): AppliedCardLimit | null {
  const limit = configuration.card_configuration.card_limit;
  if (limit === null || charge.paymentType !== 'card' || limit.currency !== charge.currency) return null;
  return { amount: BigInt(limit.amount), since: cardLimitWindowStart(limit, now) };
}
