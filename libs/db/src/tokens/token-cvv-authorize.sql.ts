import type { ProcessingMode } from '../generated/prisma/enums';
import type { Prisma } from '../generated/prisma/client';
import { tokenCvvAuthRequestedSql, tokenCvvAuthUpdatedSql } from '../outbox/event-sql';
import { correlationOf, outboxInsertFrom } from '../outbox/outbox-writer';
import { defineStatement, pg } from '../sql/statement';

/**
 * A card token's CVV authorization (docs/transaction-tokens.md, "CVV authorization"): its state is
 * the token's `data.cvv_authorize` object; every change is conditional on what it was read as
 * (status, attempt).
 */

/** What charge-service needs to authorize a card token's CVV: the token, its card and vault row. */
export const FIND_TOKEN_CVV_AUTHORIZE = defineStatement({
  name: 'token_cvv_authorize_find',
  params: { id: pg.uuid },
  columns: {
    id: pg.text,
    mode: pg.textOf<ProcessingMode>(),
    active: pg.bool,
    data: pg.jsonb<Prisma.JsonValue>(),
    key_id: pg.nullable(pg.text),
    iv: pg.nullable(pg.bytea),
    ciphertext: pg.nullable(pg.bytea),
    auth_tag: pg.nullable(pg.bytea),
  },
  text: (p) => `
    SELECT t.id::text AS id, t.mode::text AS mode, t.active, t.data,
           v.key_id, v.iv, v.ciphertext, v.auth_tag
      FROM transaction_tokens t
      LEFT JOIN card_vault v ON v.transaction_token_id = t.id
     WHERE t.id = ${p.id} AND t.payment_type = 'card'`,
});

/**
 * Replaces the token's `data.cvv_authorize` with `cvvAuthorize` while its status and attempt are
 * still the ones read (`fromStatus` null: none), writing token_cvv_auth_updated when the status or
 * `enabled` changes and, with `requested`, token_cvv_auth_requested (charge-service authorizes). The
 * correlation is the request's, else the cause event's. No row when the token moved meanwhile.
 */
export const UPDATE_TOKEN_CVV_AUTHORIZE = defineStatement({
  name: 'token_cvv_authorize_update',
  params: {
    id: pg.uuid,
    fromStatus: pg.nullable(pg.text),
    fromAttempt: pg.int4,
    cvvAuthorize: pg.jsonb<unknown>(),
    requested: pg.bool,
    correlationId: pg.nullable(pg.text),
    causeEventId: pg.nullable(pg.uuid),
  },
  columns: { id: pg.text, changed: pg.bool },
  text: (p) => `
    WITH old AS (
      SELECT id, data->'cvv_authorize' AS cvv_authorize
        FROM transaction_tokens
       WHERE id = ${p.id} AND payment_type = 'card'
         AND data->'cvv_authorize'->>'status' IS NOT DISTINCT FROM ${p.fromStatus}
         AND COALESCE((data->'cvv_authorize'->>'attempt')::int, 0) = ${p.fromAttempt}
         FOR UPDATE
    ), token AS (
      UPDATE transaction_tokens t
         SET data = jsonb_set(t.data, '{cvv_authorize}', ${p.cvvAuthorize}),
             updated_on = now()
        FROM old
       WHERE t.id = old.id
      RETURNING t.id, t.merchant_id, t.store_id, t.data,
                (old.cvv_authorize->>'status' IS DISTINCT FROM t.data->'cvv_authorize'->>'status'
                 OR old.cvv_authorize->>'enabled' IS DISTINCT FROM t.data->'cvv_authorize'->>'enabled')
                  AS changed
    ), updated_event AS (
      ${outboxInsertFrom('token', {
        aggregateType: 'transaction_token',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: tokenCvvAuthUpdatedSql(),
        correlationId: `COALESCE(${p.correlationId}, ${correlationOf(p.causeEventId)})`,
        where: 'changed',
      })}
    ), requested_event AS (
      ${outboxInsertFrom('token', {
        aggregateType: 'transaction_token',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: tokenCvvAuthRequestedSql(),
        correlationId: `COALESCE(${p.correlationId}, ${correlationOf(p.causeEventId)})`,
        where: p.requested,
      })}
    )
    SELECT id::text AS id, changed FROM token`,
});
