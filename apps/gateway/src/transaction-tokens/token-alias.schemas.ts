import { z } from 'zod';
import {
  chargeAmountSchema,
  currencySchema,
  instant,
  metadataSchema,
  reason,
  uuid,
} from '../http/request.schemas';

/** POST /tokens/alias (the SDK's TemporaryTokenAliasCreateParams). */
export const createTokenAliasSchema = z
  .object({
    transaction_token_id: uuid,
    metadata: metadataSchema.optional(),
    amount: chargeAmountSchema.optional(),
    currency: currencySchema.optional(),
    valid_until: instant.optional(),
  })
  .strict();

/**
 * GET /stores/{storeId}/tokens/alias/{id}: `media=json` (the default). The SDK's `qr` (a PNG of the
 * alias, with `size`, `logo` and `color`) is not served: FORBIDDEN_PARAMETER (decision 0058).
 */
export const tokenAliasQuerySchema = z
  .object({
    media: z
      .string()
      .optional()
      .refine((media) => media === undefined || media === 'json', reason('FORBIDDEN_PARAMETER')),
  })
  .passthrough();
