import { type CardValidationReason, fail, isMissing, pass, type FieldCheck } from './field-errors';

/** How far ahead an expiry year may be; networks issue cards for at most about ten years. */
export const MAX_EXPIRY_YEARS_AHEAD = 20;

export interface ExpiryCheckOptions {
  now?: Date;
  maxYearsAhead?: number;
}

export type ExpiryCheck =
  | { ok: true; month: number; year: number }
  | { ok: false; errors: { field: 'exp_month' | 'exp_year'; reason: CardValidationReason }[] };

/**
 * Reads an integer the SDKs may send as a number or a zero-padded string ("09", api-reference
 * §5.1), accepting only the given digit counts.
 */
function readInteger(value: unknown, digitCounts: readonly number[]): FieldCheck<number> {
  if (isMissing(value)) return fail('REQUIRED_VALUE');
  const text = typeof value === 'number' ? (Number.isInteger(value) ? String(value) : '') : value;
  if (typeof text !== 'string') return fail('INVALID_FORMAT');
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed) || !digitCounts.includes(trimmed.length)) return fail('INVALID_FORMAT');
  return pass(Number(trimmed));
}

/** Month 1–12 as a number or "1".."12"/"01".."09". */
export function checkExpiryMonth(value: unknown): FieldCheck<number> {
  const month = readInteger(value, [1, 2]);
  if (!month.ok) return month;
  return month.value >= 1 && month.value <= 12 ? month : fail('INVALID_CARD_EXPIRATION');
}

/** Year as 2 digits (20yy, as printed on the card) or 4 digits; always returned with 4. */
export function checkExpiryYear(value: unknown): FieldCheck<number> {
  const year = readInteger(value, [2, 4]);
  if (!year.ok) return year;
  return pass(year.value < 100 ? 2000 + year.value : year.value);
}

/**
 * The instant a card expiring at the end of (year, month) stops being usable. A card is valid
 * through the last day of its expiry month in the cardholder's time zone, which we do not know:
 * we take the last time zone to leave the month (UTC−12), so that no valid card is refused for
 * the hours when it is already next month in UTC. The issuer makes the final decision anyway.
 */
export function cardExpiresAt(year: number, month: number): Date {
  // Date.UTC months are 0-based, so `month` is already the month after the expiry month.
  return new Date(Date.UTC(year, month, 1, 12));
}

/** Month and year of a card together: well-formed, not yet expired, not absurdly far ahead. */
export function checkExpiry(month: unknown, year: unknown, options: ExpiryCheckOptions = {}): ExpiryCheck {
  const now = options.now ?? new Date();
  const maxYearsAhead = options.maxYearsAhead ?? MAX_EXPIRY_YEARS_AHEAD;
  const errors: { field: 'exp_month' | 'exp_year'; reason: CardValidationReason }[] = [];
  const monthCheck = checkExpiryMonth(month);
  const yearCheck = checkExpiryYear(year);
  if (!monthCheck.ok) errors.push({ field: 'exp_month', reason: monthCheck.reason });
  if (!yearCheck.ok) errors.push({ field: 'exp_year', reason: yearCheck.reason });
  if (!monthCheck.ok || !yearCheck.ok) return { ok: false, errors };

  if (now.getTime() >= cardExpiresAt(yearCheck.value, monthCheck.value).getTime()) {
    // Name the field that is wrong: a past year, or a past month of a year that is not over yet.
    const yearIsOver = now.getTime() >= cardExpiresAt(yearCheck.value, 12).getTime();
    return {
      ok: false,
      errors: [{ field: yearIsOver ? 'exp_year' : 'exp_month', reason: 'INVALID_CARD_EXPIRATION' }],
    };
  }
  if (yearCheck.value > now.getUTCFullYear() + maxYearsAhead) {
    return { ok: false, errors: [{ field: 'exp_year', reason: 'INVALID_CARD_EXPIRATION' }] };
  }
  return { ok: true, month: monthCheck.value, year: yearCheck.value };
}
