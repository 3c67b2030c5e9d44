import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@kessai/accounts';

/** Request schemas of the merchant users' routes (sign-in, password resets), in wire form. */

/** POST /authenticate */
export const credentials = z
  .object({
    email: z.string().trim().min(1).max(254),
    password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  })
  .strict();

/** POST /password_resets */
export const resetRequest = z.object({ email: z.string().trim().email().max(254) }).strict();

/** POST /password_resets/confirm */
export const resetConfirmation = z
  .object({
    token: z.string().min(1).max(200),
    password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH),
  })
  .strict();

/**
 * POST (/stores/{storeId})/customers/authenticate: `{email}` asks for a code (refers.sendCode),
 * `{email, otp}` trades it for a customer token (refers.authorize).
 */
export const customerAuthenticationSchema = z
  .object({
    email: z.string().trim().email().max(254),
    otp: z.string().trim().min(1).max(20).optional(),
  })
  .strict();
