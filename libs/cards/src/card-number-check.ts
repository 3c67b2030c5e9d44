import {
  CARD_NUMBER_LENGTHS,
  CARD_NUMBER_MAX_LENGTH,
  CARD_NUMBER_MIN_LENGTH,
  type CardBrand,
  DETECTABLE_CARD_BRANDS,
  detectCardBrand,
} from './brands';
import { CardNumber, normalizeCardNumber } from './card-number';
import { fail, isMissing, pass, type FieldCheck } from './field-errors';
import { passesLuhn } from './luhn';

/**
 * A card number as typed: digits with optional spaces or hyphens, passing Luhn, of a brand we
 * recognise and accept, with a length that brand issues.
 */
export function checkCardNumber(
  value: unknown,
  acceptedBrands: readonly CardBrand[] = DETECTABLE_CARD_BRANDS,
): FieldCheck<CardNumber> {
  if (isMissing(value)) return fail('REQUIRED_VALUE');
  if (typeof value !== 'string') return fail('INVALID_CARD_NUMBER');
  const digits = normalizeCardNumber(value);
  if (digits === null || digits.length < CARD_NUMBER_MIN_LENGTH || digits.length > CARD_NUMBER_MAX_LENGTH) {
    return fail('INVALID_CARD_NUMBER');
  }
  if (!passesLuhn(digits)) return fail('INVALID_CARD_NUMBER');
  const brand = detectCardBrand(digits);
  if (brand === 'unknown') return fail('CARD_BRAND_NOT_SUPPORTED');
  if (!CARD_NUMBER_LENGTHS[brand].includes(digits.length)) return fail('INVALID_CARD_NUMBER');
  if (!acceptedBrands.includes(brand)) return fail('CARD_BRAND_NOT_SUPPORTED');
  return pass(CardNumber.fromDigits(digits));
}
