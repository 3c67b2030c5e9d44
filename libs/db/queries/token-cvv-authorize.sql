-- Generated from libs/db/src/tokens/token-cvv-authorize.sql.ts by npm run sql:generate: do not edit.

-- token_cvv_authorize_find
-- params: $1 id uuid
-- columns: id text, mode text, active bool, data jsonb, key_id text, iv bytea, ciphertext bytea, auth_tag bytea
SELECT t.id::text AS id, t.mode::text AS mode, t.active, t.data,
       v.key_id, v.iv, v.ciphertext, v.auth_tag
  FROM transaction_tokens t
  LEFT JOIN card_vault v ON v.transaction_token_id = t.id
 WHERE t.id = $1::uuid AND t.payment_type = 'card';

-- token_cvv_authorize_update
-- params: $1 id uuid, $2 fromStatus text, $3 fromAttempt int4, $4 cvvAuthorize jsonb, $5 requested bool, $6 correlationId text, $7 causeEventId uuid
-- columns: id text, changed bool
  WITH old AS (
    SELECT id, data->'cvv_authorize' AS cvv_authorize
      FROM transaction_tokens
     WHERE id = $1::uuid AND payment_type = 'card'
       AND data->'cvv_authorize'->>'status' IS NOT DISTINCT FROM $2::text
       AND COALESCE((data->'cvv_authorize'->>'attempt')::int, 0) = $3::int4
       FOR UPDATE
  ), token AS (
    UPDATE transaction_tokens t
       SET data = jsonb_set(t.data, '{cvv_authorize}', $4::jsonb),
           updated_on = now()
      FROM old
     WHERE t.id = old.id
    RETURNING t.id, t.merchant_id, t.store_id, t.data,
              (old.cvv_authorize->>'status' IS DISTINCT FROM t.data->'cvv_authorize'->>'status'
               OR old.cvv_authorize->>'enabled' IS DISTINCT FROM t.data->'cvv_authorize'->>'enabled') AS changed
  ), updated_event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_cvv_auth_updated', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'status', data->'cvv_authorize'->>'status', 'enabled', COALESCE((data->'cvv_authorize'->>'enabled')::boolean, false)), COALESCE($6::text, (SELECT correlation_id FROM outbox_events cause WHERE cause.id = $7::uuid))
  FROM token
 WHERE changed
  ), requested_event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_cvv_auth_requested', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'attempt', COALESCE((data->'cvv_authorize'->>'attempt')::int, 1)), COALESCE($6::text, (SELECT correlation_id FROM outbox_events cause WHERE cause.id = $7::uuid))
  FROM token
 WHERE $5::bool
  )
  SELECT id::text AS id, changed FROM token;

-- token_cvv_authorize_find_stale
-- params: $1 staleSeconds int4, $2 limit int4
-- columns: id text, attempt int4
SELECT t.id::text AS id, COALESCE((t.data->'cvv_authorize'->>'attempt')::int, 1) AS attempt
  FROM transaction_tokens t
 WHERE (t.data->'cvv_authorize'->>'status') = 'pending'
   AND t.updated_on <= now() - make_interval(secs => $1::int4)
 ORDER BY t.updated_on
 LIMIT $2::int4;
