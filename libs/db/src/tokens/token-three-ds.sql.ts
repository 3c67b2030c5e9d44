import {
  tokenThreeDsNoticeReceivedSql,
  tokenThreeDsRequestedSql,
  tokenThreeDsUpdatedSql,
} from '../outbox/event-sql';
import { outboxInsertFrom } from '../outbox/outbox-writer';
import { defineStatement, pg } from '../sql/statement';
import {
  selectTokenToCheck,
  tokenCheckAsRead,
  tokenCheckChanged,
  tokenCheckEvents,
  TOKEN_TO_CHECK_COLUMNS,
  TOKEN_VAULT_COLUMNS,
} from './token-check.sql';

/**
 * A card token's 3-D Secure (docs/transaction-tokens.md, "3-D Secure"): its state is the token's
 * `data.three_ds` object; every change is conditional on what it was read as (status, attempt,
 * expiry marker, enabled).
 */

/** When a token's awaiting 3-D Secure expires: as stored, else from its last change. */
const threeDsDeadline = (alias: string, expirySeconds: string) =>
  `COALESCE((${alias}.data->'three_ds'->>'expires_on')::timestamptz,
            ${alias}.updated_on + make_interval(secs => ${expirySeconds}))`;

/**
 * What charge-service needs to authenticate a card token: its 3-D Secure, card and vault row, and
 * whether an awaiting authentication is past its deadline by Postgres' clock (the one the sweeper
 * finds it by): `three_ds.expires_on`, else (awaiting before deadlines were stored) the token's last
 * change + `expirySeconds`.
 */
export const FIND_TOKEN_THREE_DS = defineStatement({
  name: 'token_three_ds_find',
  params: { id: pg.uuid, expirySeconds: pg.int4 },
  columns: { ...TOKEN_TO_CHECK_COLUMNS, expired: pg.bool, ...TOKEN_VAULT_COLUMNS },
  text: (p) =>
    selectTokenToCheck(
      p.id,
      `COALESCE(t.data->'three_ds'->>'status' = 'awaiting'
                    AND ${threeDsDeadline('t', p.expirySeconds)} <= now(), false) AS expired`,
    ),
});

/**
 * Replaces the token's `data.three_ds` with `threeDs` while its status, attempt and expiry marker are
 * still the ones read (`fromStatus` null: none), writing token_three_ds_updated when the status or
 * `enabled` changes and, with `requested`, token_three_ds_requested (charge-service authenticates).
 * `enabled` is the merchant's switch: with `fromEnabled` (the gateway's changes) it must still be as
 * read; null (charge-service recording what the processor did) it is not compared and the stored
 * one is kept, so that a disable in between is never undone and never makes an outcome go unrecorded.
 * The correlation is the request's, else the cause event's. No row when the token moved meanwhile.
 */
export const UPDATE_TOKEN_THREE_DS = defineStatement({
  name: 'token_three_ds_update',
  params: {
    id: pg.uuid,
    fromStatus: pg.nullable(pg.text),
    fromAttempt: pg.int4,
    fromExpiring: pg.bool,
    fromEnabled: pg.nullable(pg.bool),
    threeDs: pg.jsonb<unknown>(),
    requested: pg.bool,
    correlationId: pg.nullable(pg.text),
    causeEventId: pg.nullable(pg.uuid),
  },
  columns: { id: pg.text, changed: pg.bool },
  text: (p) => `
    WITH ${tokenCheckAsRead('three_ds', p, [
      `COALESCE((data->'three_ds'->>'expiring')::boolean, false) = ${p.fromExpiring}`,
      `(${p.fromEnabled}::boolean IS NULL
              OR COALESCE((data->'three_ds'->>'enabled')::boolean, false) = ${p.fromEnabled})`,
    ])}, token AS (
      UPDATE transaction_tokens t
         SET data = jsonb_set(t.data, '{three_ds}',
                      CASE WHEN ${p.fromEnabled}::boolean IS NULL
                           THEN ${p.threeDs} || jsonb_build_object(
                                  'enabled', COALESCE(old.three_ds->'enabled', 'false'::jsonb))
                           ELSE ${p.threeDs} END),
             updated_on = now()
        FROM old
       WHERE t.id = old.id
      RETURNING t.id, t.merchant_id, t.store_id, t.data,
                ${tokenCheckChanged('three_ds')}
    ), ${tokenCheckEvents(p, { updated: tokenThreeDsUpdatedSql(), requested: tokenThreeDsRequestedSql() })}
    SELECT id::text AS id, changed FROM token`,
});

/**
 * The processor's notice about a card token's authentication (POST /processor/callbacks), as a
 * token_three_ds_notice_received command; no row when the token is not ours.
 */
export const RECORD_TOKEN_THREE_DS_NOTICE = defineStatement({
  name: 'token_three_ds_record_notice',
  params: { id: pg.uuid, noticeId: pg.text, status: pg.text, correlationId: pg.nullable(pg.text) },
  columns: { id: pg.text },
  text: (p) => `
    ${outboxInsertFrom('transaction_tokens', {
      aggregateType: 'transaction_token',
      aggregateId: 'id',
      merchantId: 'merchant_id',
      storeId: 'store_id',
      event: tokenThreeDsNoticeReceivedSql({ noticeId: p.noticeId, status: p.status }),
      correlationId: p.correlationId,
      where: `id = ${p.id} AND payment_type = 'card' AND data->'three_ds' IS NOT NULL AND data->'three_ds' <> 'null'::jsonb`,
    })}
    RETURNING aggregate_id::text AS id`,
});

/**
 * Card tokens whose 3-D Secure nobody completed: awaiting past `three_ds.expires_on` (set when it
 * became awaiting; a token that became awaiting before expires_on existed counts from its last
 * change, `updated_on` + `expirySeconds`), at most `limit`, with the deadline passed. Served by the
 * partial index transaction_tokens_three_ds_awaiting_idx (awaiting tokens only: few at any time).
 */
export const FIND_EXPIRED_TOKEN_THREE_DS = defineStatement({
  name: 'token_three_ds_find_expired',
  params: { expirySeconds: pg.int4, limit: pg.int4 },
  columns: { id: pg.text, expires_on: pg.timestamptz },
  text: (p) => `
    SELECT id::text AS id, deadline AS expires_on
      FROM (SELECT t.id, ${threeDsDeadline('t', p.expirySeconds)} AS deadline
              FROM transaction_tokens t
             WHERE (t.data->'three_ds'->>'status') = 'awaiting') awaiting
     WHERE deadline <= now()
     ORDER BY deadline
     LIMIT ${p.limit}`,
});

/**
 * Card tokens whose 3-D Secure has been `pending` (its authenticate_token job not run) for
 * `staleSeconds` or more since the token last changed (an attempt starting is such a change): the
 * job was lost (Redis flushed, a job dropped), so charge-service's sweeper gives them one again, as
 * it does a CVV authorization's (decision 0065). At most `limit`, oldest first, with the attempt (the
 * job id and the processor reference name it). Served by the partial index
 * transaction_tokens_three_ds_pending_idx (pending tokens only: few at any time).
 */
export const FIND_STALE_TOKEN_THREE_DS = defineStatement({
  name: 'token_three_ds_find_stale',
  params: { staleSeconds: pg.int4, limit: pg.int4 },
  columns: { id: pg.text, attempt: pg.int4 },
  text: (p) => `
    SELECT t.id::text AS id, COALESCE((t.data->'three_ds'->>'attempt')::int, 1) AS attempt
      FROM transaction_tokens t
     WHERE (t.data->'three_ds'->>'status') = 'pending'
       AND t.updated_on <= now() - make_interval(secs => ${p.staleSeconds})
     ORDER BY t.updated_on
     LIMIT ${p.limit}`,
});
