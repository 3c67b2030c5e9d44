import { luhnCheckDigit } from '@kessai/cards';

/** A catalogue test card the processor simulator approves: what test-mode tokens take. */
export const APPROVED_TEST_CARD = '4000056655665556';

/** Luhn-valid, a real Visa range, not a catalogue test card: what live mode takes and test mode refuses. */
export const REAL_CARD_NUMBER = `453201511283036${luhnCheckDigit('453201511283036')}`;

/** An expiry year that has not come yet. */
export const NEXT_YEAR = new Date().getUTCFullYear() + 1;

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
