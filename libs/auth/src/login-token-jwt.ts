import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { APP_TOKEN_ALGORITHM } from './app-token-jwt';
import { hmacKey } from './signing-key';

/**
 * Login tokens: what POST /authenticate hands a merchant user, sent back as `Bearer <jwt>`. Signed
 * like app tokens (HS256 pinned, JWT_SIGNING_KEY) but told apart by `sub`; the `jti` is a
 * login_sessions row, so logging out revokes the token before it expires.
 */
export const LOGIN_TOKEN_SUBJECT = 'login_token';

const uuid = z.string().uuid();

export const loginTokenClaimsSchema = z
  .object({
    sub: z.literal(LOGIN_TOKEN_SUBJECT),
    jti: uuid,
    merchant_id: uuid,
    user_id: uuid,
    iat: z.number().int(),
    exp: z.number().int(),
  })
  .strict();

export type LoginTokenClaims = z.infer<typeof loginTokenClaimsSchema>;

export interface LoginTokenInput {
  sessionId: string;
  merchantId: string;
  userId: string;
  expiresOn: Date;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

export function signLoginToken(input: LoginTokenInput, signingKey: string, issuedAt = new Date()): string {
  const claims: LoginTokenClaims = {
    sub: LOGIN_TOKEN_SUBJECT,
    jti: input.sessionId,
    merchant_id: input.merchantId,
    user_id: input.userId,
    iat: seconds(issuedAt),
    exp: seconds(input.expiresOn),
  };
  return jwt.sign(claims, hmacKey(signingKey), { algorithm: APP_TOKEN_ALGORITHM });
}

export class InvalidLoginTokenError extends Error {
  constructor(
    reason: string,
    readonly expired = false,
  ) {
    super(`invalid login token: ${reason}`);
    this.name = 'InvalidLoginTokenError';
  }
}

/** Verifies signature (HS256 only), expiry and claim shapes. The caller checks the session (jti). */
export function verifyLoginToken(token: string, signingKey: string, now = new Date()): LoginTokenClaims {
  let payload: unknown;
  try {
    payload = jwt.verify(token, hmacKey(signingKey), {
      algorithms: [APP_TOKEN_ALGORITHM],
      clockTimestamp: seconds(now),
    });
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError) throw new InvalidLoginTokenError('expired', true);
    throw new InvalidLoginTokenError(error instanceof Error ? error.message : 'unverifiable');
  }
  const parsed = loginTokenClaimsSchema.safeParse(payload);
  if (!parsed.success) throw new InvalidLoginTokenError('claims do not match the login token format');
  return parsed.data;
}

/**
 * The `sub` claim of a JWT, read without verifying it: only to choose which verifier (app token or
 * login token) to run, each of which verifies everything again and insists on its own subject.
 */
export function unverifiedSubject(token: string): string | null {
  const decoded = jwt.decode(token, { json: true });
  return decoded && typeof decoded.sub === 'string' ? decoded.sub : null;
}
