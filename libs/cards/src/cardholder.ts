import { fail, isMissing, pass, type FieldCheck } from './field-errors';

/** Embossed names are at most 26 characters; online forms allow longer names, within reason. */
export const CARDHOLDER_MAX_LENGTH = 64;

/**
 * The name on the card: letters of any script, spaces and the punctuation names use. Digits are
 * refused, because a card number typed into the name field would otherwise be stored and shown
 * in the clear, outside the vault.
 */
export function checkCardholder(value: unknown): FieldCheck<string> {
  if (isMissing(value)) return fail('REQUIRED_VALUE');
  if (typeof value !== 'string') return fail('INVALID_FORMAT');
  const name = value.trim().replace(/\s+/g, ' ');
  if (name.length > CARDHOLDER_MAX_LENGTH) return fail('INVALID_FORMAT_LENGTH');
  if (!/^[\p{L}\p{M}][\p{L}\p{M} .,'’-]*$/u.test(name)) return fail('INVALID_FORMAT');
  return pass(name);
}
