import type { ProcessingMode } from '../generated/prisma/enums';
import type { TOKEN_TO_CHECK_COLUMNS, TOKEN_VAULT_COLUMNS } from './token-check.sql';
import type { RowOf } from '../sql/statement';

/**
 * What a card token's checks at the processor share (3-D Secure at tokenization, CVV
 * authorization; docs/transaction-tokens.md): charge-service reads the token with its card and
 * vault row, and the check's state is one object of the token's `data`, read leniently.
 */

/** A card token as charge-service runs one of its checks: the card and its vault row. */
export interface TokenToCheck {
  id: string;
  mode: ProcessingMode;
  active: boolean;
  card: { cardholder: string; exp_month: number; exp_year: number } | null;
  vault: { keyId: string; iv: Uint8Array; ciphertext: Uint8Array; authTag: Uint8Array } | null;
}

/** A check's find row (TOKEN_TO_CHECK_COLUMNS, TOKEN_VAULT_COLUMNS) as a TokenToCheck. */
export function tokenToCheck(
  row: RowOf<typeof TOKEN_TO_CHECK_COLUMNS> & RowOf<typeof TOKEN_VAULT_COLUMNS>,
): TokenToCheck {
  const card = asObject(asObject(row.data).card);
  return {
    id: row.id,
    mode: row.mode,
    active: row.active,
    card:
      typeof card.cardholder === 'string' &&
      typeof card.exp_month === 'number' &&
      typeof card.exp_year === 'number'
        ? { cardholder: card.cardholder, exp_month: card.exp_month, exp_year: card.exp_year }
        : null,
    vault:
      row.key_id && row.iv && row.ciphertext && row.auth_tag
        ? { keyId: row.key_id, iv: row.iv, ciphertext: row.ciphertext, authTag: row.auth_tag }
        : null,
  };
}

/**
 * The check `key` of a token's `data` as stored, read leniently: null when there is none, `enabled`
 * false unless true, `attempt` 0 when absent (tokens made before attempts existed).
 */
export function storedTokenCheck<S extends { enabled: boolean; attempt?: number }>(
  data: unknown,
  key: 'three_ds' | 'cvv_authorize',
): S | null {
  const check = asObject(asObject(data)[key]);
  if (Object.keys(check).length === 0) return null;
  return {
    ...(check as unknown as S),
    enabled: check.enabled === true,
    attempt: typeof check.attempt === 'number' ? check.attempt : 0,
  };
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
