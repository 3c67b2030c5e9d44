import type { IssuedCredentials } from '@kessai/accounts';
import type { AppToken } from '@kessai/db';

export function presentAppJwt(token: AppToken) {
  return {
    id: token.id,
    merchant_id: token.merchantId,
    store_id: token.storeId,
    mode: token.mode,
    domains: token.domains,
    created_on: token.createdOn.toISOString(),
    updated_on: token.updatedOn.toISOString(),
  };
}

/** Only the creation answer carries the secret: it is never stored, so it can never be shown again. */
export function presentIssuedAppJwt(issued: IssuedCredentials) {
  return { ...presentAppJwt(issued.token), jwt: issued.jwt, secret: issued.secret };
}
