import { ValidationError, type FieldError } from '@kessai/domain';

/**
 * A part of an input as a front end checked it: its value, or the field errors found, which the
 * use case raises at the step where the API answers them (a batch's items one at a time, each
 * before the next is checked; a token's data after its store's rules). A front end that parsed
 * everything first and refused at once would answer a later part's shape before an earlier
 * refusal.
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** The checked value, or its refusal: VALIDATION_ERROR with its field errors. */
export function accepted<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new ValidationError(checked.errors);
  return checked.value;
}
