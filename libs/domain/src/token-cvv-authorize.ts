/**
 * A card token's CVV authorization (api-reference §5.1 `cvv_authorize`; docs/transaction-tokens.md,
 * "CVV authorization"): the card and its CVV are checked once, at tokenization (or when the merchant
 * enables it later), by an authorization of the smallest amount that is then voided, so that a
 * recurring token is known good before its first real charge. Statuses are the SDK's
 * CvvAuthorizedStatus.
 */
export const TOKEN_CVV_AUTHORIZE_STATUSES = ['pending', 'current', 'failed', 'inactive'] as const;
export type TokenCvvAuthorizeStatus = (typeof TOKEN_CVV_AUTHORIZE_STATUSES)[number];

/** The amount held (in the currency's minor units) and voided: the smallest there is. */
export const CVV_AUTHORIZE_AMOUNT = 1;
/** The currency of the authorization when the token names none (the store's sales are in yen). */
export const CVV_AUTHORIZE_DEFAULT_CURRENCY = 'JPY';

const REFERENCE =
  /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.cvv_authorize\.([1-9][0-9]{0,8})$/;

/**
 * The processor reference (and idempotency key) of a token's CVV authorization attempt: the token
 * id and the attempt, so that an authorization enabled again is a new payment at the processor and
 * is never mistaken for a charge's (a bare UUID) or a 3-D Secure attempt's.
 */
export function tokenCvvAuthorizeReference(tokenId: string, attempt: number): string {
  return `${tokenId}.cvv_authorize.${attempt}`;
}

/** The token and attempt a processor reference names, or null when it is not a CVV authorization's. */
export function parseTokenCvvAuthorizeReference(
  reference: string,
): { tokenId: string; attempt: number } | null {
  const match = REFERENCE.exec(reference.toLowerCase());
  return match ? { tokenId: match[1], attempt: Number(match[2]) } : null;
}

/**
 * Whether a charge may use the token, by its CVV authorization: null when it may (not enabled, or
 * `current`), else CVV_AUTHORIZATION_NOT_COMPLETED (still pending, or failed).
 */
export function tokenCvvAuthorizeRefusal(
  cvvAuthorize: { enabled: boolean; status: string | null } | null,
): 'CVV_AUTHORIZATION_NOT_COMPLETED' | null {
  if (!cvvAuthorize?.enabled || cvvAuthorize.status === 'current') return null;
  return 'CVV_AUTHORIZATION_NOT_COMPLETED';
}
