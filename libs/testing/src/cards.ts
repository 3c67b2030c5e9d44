import { randomInt } from 'node:crypto';
import { isTestCard, luhnCheckDigit, passesLuhn, testCardOutcome } from '@kessai/cards';

/** A catalogue test card the processor simulator approves: what test-mode tokens take. */
export const APPROVED_TEST_CARD = '4000056655665556';

/** Luhn-valid, a real Visa range, not a catalogue test card: what live mode takes (test mode approves it). */
export const REAL_CARD_NUMBER = `453201511283036${luhnCheckDigit('453201511283036')}`;

/** An expiry year that has not come yet. */
export const NEXT_YEAR = new Date().getUTCFullYear() + 1;

const randomDigits = (count: number) => Array.from({ length: count }, () => String(randomInt(10))).join('');

/**
 * A Luhn-valid number outside the test-card catalogue, `length` digits from `prefix` to `ending`
 * (random digits between): what UnivaPay's test-mode rules apply to (…1111, …4242, …1881).
 */
export function cardNumberEndingIn(
  ending: string,
  { prefix = '4539', length = 16 }: { prefix?: string; length?: number } = {},
): string {
  for (;;) {
    const head = `${prefix}${randomDigits(length - prefix.length - ending.length - 1)}`;
    for (let digit = 0; digit <= 9; digit++) {
      const number = `${head}${digit}${ending}`;
      if (passesLuhn(number) && !isTestCard(number)) return number;
    }
  }
}

/** A random Luhn-valid number outside the catalogue that test mode simply approves. */
export function ordinaryCardNumber({ prefix = '4539', length = 16 } = {}): string {
  for (;;) {
    const partial = `${prefix}${randomDigits(length - prefix.length - 1)}`;
    const number = `${partial}${luhnCheckDigit(partial)}`;
    if (!isTestCard(number) && testCardOutcome(number) === 'approved') return number;
  }
}

/** The `data` of a card token request as the API takes it (snake_case), approved test card by default. */
export function cardData(overrides: Record<string, unknown> = {}) {
  return {
    cardholder: 'Taro Yamada',
    card_number: APPROVED_TEST_CARD,
    exp_month: 12,
    exp_year: NEXT_YEAR,
    cvv: '123',
    ...overrides,
  };
}
