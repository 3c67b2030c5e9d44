import type { ProcessingMode } from '../generated/prisma/enums';
import type { Prisma } from '../generated/prisma/client';
import type { OutboxEventType } from '../outbox/outbox-events';
import { correlationOf, outboxInsertFrom, type OutboxEventSql } from '../outbox/outbox-writer';
import { pg } from '../sql/statement';

/**
 * What a card token's checks at the processor share in SQL (3-D Secure at tokenization, CVV
 * authorization; docs/transaction-tokens.md): each check's state is one object of the token's
 * `data` (`three_ds`, `cvv_authorize`), read with the card's vault row by charge-service, and every
 * change of it is written with its `…_updated` event (when the status or `enabled` changes) and,
 * when the check is to start, its `…_requested` command.
 */

/** The token's own columns a check's find statement reads first. */
export const TOKEN_TO_CHECK_COLUMNS = {
  id: pg.text,
  mode: pg.textOf<ProcessingMode>(),
  active: pg.bool,
  data: pg.jsonb<Prisma.JsonValue>(),
} as const;

/** The card's vault row (none when the card is missing from the vault), after the token's columns. */
export const TOKEN_VAULT_COLUMNS = {
  key_id: pg.nullable(pg.text),
  iv: pg.nullable(pg.bytea),
  ciphertext: pg.nullable(pg.bytea),
  auth_tag: pg.nullable(pg.bytea),
} as const;

/**
 * The card token `id` with its vault row, selecting the token's columns, then `extra` (more
 * expressions over `t`, if any), then the vault's.
 */
export function selectTokenToCheck(id: string, extra?: string): string {
  return `
    SELECT t.id::text AS id, t.mode::text AS mode, t.active, t.data,${extra ? `\n           ${extra},` : ''}
           v.key_id, v.iv, v.ciphertext, v.auth_tag
      FROM transaction_tokens t
      LEFT JOIN card_vault v ON v.transaction_token_id = t.id
     WHERE t.id = ${id} AND t.payment_type = 'card'`;
}

/** A check: its key in the token's `data`. */
export type TokenCheckKey = 'three_ds' | 'cvv_authorize';

/**
 * The CTE `old` of a check's change: the card token `p.id` locked with its check `key` as it was
 * (column `key`), only while the check's status and attempt are still the ones read (`fromStatus`
 * null: none) and every condition of `more` holds.
 */
export function tokenCheckAsRead(
  key: TokenCheckKey,
  p: { id: string; fromStatus: string; fromAttempt: string },
  more: string[] = [],
): string {
  return `old AS (
      SELECT id, data->'${key}' AS ${key}
        FROM transaction_tokens
       WHERE id = ${p.id} AND payment_type = 'card'
         AND data->'${key}'->>'status' IS NOT DISTINCT FROM ${p.fromStatus}
         AND COALESCE((data->'${key}'->>'attempt')::int, 0) = ${p.fromAttempt}${more.map((condition) => `\n         AND ${condition}`).join('')}
         FOR UPDATE
    )`;
}

/** Over `old` and the token as written (`t`): whether the check's status or `enabled` changed. */
export function tokenCheckChanged(key: TokenCheckKey): string {
  return `(old.${key}->>'status' IS DISTINCT FROM t.data->'${key}'->>'status'
                 OR old.${key}->>'enabled' IS DISTINCT FROM t.data->'${key}'->>'enabled') AS changed`;
}

/**
 * The two event CTEs of a check's change, over the CTE `token` (the token as written, with its
 * `changed` column): `updated` where it changed, `requested` when `requested` holds. The
 * correlation is the request's, else the cause event's.
 */
export function tokenCheckEvents(
  p: { correlationId: string; causeEventId: string; requested: string },
  events: { updated: OutboxEventSql<OutboxEventType>; requested: OutboxEventSql<OutboxEventType> },
): string {
  const event = (sql: OutboxEventSql<OutboxEventType>, where: string) =>
    outboxInsertFrom('token', {
      aggregateType: 'transaction_token',
      aggregateId: 'id',
      merchantId: 'merchant_id',
      storeId: 'store_id',
      event: sql,
      correlationId: `COALESCE(${p.correlationId}, ${correlationOf(p.causeEventId)})`,
      where,
    });
  return `updated_event AS (
      ${event(events.updated, 'changed')}
    ), requested_event AS (
      ${event(events.requested, p.requested)}
    )`;
}
