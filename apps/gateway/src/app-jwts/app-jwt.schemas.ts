import { z } from 'zod';
import { APP_TOKEN_DOMAIN, APP_TOKEN_DOMAINS_MAX, isWildcardOverPublicSuffix } from '@kessai/accounts';
import { reason } from '../http/request.schemas';

/** Request schemas of the app token routes (`app_jwts`), in wire (snake_case) form. */

/** POST (/stores/{storeId})/app_jwts: the new token's mode and the Origins its public use may come from. */
export const createAppJwtSchema = z
  .object({
    mode: z.enum(['test', 'live']).default('test'),
    domains: z
      .array(
        z
          .string()
          .trim()
          .max(253)
          .regex(APP_TOKEN_DOMAIN)
          .refine((domain) => !isWildcardOverPublicSuffix(domain), reason('INVALID_FORMAT')),
      )
      .max(APP_TOKEN_DOMAINS_MAX)
      .default([]),
  })
  .strict();
