import { tokenCvvAuthRequestedSql, tokenCvvAuthUpdatedSql } from '../outbox/event-sql';
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
 * A card token's CVV authorization (docs/transaction-tokens.md, "CVV authorization"): its state is
 * the token's `data.cvv_authorize` object; every change is conditional on what it was read as
 * (status, attempt).
 */

/** What charge-service needs to authorize a card token's CVV: the token, its card and vault row. */
export const FIND_TOKEN_CVV_AUTHORIZE = defineStatement({
  name: 'token_cvv_authorize_find',
  params: { id: pg.uuid },
  columns: { ...TOKEN_TO_CHECK_COLUMNS, ...TOKEN_VAULT_COLUMNS },
  text: (p) => selectTokenToCheck(p.id),
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
    WITH ${tokenCheckAsRead('cvv_authorize', p)}, token AS (
      UPDATE transaction_tokens t
         SET data = jsonb_set(t.data, '{cvv_authorize}', ${p.cvvAuthorize}),
             updated_on = now()
        FROM old
       WHERE t.id = old.id
      RETURNING t.id, t.merchant_id, t.store_id, t.data,
                ${tokenCheckChanged('cvv_authorize')}
    ), ${tokenCheckEvents(p, { updated: tokenCvvAuthUpdatedSql(), requested: tokenCvvAuthRequestedSql() })}
    SELECT id::text AS id, changed FROM token`,
});

/**
 * Card tokens whose CVV authorization has been pending for `staleSeconds` or more since the token
 * last changed (an attempt starting is such a change): their job was lost (Redis flushed, a job
 * dropped), so charge-service's sweeper gives them one again. At most `limit`, oldest first, with
 * the attempt (the job id and the processor reference name it). Served by the partial index
 * transaction_tokens_cvv_authorize_pending_idx (pending tokens only: few at any time).
 */
export const FIND_STALE_TOKEN_CVV_AUTHORIZE = defineStatement({
  name: 'token_cvv_authorize_find_stale',
  params: { staleSeconds: pg.int4, limit: pg.int4 },
  columns: { id: pg.text, attempt: pg.int4 },
  text: (p) => `
    SELECT t.id::text AS id, COALESCE((t.data->'cvv_authorize'->>'attempt')::int, 1) AS attempt
      FROM transaction_tokens t
     WHERE (t.data->'cvv_authorize'->>'status') = 'pending'
       AND t.updated_on <= now() - make_interval(secs => ${p.staleSeconds})
     ORDER BY t.updated_on
     LIMIT ${p.limit}`,
});
