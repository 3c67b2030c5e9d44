import { z } from 'zod';
import { REFUND_REASONS } from '@kessai/payments';
import { currencySchema, MAX_CHARGE_AMOUNT, metadataSchema, reason } from '../http/request.schemas';

/** Request schemas of the refund routes (api-reference §5.4), in wire (snake_case) form. */

/** A positive integer amount in minor units: at least 1, at most what a charge may be. */
const amount = z
  .number()
  .int()
  .refine((value) => value >= 1 && value <= MAX_CHARGE_AMOUNT, reason('REFUND_NOT_WITHIN_BOUNDS'));

const message = z.string().trim().min(1).max(255);

export const createRefundSchema = z
  .object({
    amount,
    currency: currencySchema,
    reason: z.enum(REFUND_REASONS).nullish(),
    message: message.nullish(),
    metadata: metadataSchema.optional(),
  })
  .strict();

/** PATCH: reason, message, metadata; `status` only as it is (a refund's status is the processor's). */
export const updateRefundSchema = z
  .object({
    status: z.enum(['pending', 'successful', 'failed', 'error']).optional(),
    reason: z.enum(REFUND_REASONS).nullish(),
    message: message.nullish(),
    metadata: metadataSchema.optional(),
  })
  .strict();
