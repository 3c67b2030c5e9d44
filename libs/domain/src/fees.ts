/**
 * A charge's fee: a rate of the charged amount plus a flat amount, in the charge's currency and
 * minor units (docs/decisions/0010-configuration-merge-and-fee-rounding.md).
 */

/** One million parts per unit: a rate of 1 % is 10,000 parts per million. */
export const PPM = 1_000_000;
/** Decimal places a percent fee may have (3.2575 % is 32,575 ppm, exactly). */
export const PERCENT_FEE_DECIMALS = 4;

/** The terms a charge is accepted under, kept with it so that a later configuration cannot re-price it. */
export interface FeeTerms {
  /** parts per million of the charged amount, 0 to 1,000,000 */
  ratePpm: number;
  /** minor units of the charge's currency */
  flatAmount: bigint;
}

/**
 * A percentage (0–100, at most PERCENT_FEE_DECIMALS decimals) as parts per million; null when it has
 * more decimals than that or lies outside the range.
 */
export function percentToPpm(percent: number): number | null {
  if (!Number.isFinite(percent) || percent < 0 || percent > 100) return null;
  const ppm = Math.round(percent * 10 ** PERCENT_FEE_DECIMALS);
  // 3.3 * 10^4 is 32999.999…: tolerate binary noise, refuse a real fifth decimal
  if (Math.abs(ppm - percent * 10 ** PERCENT_FEE_DECIMALS) > 1e-6) return null;
  return ppm;
}

/**
 * The fee of a charge that took `chargedAmount`: the rate's share rounded half up to the minor unit
 * (once, on the whole amount), plus the flat amount, and never more than what was taken (a flat fee
 * on a small partial capture; a sale's fee is at most its gross). Exact integer arithmetic; never
 * negative.
 */
export function chargeFee(chargedAmount: bigint, terms: FeeTerms): bigint {
  if (chargedAmount < 0n) throw new RangeError('a charged amount is never negative');
  const share = (chargedAmount * BigInt(terms.ratePpm) + BigInt(PPM / 2)) / BigInt(PPM);
  const fee = share + terms.flatAmount;
  return fee > chargedAmount ? chargedAmount : fee;
}
