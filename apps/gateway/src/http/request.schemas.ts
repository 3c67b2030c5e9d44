import { z } from 'zod';
import { isKnownCurrency, MAX_CHARGE_AMOUNT, ValidationError } from '@kessai/domain';
import type { Metadata, MetadataScalar } from '@kessai/payments';
import { parseCalendarPeriod } from '@kessai/schedule';
import { parseJsonText } from './json-text';

/**
 * The request vocabulary the routes share (api-reference §3, §4), in wire (snake_case) form: ids,
 * metadata, currencies, amounts, instants, processing modes, the polling query. A route's own
 * schemas (`<resource>.schemas.ts`) are built from these, so that one field is refused with one
 * reason everywhere. Errors name the field and a reason, never a submitted value.
 */

/** A refinement's reason, as toFieldErrors (http/validation.ts) reads it from the issue's params. */
export const reason = (name: string) => ({ params: { reason: name } });

/** Adds a custom issue with `name` as its reason at `path`. */
export const issue = (ctx: z.RefinementCtx, path: (string | number)[], name: string) =>
  ctx.addIssue({ code: z.ZodIssueCode.custom, path, ...reason(name) });

/** A resource's id in a body or a query: a UUID in any case (INVALID_UUID otherwise). */
export const uuid = z.string().uuid();

/** ProcessingMode (api-reference §5.12), as a list filter. */
export const PROCESSING_MODES = ['test', 'live', 'live_test'] as const;

/** TransactionTokenType (api-reference §5.12): a token's, and a checkout link's. */
export const TOKEN_TYPES = ['one_time', 'subscription', 'recurring'] as const;

const METADATA_MAX_JSON_LENGTH = 16_384;

const isScalar = (v: unknown): v is MetadataScalar =>
  v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * Metadata as an object or a JSON-encoded object (the SDK allows both, api-reference §3): flat,
 * values scalars or arrays of scalars, kept verbatim.
 */
// the object form first: it is the common one, and a union's failed first option costs an issue
// object and its message every time (both failing is INVALID_FORMAT either way)
export const metadataSchema = z.union([z.record(z.unknown()), z.string()]).transform((raw, ctx): Metadata => {
  let value: unknown = raw;
  if (typeof raw === 'string') {
    // held to the body's limits and string rules (a decoded string may spell U+0000 or a lone
    // surrogate, which the request body's parser could not see)
    try {
      value = parseJsonText(raw);
    } catch (error) {
      if (!(error instanceof ValidationError)) value = undefined;
      else {
        for (const { field, reason } of error.errors)
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: field ? [field] : [], params: { reason } });
        return z.NEVER;
      }
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, params: { reason: 'INVALID_FORMAT_OBJECT' } });
    return z.NEVER;
  }
  // flat first: only then is its length measured (stringifying a deep value could overflow the stack)
  let flat = true;
  for (const [key, entry] of Object.entries(value)) {
    const ok = isScalar(entry) || (Array.isArray(entry) && entry.every(isScalar));
    if (!ok) {
      flat = false;
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [key],
        params: { reason: 'NESTED_JSON_NOT_ALLOWED' },
      });
    }
  }
  if (!flat) return z.NEVER;
  if (JSON.stringify(value).length > METADATA_MAX_JSON_LENGTH) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, params: { reason: 'INVALID_FORMAT_LENGTH' } });
    return z.NEVER;
  }
  return value as Metadata;
});

export { MAX_CHARGE_AMOUNT };

/** A positive integer amount in minor units, at most MAX_CHARGE_AMOUNT: a charge's, a plan's. */
export const chargeAmountSchema = z
  .number()
  .int()
  .superRefine((value, ctx) => {
    if (value < 1) ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('CHARGE_AMOUNT_TOO_LOW') });
    else if (value > MAX_CHARGE_AMOUNT)
      ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('CHARGE_AMOUNT_TOO_HIGH') });
  });

/** An ISO 4217 code, any case on input, upper case after parsing. */
export const currencySchema = z
  .string()
  .regex(/^[A-Za-z]{3}$/)
  .transform((v) => v.toUpperCase())
  .refine(isKnownCurrency, reason('UNSUPPORTED_CURRENCY'));

/** An ISO 8601 date-time with an offset, as a Date. */
export const instant = z
  .string()
  .datetime({ offset: true })
  .transform((v) => new Date(v))
  // zod accepts offsets such as +25:00 that no Date can hold
  .refine((at) => Number.isFinite(at.getTime()), reason('INVALID_FORMAT_DATE'));

/** A calendar date, YYYY-MM-DD (whether it exists, and in which zone, is the use case's to say). */
export const calendarDate = (invalidReason = 'INVALID_FORMAT_DATE') =>
  z.string().refine((value) => /^\d{4}-\d{2}-\d{2}$/.test(value), reason(invalidReason));

/** An ISO 8601 duration of whole years, months, weeks and days (P1M, P2W, P23D). */
export const calendarPeriod = (invalidReason: string) =>
  z.string().transform((value, ctx) => {
    const period = parseCalendarPeriod(value);
    if (period === null) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason(invalidReason) });
      return z.NEVER;
    }
    return period;
  });

/** An absolute URL the customer is sent to (a redirect endpoint). */
export const redirectUrl = z.string().trim().url().max(2048);

/** A charge's or subscription's descriptor: the text on the customer's statement. */
export const descriptorSchema = z.string().trim().min(1).max(200);

/**
 * `polling=true` of a GET (api-reference §8): the answer waits, bounded, while the resource is
 * pending (http/polling.ts). Other keys are ignored.
 */
export const pollingQuerySchema = z
  .object({ polling: z.enum(['true', 'false']).optional() })
  .passthrough()
  .transform((q) => ({ polling: q.polling === 'true' }));
