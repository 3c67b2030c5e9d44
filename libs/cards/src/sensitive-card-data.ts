import { inspect } from 'node:util';
import { type CardType } from './bin-table';
import { type CardBrand } from './brands';
import { cardIssuerOf } from './card-issuer';
import { type CardNumber } from './card-number';

/**
 * What a response, a token's stored data or a log line may say about a card (api-reference §5.1).
 * A type rather than an interface, so that Prisma takes it as a JSON object (a token's data.card).
 */
export type CardSummary = {
  cardholder: string;
  exp_month: number;
  exp_year: number;
  last_four: string;
  brand: CardBrand;
  card_bin: string;
  card_type: CardType;
  /** the issuer's country, ISO 3166-1 alpha-2; null when not known */
  country: string | null;
};

export interface SensitiveCardDataParts {
  cardNumber: CardNumber;
  /** null when the card is used without its security code (e.g. a later recurring charge) */
  cvv: string | null;
  expMonth: number;
  /** four digits */
  expYear: number;
  cardholder: string;
}

/**
 * A card as validated from a request, or as rebuilt from the vault for an authorization. The PAN
 * and CVV are never part of its text form: JSON.stringify and util.inspect give the summary.
 * The CVV is meant to live only as long as the authorization that needs it; `withoutCvv()`
 * gives the copy that may be kept.
 */
export class SensitiveCardData {
  readonly cardNumber: CardNumber;
  readonly #cvv: string | null;
  readonly expMonth: number;
  readonly expYear: number;
  readonly cardholder: string;

  constructor(parts: SensitiveCardDataParts) {
    this.cardNumber = parts.cardNumber;
    this.#cvv = parts.cvv;
    this.expMonth = parts.expMonth;
    this.expYear = parts.expYear;
    this.cardholder = parts.cardholder;
  }

  get brand(): CardBrand {
    return this.cardNumber.brand;
  }

  get hasCvv(): boolean {
    return this.#cvv !== null;
  }

  /** The CVV, for the one authorization request that carries it. */
  revealCvv(): string | null {
    return this.#cvv;
  }

  withoutCvv(): SensitiveCardData {
    return new SensitiveCardData({
      cardNumber: this.cardNumber,
      cvv: null,
      expMonth: this.expMonth,
      expYear: this.expYear,
      cardholder: this.cardholder,
    });
  }

  summary(): CardSummary {
    const issuer = cardIssuerOf(this.cardNumber.reveal());
    return {
      cardholder: this.cardholder,
      exp_month: this.expMonth,
      exp_year: this.expYear,
      last_four: this.cardNumber.lastFour,
      brand: this.brand,
      card_bin: this.cardNumber.bin,
      card_type: issuer.cardType,
      country: issuer.country,
    };
  }

  toJSON(): CardSummary & { cvv: '[redacted]' | null } {
    return { ...this.summary(), cvv: this.hasCvv ? '[redacted]' : null };
  }

  toString(): string {
    return `SensitiveCardData(${this.brand} ${this.cardNumber.toString()})`;
  }

  [inspect.custom](): string {
    return `SensitiveCardData ${inspect(this.toJSON())}`;
  }
}
