import { passesLuhn } from '@kessai/cards';

/**
 * Digit runs of 13–19 digits (optionally grouped by spaces or hyphens) that pass Luhn: what a card
 * number looks like in any text. A log scan expects none.
 */
export function luhnValidRuns(text: string): string[] {
  const runs = text.match(/\d(?:[ -]?\d){12,}/g) ?? [];
  return runs
    .map((run) => run.replace(/[ -]/g, ''))
    .filter((digits) => digits.length >= 13 && digits.length <= 19 && passesLuhn(digits));
}
