import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { APP_TOKEN_ALGORITHM } from './app-token-jwt';
import { hmacKey } from './signing-key';

/**
 * Customer tokens: what `refers.authorize` (POST /stores/{storeId}/customers/authenticate with the
 * emailed code) hands a store's customer, sent back as `Bearer <jwt>`. Signed like app tokens (HS256
 * pinned, JWT_SIGNING_KEY), told apart by `sub`; the claims are the SDK's ParsedAuthenticateToken
 * (email, roles, store_id, name, lang, logo_uri, ip_address) and what Kessai checks (merchant_id,
 * mode, exp). No row backs it: it lives CUSTOMER_TOKEN_TTL (decision 0058).
 */
export const CUSTOMER_TOKEN_SUBJECT = 'customer_token';

/** What a customer token may do (the SDK's CustomerRole values): update its card, cancel its subscription. */
export const CUSTOMER_ROLES = ['subscription_update_token', 'subscription_delete'] as const;
export type CustomerTokenRole = (typeof CUSTOMER_ROLES)[number];

const uuid = z.string().uuid();

export const customerTokenClaimsSchema = z
  .object({
    sub: z.literal(CUSTOMER_TOKEN_SUBJECT),
    jti: uuid,
    merchant_id: uuid,
    store_id: uuid,
    mode: z.enum(['test', 'live']),
    email: z.string().min(1),
    roles: z.array(z.enum(CUSTOMER_ROLES)),
    name: z.string(),
    lang: z.string(),
    logo_uri: z.string(),
    ip_address: z.string(),
    iat: z.number().int(),
    exp: z.number().int(),
  })
  .strict();

export type CustomerTokenClaims = z.infer<typeof customerTokenClaimsSchema>;

export interface CustomerTokenInput {
  id: string;
  merchantId: string;
  storeId: string;
  mode: 'test' | 'live';
  email: string;
  storeName: string;
  lang: string;
  logoUri: string;
  ipAddress: string;
  expiresOn: Date;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

export function signCustomerToken(
  input: CustomerTokenInput,
  signingKey: string,
  issuedAt = new Date(),
): string {
  const claims: CustomerTokenClaims = {
    sub: CUSTOMER_TOKEN_SUBJECT,
    jti: input.id,
    merchant_id: input.merchantId,
    store_id: input.storeId,
    mode: input.mode,
    email: input.email,
    roles: [...CUSTOMER_ROLES],
    name: input.storeName,
    lang: input.lang,
    logo_uri: input.logoUri,
    ip_address: input.ipAddress,
    iat: seconds(issuedAt),
    exp: seconds(input.expiresOn),
  };
  return jwt.sign(claims, hmacKey(signingKey), { algorithm: APP_TOKEN_ALGORITHM });
}

/**
 * Verifies signature (HS256 only) and claim shapes, then expiry: the claims, 'expired' for a
 * genuine token past its `exp`, or null for anything else.
 */
export function verifyCustomerToken(
  token: string,
  signingKey: string,
  now = new Date(),
): CustomerTokenClaims | 'expired' | null {
  let payload: unknown;
  try {
    payload = jwt.verify(token, hmacKey(signingKey), {
      algorithms: [APP_TOKEN_ALGORITHM],
      ignoreExpiration: true,
    });
  } catch {
    return null;
  }
  const parsed = customerTokenClaimsSchema.safeParse(payload);
  if (!parsed.success) return null;
  return parsed.data.exp <= seconds(now) ? 'expired' : parsed.data;
}
