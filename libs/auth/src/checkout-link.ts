import { createHmac, timingSafeEqual } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { APP_TOKEN_ALGORITHM } from './app-token-jwt';
import { hmacKey } from './signing-key';

/**
 * A checkout link's own credentials (the SDK's ECFormLinkItem `jwt` and `secret`), derived from the
 * link rather than stored (docs/decisions/0017-checkout-link-credentials.md):
 *
 * - `secret`: HMAC-SHA256 under JWT_SIGNING_KEY of a label and the link's id, base64url. Whoever holds
 *   it may read the link's checkout info (GET /checkout/info/{id}?secret=…). The same link always has
 *   the same secret, so GET /checkout/links/{id} can show it again; nothing secret is in the database.
 * - `jwt`: HS256 under the same key, `sub` "checkout_link", naming the link, its store and mode, and
 *   expiring with the link. Its subject is neither "app_token" nor "login_token", so the gateway's
 *   authentication refuses it as a credential: it cannot call the API.
 */
export const CHECKOUT_LINK_SUBJECT = 'checkout_link';

const SECRET_LABEL = 'kessai:checkout_link_secret:v1:';

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

export interface CheckoutLinkIdentity {
  id: string;
  merchantId: string;
  storeId: string;
  formId: string;
  mode: string;
  createdOn: Date;
  expiry: Date | null;
}

export function checkoutLinkSecret(linkId: string, signingKey: string): string {
  return createHmac('sha256', hmacKey(signingKey))
    .update(`${SECRET_LABEL}${linkId.toLowerCase()}`, 'utf8')
    .digest('base64url');
}

/** Constant-time check of a presented link secret. */
export function checkoutLinkSecretMatches(linkId: string, presented: string, signingKey: string): boolean {
  const expected = Buffer.from(checkoutLinkSecret(linkId, signingKey), 'utf8');
  const actual = Buffer.from(presented, 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export const checkoutLinkClaimsSchema = z
  .object({
    sub: z.literal(CHECKOUT_LINK_SUBJECT),
    jti: z.string().uuid(),
    merchant_id: z.string().uuid(),
    store_id: z.string().uuid(),
    form_id: z.string().uuid(),
    mode: z.string(),
    iat: z.number().int(),
    exp: z.number().int().optional(),
  })
  .strict();

export type CheckoutLinkClaims = z.infer<typeof checkoutLinkClaimsSchema>;

/** The link's JWT: the same every time for the same link (its claims are the link's own fields). */
export function signCheckoutLink(link: CheckoutLinkIdentity, signingKey: string): string {
  const claims: CheckoutLinkClaims = {
    sub: CHECKOUT_LINK_SUBJECT,
    jti: link.id,
    merchant_id: link.merchantId,
    store_id: link.storeId,
    form_id: link.formId,
    mode: link.mode,
    iat: seconds(link.createdOn),
    ...(link.expiry ? { exp: seconds(link.expiry) } : {}),
  };
  return jwt.sign(claims, hmacKey(signingKey), { algorithm: APP_TOKEN_ALGORITHM });
}

/** Verifies a link JWT (HS256 only, expiry, claim shapes); null when it is not a valid one. */
export function verifyCheckoutLink(
  token: string,
  signingKey: string,
  now = new Date(),
): CheckoutLinkClaims | null {
  try {
    const payload = jwt.verify(token, hmacKey(signingKey), {
      algorithms: [APP_TOKEN_ALGORITHM],
      clockTimestamp: seconds(now),
    });
    const parsed = checkoutLinkClaimsSchema.safeParse(payload);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
