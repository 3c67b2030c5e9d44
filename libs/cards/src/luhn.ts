/**
 * The Luhn (mod 10) check every card network uses to catch typos. It is not a security check: a
 * number that passes may still not exist.
 */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  return luhnSum(digits, false) % 10 === 0;
}

/** The digit that makes `partial` + digit pass the Luhn check (used to build test numbers). */
export function luhnCheckDigit(partial: string): number {
  if (!/^\d*$/.test(partial)) throw new Error('luhnCheckDigit expects digits only');
  return (10 - (luhnSum(partial, true) % 10)) % 10;
}

/** Sum with every second digit doubled, counting from the right; `doubleFirst` when a check digit will follow. */
function luhnSum(digits: string, doubleFirst: boolean): number {
  let sum = 0;
  let double = doubleFirst;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum;
}

/**
 * Whether `text` holds something that may be a card number: a run of 13–19 digits, grouped or not
 * by spaces, dots, dashes or underscores, that passes Luhn — anywhere, so it finds more than the
 * tests' log scan (libs/testing card-leaks, which skips runs inside ids and numbers to avoid false
 * alarms). For short strings a client chooses and Kessai would log (X-Request-Id): such a string is
 * not logged, and a false positive only costs the client its id.
 */
export function mayHoldCardNumber(text: string): boolean {
  return (text.match(/\d[\d ._-]*/g) ?? []).some((run) => {
    const digits = run.replace(/[ ._-]/g, '');
    return digits.length >= 13 && digits.length <= 19 && passesLuhn(digits);
  });
}
