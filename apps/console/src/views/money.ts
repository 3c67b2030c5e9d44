import { currencyExponent } from '@kessai/domain';

/** Minor units as the major amount a person reads (JPY 1000 → "1000", USD 1250 → "12.50"). */
export function majorAmount(amount: bigint, currency: string): string {
  const exponent = currencyExponent(currency);
  const negative = amount < 0n;
  const digits = (negative ? -amount : amount).toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = exponent > 0 ? `.${digits.slice(digits.length - exponent)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

export function money(amount: bigint, currency: string): string {
  return `${majorAmount(amount, currency)} ${currency}`;
}

/**
 * A major amount a person typed ("12.5", "1000") in minor units, or null when it is not a plain
 * decimal with at most the currency's digits after the point.
 */
export function minorAmount(text: string, currency: string): bigint | null {
  const exponent = currencyExponent(currency);
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > exponent) return null;
  return BigInt(match[1] + fraction.padEnd(exponent, '0'));
}
