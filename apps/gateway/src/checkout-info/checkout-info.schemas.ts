import { z } from 'zod';

/** GET /checkout_info: `origin` is the SDK's deprecated parameter; the Origin header is what the guard checks. */
export const checkoutInfoQuery = z.object({ origin: z.string().max(2048).optional() }).passthrough();
