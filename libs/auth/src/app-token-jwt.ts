import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { hmacKey } from './signing-key';

/** The only algorithm accepted; pinned so that `alg: none` and algorithm confusion are refused. */
export const APP_TOKEN_ALGORITHM = 'HS256';
export const APP_TOKEN_VERSION = 1;

const uuid = z.string().uuid();

export const appTokenClaimsSchema = z
  .object({
    sub: z.literal('app_token'),
    jti: uuid,
    merchant_id: uuid,
    store_id: uuid.optional(),
    mode: z.enum(['test', 'live']),
    domains: z.array(z.string()),
    version: z.number().int().positive(),
    creator_id: uuid.optional(),
    iat: z.number().int().optional(),
  })
  .strict();

export type AppTokenClaims = z.infer<typeof appTokenClaimsSchema>;

export interface AppTokenClaimsInput {
  id: string;
  merchantId: string;
  storeId: string | null;
  mode: 'test' | 'live';
  domains: string[];
  version: number;
}

export function signAppToken(input: AppTokenClaimsInput, signingKey: string, issuedAt = new Date()): string {
  const claims: AppTokenClaims = {
    sub: 'app_token',
    jti: input.id,
    merchant_id: input.merchantId,
    ...(input.storeId ? { store_id: input.storeId } : {}),
    mode: input.mode,
    domains: input.domains,
    version: input.version,
    iat: Math.floor(issuedAt.getTime() / 1000),
  };
  return jwt.sign(claims, hmacKey(signingKey), { algorithm: APP_TOKEN_ALGORITHM });
}

export class InvalidAppTokenError extends Error {
  constructor(reason: string) {
    super(`invalid app token: ${reason}`);
    this.name = 'InvalidAppTokenError';
  }
}

/** Verifies signature (HS256 only) and claim shapes. Says nothing about revocation: the caller checks jti. */
export function verifyAppToken(token: string, signingKey: string): AppTokenClaims {
  let payload: unknown;
  try {
    payload = jwt.verify(token, hmacKey(signingKey), { algorithms: [APP_TOKEN_ALGORITHM] });
  } catch (error) {
    throw new InvalidAppTokenError(error instanceof Error ? error.message : 'unverifiable');
  }
  const parsed = appTokenClaimsSchema.safeParse(payload);
  if (!parsed.success) throw new InvalidAppTokenError('claims do not match the app token format');
  return parsed.data;
}
