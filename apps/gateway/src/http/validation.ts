import type { ZodIssue, ZodType, ZodTypeDef } from 'zod';
import { type FieldError } from '@kessai/domain';
import { accepted, type Checked } from '@kessai/payments';

function reasonOf(issue: ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.received === 'undefined' ? 'REQUIRED_VALUE' : 'INVALID_FORMAT';
    case 'too_small':
    case 'too_big':
      return issue.type === 'string' || issue.type === 'array'
        ? 'INVALID_FORMAT_LENGTH'
        : 'NOT_WITHIN_BOUNDS';
    case 'invalid_enum_value':
    case 'invalid_literal':
      return 'INVALID_FORMAT';
    case 'unrecognized_keys':
      return 'FORBIDDEN_PARAMETER';
    case 'invalid_string':
      if (issue.validation === 'uuid') return 'INVALID_UUID';
      if (issue.validation === 'email') return 'INVALID_FORMAT_EMAIL';
      if (issue.validation === 'url') return 'INVALID_FORMAT_URL';
      return 'INVALID_FORMAT';
    case 'custom':
      return typeof issue.params?.reason === 'string' ? issue.params.reason : 'INVALID_FORMAT';
    case 'invalid_date':
      return 'INVALID_FORMAT_DATE';
    case 'not_multiple_of':
    case 'not_finite':
      return 'NOT_WITHIN_BOUNDS';
    case 'invalid_union':
    case 'invalid_union_discriminator':
    case 'invalid_intersection_types':
    case 'invalid_arguments':
    case 'invalid_return_type':
      return 'INVALID_FORMAT';
  }
}

export function toFieldErrors(issues: ZodIssue[]): FieldError[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: [...issue.path, key].join('.'),
        reason: 'FORBIDDEN_PARAMETER',
      }));
    }
    return [{ field: issue.path.length > 0 ? issue.path.join('.') : null, reason: reasonOf(issue) }];
  });
}

/** Request input checked against a snake_case schema (absent: `{}`): its value, or its field errors. */
export function checkInput<T>(schema: ZodType<T, ZodTypeDef, unknown>, input: unknown): Checked<T> {
  const result = schema.safeParse(input ?? {});
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, errors: toFieldErrors(result.error.issues) };
}

/** Parses request input against a snake_case schema, or throws a ValidationError naming each field. */
export function parseInput<T>(schema: ZodType<T, ZodTypeDef, unknown>, input: unknown): T {
  return accepted(checkInput(schema, input));
}
