import { inspect } from 'node:util';
import { CARD_NUMBER_MAX_LENGTH, CARD_NUMBER_MIN_LENGTH, type CardBrand, detectCardBrand } from './brands';

/**
 * Strips the spaces and hyphens people type between digit groups. Returns null when anything else
 * is left, so that "4111 1111 1111 1111" is accepted and "4111x1111" is not.
 */
export function normalizeCardNumber(raw: string): string | null {
  const digits = raw.replace(/[\s-]/g, '');
  return /^\d+$/.test(digits) ? digits : null;
}

/** The last four digits: what responses and receipts may show. */
export function lastFourOf(digits: string): string {
  return digits.slice(-4);
}

/** The first six digits (the BIN/IIN): what responses may show as card_bin. */
export function binOf(digits: string): string {
  return digits.slice(0, 6);
}

/**
 * A primary account number (PAN) that cannot leak by accident: the digits live in a private field,
 * and every way of turning the object into text (String(), template literals, JSON.stringify,
 * util.inspect, console.log, pino) shows only the last four. The digits come out through
 * `reveal()`, which makes every use of the full number visible in review.
 */
export class CardNumber {
  readonly #digits: string;

  private constructor(digits: string) {
    this.#digits = digits;
  }

  /** From an already normalised digit string. Throws (without echoing the input) on anything else. */
  static fromDigits(digits: string): CardNumber {
    if (
      !/^\d+$/.test(digits) ||
      digits.length < CARD_NUMBER_MIN_LENGTH ||
      digits.length > CARD_NUMBER_MAX_LENGTH
    ) {
      throw new TypeError(`a card number must be ${CARD_NUMBER_MIN_LENGTH}-${CARD_NUMBER_MAX_LENGTH} digits`);
    }
    return new CardNumber(digits);
  }

  /** The full number. Call only to encrypt it, fingerprint it or send it to the processor. */
  reveal(): string {
    return this.#digits;
  }

  get brand(): CardBrand {
    return detectCardBrand(this.#digits);
  }

  get lastFour(): string {
    return lastFourOf(this.#digits);
  }

  get bin(): string {
    return binOf(this.#digits);
  }

  get length(): number {
    return this.#digits.length;
  }

  /** A masked form safe for logs and errors. */
  toString(): string {
    return `****${this.lastFour}`;
  }

  toJSON(): string {
    return this.toString();
  }

  /** Coercion (`+card`, `card == '…'`) must not yield the digits either. */
  [Symbol.toPrimitive](): string {
    return this.toString();
  }

  [inspect.custom](): string {
    return `CardNumber(${this.brand} ${this.toString()})`;
  }
}
