import { z } from 'zod';
import { TRANSFER_STATUSES } from '@kessai/domain';
import { currencySchema, reason } from '../http/request.schemas';

/** The SDK's TransfersListParams (besides the page): `currency`, `status`, `started_by`. */
export const listTransfersSchema = z
  .object({
    currency: currencySchema.optional(),
    status: z.enum(TRANSFER_STATUSES).optional(),
    started_by: z.string().min(1).max(255).optional(),
  })
  .passthrough()
  .transform((q) => ({ currency: q.currency, status: q.status, startedBy: q.started_by }));

const instant = z
  .string()
  .refine(
    (value) => !Number.isNaN(new Date(/^\d+$/.test(value) ? Number(value) : value).getTime()),
    reason('INVALID_FORMAT_DATE'),
  )
  .transform((value) => new Date(/^\d+$/.test(value) ? Number(value) : value));
const amount = z
  .string()
  .refine((value) => /^-?\d{1,15}$/.test(value), reason('INVALID_FORMAT'))
  .transform((value) => BigInt(value));

/**
 * The SDK's LedgersListParams (besides the page): `currency`, `from` and `to` (instants, ISO 8601
 * or epoch milliseconds; `to` excluded), `min` and `max` (amounts owed, minor units). `all` is
 * accepted and means nothing more: a transfer's ledgers are all listed.
 */
export const listLedgersSchema = z
  .object({
    currency: currencySchema.optional(),
    from: instant.optional(),
    to: instant.optional(),
    min: amount.optional(),
    max: amount.optional(),
    all: z.enum(['true', 'false']).optional(),
  })
  .passthrough()
  .transform((q) => ({ currency: q.currency, from: q.from, to: q.to, min: q.min, max: q.max }));
