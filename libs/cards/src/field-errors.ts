/**
 * A field error assignable to @kessai/domain's FieldError, with the reason narrowed to the
 * UnivaPay validation reasons card checks produce (api-reference §2.4).
 */
export interface CardFieldError {
  field: string;
  reason: CardValidationReason;
}

export type CardValidationReason =
  | 'REQUIRED_VALUE'
  | 'INVALID_FORMAT'
  | 'INVALID_FORMAT_LENGTH'
  | 'INVALID_CARD_NUMBER'
  | 'CARD_BRAND_NOT_SUPPORTED'
  | 'INVALID_CARD_EXPIRATION'
  | 'INVALID_CVV'
  | 'NO_TEST_CARD_IN_LIVE_MODE';

/** A failed check of one field: the reason, without the field's path (the caller knows where it is). */
export type FieldCheck<T> = { ok: true; value: T } | { ok: false; reason: CardValidationReason };

export const pass = <T>(value: T): FieldCheck<T> => ({ ok: true, value });
export const fail = <T>(reason: CardValidationReason): FieldCheck<T> => ({ ok: false, reason });

export function isMissing(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}
