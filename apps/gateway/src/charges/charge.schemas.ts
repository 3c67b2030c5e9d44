import { z } from 'zod';
import { CHARGE_STATUSES } from '@kessai/domain';
import {
  chargeAmountSchema,
  currencySchema,
  descriptorSchema,
  instant,
  MAX_CHARGE_AMOUNT,
  metadataSchema,
  PROCESSING_MODES,
  reason,
  redirectUrl,
  uuid,
} from '../http/request.schemas';

/**
 * Request schemas of the charge routes (api-reference §5.2), in wire (snake_case) form, from the
 * shared vocabulary (http/request.schemas.ts). Errors name the field and a reason, never a
 * submitted value.
 */

export const CHARGE_THREE_DS_MODES = [
  'normal',
  'force',
  'skip',
  'if_available',
  'require',
  'provided',
] as const;

/** capture_at: an ISO 8601 date-time with offset, or a Unix time in seconds or milliseconds. */
const captureAt = z.union([z.string(), z.number()]).transform((value, ctx) => {
  let at: Date;
  if (typeof value === 'number') {
    // seconds for any time before the year 5138, milliseconds otherwise: a future time is never ambiguous
    at = new Date(value < 1e11 ? value * 1000 : value);
  } else if (z.string().datetime({ offset: true }).safeParse(value).success) {
    at = new Date(value);
  } else {
    ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('INVALID_FORMAT_DATE') });
    return z.NEVER;
  }
  if (!Number.isFinite(at.getTime())) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('INVALID_FORMAT_DATE') });
    return z.NEVER;
  }
  return at;
});

/** A charge's own fee: minor units, 0 or more (its bounds against the charge: ChargesService). */
const feeAmount = z
  .number()
  .int()
  .superRefine((value, ctx) => {
    if (value < 0) ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('NUMBER_MIN') });
    else if (value > MAX_CHARGE_AMOUNT)
      ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('INVALID_AMOUNT') });
  });

export const createChargeSchema = z
  .object({
    transaction_token_id: uuid,
    amount: chargeAmountSchema,
    currency: currencySchema,
    capture: z.boolean().default(true),
    capture_at: captureAt.nullish(),
    descriptor: descriptorSchema.nullish(),
    ignore_descriptor_on_error: z.boolean().optional(),
    only_direct_currency: z.boolean().default(false),
    redirect: z.object({ endpoint: redirectUrl }).strict().nullish(),
    three_ds: z
      .object({
        mode: z.enum(CHARGE_THREE_DS_MODES).default('normal'),
        redirect_endpoint: redirectUrl.nullish(),
        redirect_id: z.string().trim().min(1).max(255).nullish(),
      })
      .strict()
      .nullish(),
    /** the end user's IP address (fraud checks); accepted, not used yet */
    ip_address: z.string().ip().optional(),
    /** this charge's fee in place of the store's terms (a platform's fee; decision 0045) */
    fee_amount: feeAmount.nullish(),
    fee_currency: currencySchema.nullish(),
    metadata: metadataSchema.optional(),
  })
  .strict();
export type CreateChargeRequest = z.infer<typeof createChargeSchema>;

export const updateChargeSchema = z.object({ metadata: metadataSchema.optional() }).strict();

export const captureSchema = z.object({ amount: chargeAmountSchema, currency: currencySchema }).strict();

const minorUnits = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform((v) => BigInt(v));

export const listChargesSchema = z
  .object({
    status: z.enum(CHARGE_STATUSES).optional(),
    mode: z.enum(PROCESSING_MODES).optional(),
    transaction_token_id: uuid.optional(),
    subscription_id: uuid.optional(),
    currency: currencySchema.optional(),
    amount_from: minorUnits.optional(),
    amount_to: minorUnits.optional(),
    from: instant.optional(),
    to: instant.optional(),
    /** one metadata entry as `key: value` (the SDK's ChargesListParams.metadata) */
    metadata: z
      .string()
      .max(500)
      .transform((v, ctx) => {
        const at = v.indexOf(':');
        const key = v.slice(0, at).trim();
        if (at < 0 || key.length === 0) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('INVALID_FORMAT') });
          return z.NEVER;
        }
        return { key, value: v.slice(at + 1).trim() };
      })
      .optional(),
  })
  .passthrough();

/**
 * POST /stores/{storeId}/charges/{id}/expiry: an extension of a bank-transfer or konbini charge's
 * payment deadline by a period (ISO 8601, with an optional time of day to move to), or to a date;
 * neither: the store's default_extension_period. Both: EITHER_PERIOD_OR_DATE.
 */
export const extendExpirySchema = z
  .object({
    expiration_period: z.string().trim().min(1).max(64).optional(),
    expiration_time_shift: z.string().trim().min(1).max(64).optional(),
    expiration_date: z
      .string()
      .datetime({ offset: true })
      .transform((v) => new Date(v))
      .optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.expiration_date && (value.expiration_period || value.expiration_time_shift))
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['expiration_date'],
        ...reason('EITHER_PERIOD_OR_DATE'),
      });
  });
export type ExtendExpiryRequest = z.infer<typeof extendExpirySchema>;
