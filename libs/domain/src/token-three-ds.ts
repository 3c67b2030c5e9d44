/**
 * A card token's 3-D Secure (docs/transaction-tokens.md, "3-D Secure"): the card is authenticated
 * once, at tokenization, by an authorization of the smallest amount that is then voided. Statuses
 * are the SDK's ThreeDsStatus.
 */
export const TOKEN_THREE_DS_STATUSES = ['pending', 'awaiting', 'successful', 'failed', 'error'] as const;
export type TokenThreeDsStatus = (typeof TOKEN_THREE_DS_STATUSES)[number];

/** The statuses charge-service moves a token's 3-D Secure from (the work is still to do). */
export const TOKEN_THREE_DS_OPEN: readonly TokenThreeDsStatus[] = ['pending', 'awaiting'];

/** The authorization that authenticates a card: 1 yen (the smallest amount), held and then voided. */
export const TOKEN_THREE_DS_AMOUNT = 1;
export const TOKEN_THREE_DS_CURRENCY = 'JPY';

const REFERENCE =
  /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.three_ds\.([1-9][0-9]{0,8})$/;

/**
 * The processor reference (and idempotency key) of a token's authentication attempt: the token id
 * and the attempt, so that an authentication started again (enableThreeDs) is a new payment at the
 * processor, and a charge's reference (a bare UUID) is never mistaken for a token's.
 */
export function tokenThreeDsReference(tokenId: string, attempt: number): string {
  return `${tokenId}.three_ds.${attempt}`;
}

/** The token and attempt a processor reference names, or null when it is not a token's. */
export function parseTokenThreeDsReference(reference: string): { tokenId: string; attempt: number } | null {
  const match = REFERENCE.exec(reference.toLowerCase());
  return match ? { tokenId: match[1], attempt: Number(match[2]) } : null;
}

/**
 * Whether a charge may use the token, by its 3-D Secure: null when it may (no 3-D Secure asked,
 * disabled, or successful), else the reason it may not.
 */
export function tokenThreeDsRefusal(
  threeDs: { enabled: boolean; status: string | null } | null,
): 'THREE_DS_COULD_NOT_BE_COMPLETED' | 'INVALID_THREE_DS_STATUS' | null {
  if (!threeDs?.enabled || threeDs.status === 'successful') return null;
  return threeDs.status === 'failed' || threeDs.status === 'error'
    ? 'THREE_DS_COULD_NOT_BE_COMPLETED'
    : 'INVALID_THREE_DS_STATUS';
}
