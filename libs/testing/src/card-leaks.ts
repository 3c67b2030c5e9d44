import { passesLuhn } from '@kessai/cards';

/**
 * Digit runs of 13–19 digits (optionally grouped by spaces or hyphens) that pass Luhn: what a card
 * number looks like in any text. A log scan expects none. A run right after a decimal point is the
 * fraction of a number (a duration in ms, `12.8416785858234`), not a card number: one in ten such
 * fractions passes Luhn by chance, which made log scans fail at random.
 */
export function luhnValidRuns(text: string): string[] {
  // a run standing alone: not the fraction of a number, nor digit groups of an id (a UUID's groups
  // of digits join into Luhn-valid runs by chance: "…-4827-1357-4214-8abc…"), i.e. not touching a
  // letter or digit, directly or across one dash
  const runs =
    text.match(/(?<![\dA-Za-z.])(?<![\dA-Za-z]-)\d(?:[ -]?\d){12,}(?![\dA-Za-z])(?!-[\dA-Za-z])/g) ?? [];
  return runs
    .map((run) => run.replace(/[ -]/g, ''))
    .filter((digits) => digits.length >= 13 && digits.length <= 19 && passesLuhn(digits));
}

/**
 * A pattern that finds `digits` standing alone — not inside a longer run of letters or digits. A CVV
 * such as 987 occurs by chance inside random ids (a UUID's hex groups are 4–12 characters long), so a
 * plain substring check fails at random; a CVV that leaked appears as a value of its own.
 */
export function standalone(digits: string): RegExp {
  return new RegExp(`(?<![0-9A-Za-z])${digits}(?![0-9A-Za-z])`);
}
