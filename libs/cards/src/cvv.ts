import { type CardBrand, cvvLengths } from './brands';
import { fail, isMissing, pass, type FieldCheck } from './field-errors';

/**
 * The card security code: 3 digits, 4 for American Express. Sent as a string so that a leading
 * zero survives; a JSON number is accepted when it still has the right digit count.
 */
export function checkCvv(value: unknown, brand: CardBrand): FieldCheck<string> {
  if (isMissing(value)) return fail('REQUIRED_VALUE');
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^\d+$/.test(text)) return fail('INVALID_CVV');
  return cvvLengths(brand).includes(text.length) ? pass(text) : fail('INVALID_CVV');
}
