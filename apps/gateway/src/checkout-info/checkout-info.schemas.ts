import { z } from 'zod';
import { chargeAmountSchema, currencySchema } from '../http/request.schemas';
import { ONLINE_CALL_METHODS } from '../transaction-tokens/transaction-token.schemas';

/** GET /checkout_info: `origin` is the SDK's deprecated parameter; the Origin header is what the guard checks. */
export const checkoutInfoQuery = z.object({ origin: z.string().max(2048).optional() }).passthrough();

/** POST /checkout_info/gateways/{brand} (the SDK's CheckoutInfoBrandPayload). */
export const checkoutGatewaySchema = z
  .object({
    amount: chargeAmountSchema,
    currency: currencySchema,
    call_method: z.enum(ONLINE_CALL_METHODS),
    os_type: z.enum(['ios', 'android']).optional(),
    authorization_code: z.string().trim().min(1).max(512).optional(),
  })
  .strict();
