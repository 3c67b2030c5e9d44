import { DateTime, Duration } from 'luxon';
import type { ExpirationTimeShift } from './configuration';

/**
 * The payment deadline of a bank-transfer or konbini charge and its extensions
 * (docs/bank-transfer-and-konbini.md, "Expiry"). Pure: the instant "now" is an input.
 */

/** The longest period a deadline, or an extension, may be: beyond it a consumer's instructions go stale. */
export const LONGEST_PAYMENT_PERIOD = Duration.fromObject({ days: 60 });

/** How many times one charge's deadline may be extended (MAXIMUM_EXTENSIONS_REACHED past it). */
export const MAXIMUM_EXPIRY_EXTENSIONS = 5;

const TIME_SHIFT =
  /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.(\d{3}))?)?(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

function durationOf(period: string): Duration | null {
  const duration = Duration.fromISO(period);
  if (!duration.isValid) return null;
  const millis = duration.as('milliseconds');
  // months and years have no fixed length: luxon counts them as 30 and 365 days here, which is only
  // used to bound the period; the deadline itself adds them on the calendar
  return millis > 0 && Number.isFinite(millis) ? duration : null;
}

/** An ISO 8601 period (P7D, P1DT9H) that is positive and at most LONGEST_PAYMENT_PERIOD. */
export function isExpirationPeriod(period: string): boolean {
  const duration = durationOf(period);
  return duration !== null && duration <= LONGEST_PAYMENT_PERIOD;
}

/** `HH:mm[:ss[.SSS]]` with `Z` or an offset (`+09:00`). */
export function isTimeShift(value: string): boolean {
  return TIME_SHIFT.test(value);
}

/** The instant moved to the shift's time of day, on the date it has in the shift's offset. */
function shifted(instant: DateTime, shift: string): DateTime {
  const match = TIME_SHIFT.exec(shift);
  if (!match) return instant;
  const [, hour, minute, second, millisecond, offset] = match;
  const zone = offset === 'Z' ? 'UTC' : `UTC${offset}`;
  return instant.setZone(zone).set({
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second ?? 0),
    millisecond: Number(millisecond ?? 0),
  });
}

export interface DeadlineRules {
  /** the configuration's `expiration` */
  expiration: string;
  expiration_time_shift: ExpirationTimeShift;
}

/** What the transaction token says about its own deadline (api-reference §5.1), overriding the store's. */
export interface TokenDeadline {
  expiration_period?: string | null;
  expiration_time_shift?: string | null;
}

/**
 * The deadline of a charge created at `now`: now plus the token's `expiration_period` (else the
 * configuration's `expiration`), then moved to the token's `expiration_time_shift` (else the
 * configuration's, when enabled) on the date it falls on. A shift that would land before `now`
 * (possible only for periods under a day) keeps the unshifted instant.
 */
export function paymentDeadline(rules: DeadlineRules, token: TokenDeadline, now: Date): Date {
  const period = durationOf(token.expiration_period ?? '') ?? durationOf(rules.expiration);
  const start = DateTime.fromJSDate(now, { zone: 'UTC' });
  const unshifted = start.plus(period ?? Duration.fromObject({ days: 7 }));
  const shift =
    token.expiration_time_shift ??
    (rules.expiration_time_shift.enabled ? rules.expiration_time_shift.value : null);
  if (shift === null) return unshifted.toJSDate();
  const moved = shifted(unshifted, shift);
  return moved > start ? moved.toJSDate() : unshifted.toJSDate();
}

/** The limits an extension is held to: bank_transfer_configuration's. */
export interface ExtensionRules {
  default_extension_period: string;
  maximum_extension_period: string;
}

export type ExtensionRefusal =
  'MAXIMUM_EXTENSIONS_REACHED' | 'MAXIMUM_EXPIRY_EXTENSION_EXCEEDED' | 'POSITIVE_EXPIRY_EXTENSION_REQUIRED';

/**
 * The new deadline of an extension, or why it is refused. `request` is a period (ISO 8601) added to
 * the current deadline, or an absolute date, or neither (the configuration's default period).
 * The new deadline must be later than the current one and than `now`, and one extension may move it
 * by at most `maximum_extension_period`; at most MAXIMUM_EXPIRY_EXTENSIONS extensions per charge.
 */
export function extendedDeadline(
  rules: ExtensionRules,
  current: { deadline: Date; extensionCount: number },
  request: { period?: string; timeShift?: string; date?: Date },
  now: Date,
): { deadline: Date } | { refused: ExtensionRefusal } {
  if (current.extensionCount >= MAXIMUM_EXPIRY_EXTENSIONS) return { refused: 'MAXIMUM_EXTENSIONS_REACHED' };
  const from = DateTime.fromJSDate(current.deadline, { zone: 'UTC' });
  let next: DateTime;
  if (request.date) next = DateTime.fromJSDate(request.date, { zone: 'UTC' });
  else {
    const period = durationOf(request.period ?? rules.default_extension_period);
    if (!period) return { refused: 'POSITIVE_EXPIRY_EXTENSION_REQUIRED' };
    next = from.plus(period);
    if (request.timeShift !== undefined) {
      if (!isTimeShift(request.timeShift)) return { refused: 'POSITIVE_EXPIRY_EXTENSION_REQUIRED' };
      next = shifted(next, request.timeShift);
    }
  }
  if (next <= from || next.toJSDate() <= now) return { refused: 'POSITIVE_EXPIRY_EXTENSION_REQUIRED' };
  const maximum = durationOf(rules.maximum_extension_period);
  const ceiling = from.plus(maximum ?? Duration.fromObject({}));
  if (next > ceiling) return { refused: 'MAXIMUM_EXPIRY_EXTENSION_EXCEEDED' };
  return { deadline: next.toJSDate() };
}
