import { z } from 'zod';
import { CHARGE_STATUSES } from '@kessai/domain';
import { instant, PROCESSING_MODES } from '../http/request.schemas';

export const TRANSACTION_TYPES = ['charge', 'refund'] as const;

/**
 * GET (/stores/{storeId})/transaction_history filters, with the names UnivaPay's Java SDK sends
 * (api-reference §4): `type`, `status` (a ChargeStatus; refunds use four of them), `mode`, and the
 * date range `from` (≥) and `to` (<) on created_on, ISO 8601 with an offset, as the charges list.
 * Pagination (`limit`, `cursor`, `cursor_direction`) is parsePageRequest's; other keys are ignored.
 */
export const listTransactionHistorySchema = z
  .object({
    type: z.enum(TRANSACTION_TYPES).optional(),
    status: z.enum(CHARGE_STATUSES).optional(),
    mode: z.enum(PROCESSING_MODES).optional(),
    from: instant.optional(),
    to: instant.optional(),
  })
  .passthrough()
  .transform((q) => ({
    type: q.type ?? null,
    status: q.status ?? null,
    mode: q.mode ?? null,
    from: q.from ?? null,
    to: q.to ?? null,
  }));
