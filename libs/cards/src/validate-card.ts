import { BusinessRuleError, ValidationError } from '@kessai/domain';
import { type CardBrand, DETECTABLE_CARD_BRANDS } from './brands';
import { checkCardNumber } from './card-number-check';
import { checkCardholder } from './cardholder';
import { checkCvv } from './cvv';
import { checkExpiry } from './expiry';
import { type CardFieldError, isMissing } from './field-errors';
import { SensitiveCardData } from './sensitive-card-data';
import { isTestCard } from './test-cards';

/** The card fields of a token's `data`, as they arrive on the wire (api-reference §5.1). */
export interface CardInput {
  cardholder?: unknown;
  card_number?: unknown;
  exp_month?: unknown;
  exp_year?: unknown;
  cvv?: unknown;
}

export type ProcessingMode = 'test' | 'live' | 'live_test';

export interface CardValidationOptions {
  /**
   * The token's mode. `live` refuses the catalogue's test cards; `test` and `live_test` take any
   * valid number, as UnivaPay's test mode does (the simulator decides what it does:
   * `testCardOutcome`).
   */
  mode: ProcessingMode;
  now?: Date;
  /** Prefix of every error's field path; the token API nests card fields under `data`. */
  fieldPrefix?: string;
  /** Whether a missing CVV is an error (true unless the caller's rules allow cards without one). */
  cvvRequired?: boolean;
  /** Brands the store accepts; defaults to every brand we can recognise. */
  acceptedBrands?: readonly CardBrand[];
  maxYearsAhead?: number;
}

export type CardValidationResult =
  | { ok: true; card: SensitiveCardData }
  | { ok: false; code: 'VALIDATION_ERROR' | 'NO_TEST_CARD_IN_LIVE_MODE'; errors: CardFieldError[] };

/**
 * Checks every card field and reports all problems at once, each naming its field. Error reasons
 * never contain the submitted values.
 */
export function validateCard(input: CardInput, options: CardValidationOptions): CardValidationResult {
  const prefix = options.fieldPrefix ?? 'data';
  const at = (field: string) => (prefix ? `${prefix}.${field}` : field);
  const errors: CardFieldError[] = [];

  const cardholder = checkCardholder(input.cardholder);
  if (!cardholder.ok) errors.push({ field: at('cardholder'), reason: cardholder.reason });

  const cardNumber = checkCardNumber(input.card_number, options.acceptedBrands ?? DETECTABLE_CARD_BRANDS);
  if (!cardNumber.ok) errors.push({ field: at('card_number'), reason: cardNumber.reason });

  const expiry = checkExpiry(input.exp_month, input.exp_year, {
    now: options.now,
    maxYearsAhead: options.maxYearsAhead,
  });
  if (!expiry.ok) errors.push(...expiry.errors.map((e) => ({ field: at(e.field), reason: e.reason })));

  let cvv: string | null = null;
  if (options.cvvRequired !== false || !isMissing(input.cvv)) {
    const cvvCheck = checkCvv(input.cvv, cardNumber.ok ? cardNumber.value.brand : 'unknown');
    if (cvvCheck.ok) cvv = cvvCheck.value;
    else errors.push({ field: at('cvv'), reason: cvvCheck.reason });
  }

  if (errors.length > 0 || !cardholder.ok || !cardNumber.ok || !expiry.ok) {
    return { ok: false, code: 'VALIDATION_ERROR', errors };
  }

  if (options.mode === 'live' && isTestCard(cardNumber.value.reveal())) {
    return {
      ok: false,
      code: 'NO_TEST_CARD_IN_LIVE_MODE',
      errors: [{ field: at('card_number'), reason: 'NO_TEST_CARD_IN_LIVE_MODE' }],
    };
  }

  return {
    ok: true,
    card: new SensitiveCardData({
      cardNumber: cardNumber.value,
      cvv,
      expMonth: expiry.month,
      expYear: expiry.year,
      cardholder: cardholder.value,
    }),
  };
}

/** validateCard for request handlers: the card, or the domain error the gateway's filter renders. */
export function assertValidCard(input: CardInput, options: CardValidationOptions): SensitiveCardData {
  const result = validateCard(input, options);
  if (result.ok) return result.card;
  if (result.code === 'NO_TEST_CARD_IN_LIVE_MODE') throw new BusinessRuleError(result.code, result.errors);
  throw new ValidationError(result.errors);
}
