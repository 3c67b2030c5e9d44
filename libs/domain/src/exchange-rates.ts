import { currencyExponent } from './money';

/**
 * Exchange rates are the operator's (set with the admin CLI, docs/exchange-rates.md), never a market
 * feed. A rate is a decimal in plain digits — units of the target currency per unit of the source,
 * in major units — kept as text so that it is read back exactly; the conversion is integer
 * arithmetic on minor units (bigint), with one rounding at the end.
 */

/** Up to 18 digits before the point and 12 after it: what the table's trigger accepts. */
export const EXCHANGE_RATE_PATTERN = /^[0-9]{1,18}(\.[0-9]{1,12})?$/;

/** A rate as an integer and its decimal scale (0.0067 → 67n, 4); null when not a positive decimal. */
export function parseExchangeRate(text: string): { units: bigint; scale: number } | null {
  if (!EXCHANGE_RATE_PATTERN.test(text)) return null;
  const [whole, fraction = ''] = text.split('.');
  const units = BigInt(whole + fraction);
  return units > 0n ? { units, scale: fraction.length } : null;
}

/** The canonical text of a rate: no leading zeros, no trailing fractional zeros ("0010.50" → "10.5"). */
export function normalizeExchangeRate(text: string): string | null {
  const rate = parseExchangeRate(text);
  if (!rate) return null;
  const digits = rate.units.toString().padStart(rate.scale + 1, '0');
  const whole = digits.slice(0, digits.length - rate.scale);
  const fraction = digits.slice(digits.length - rate.scale).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/**
 * `amount` minor units of `from` in minor units of `to` at `rate`, rounded half up (away from zero
 * at exactly one half): amount × rate × 10^exp(to) / 10^exp(from), in integers throughout.
 * JPY 1000 at 0.0067 → USD 670 (6.70); USD 1250 at 149.5 → JPY 1869 (1868.75).
 */
export function convertAmount(amount: bigint, from: string, to: string, rate: string): bigint {
  const parsed = parseExchangeRate(rate);
  if (!parsed) throw new Error(`not an exchange rate: ${rate}`);
  const numerator = amount * parsed.units * 10n ** BigInt(currencyExponent(to));
  const denominator = 10n ** BigInt(currencyExponent(from) + parsed.scale);
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  if (remainder === 0n) return quotient;
  const twice = 2n * (remainder < 0n ? -remainder : remainder);
  if (twice < denominator) return quotient;
  return numerator < 0n ? quotient - 1n : quotient + 1n;
}
