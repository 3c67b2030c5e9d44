-- Generated from libs/db/src/tokens/token-three-ds.sql.ts by npm run sql:generate: do not edit.

-- token_three_ds_find
-- params: $1 id uuid, $2 expirySeconds int4
-- columns: id text, mode text, active bool, data jsonb, expired bool, key_id text, iv bytea, ciphertext bytea, auth_tag bytea
SELECT t.id::text AS id, t.mode::text AS mode, t.active, t.data,
       COALESCE(t.data->'three_ds'->>'status' = 'awaiting'
                AND COALESCE((t.data->'three_ds'->>'expires_on')::timestamptz,
        t.updated_on + make_interval(secs => $2::int4)) <= now(), false) AS expired,
       v.key_id, v.iv, v.ciphertext, v.auth_tag
  FROM transaction_tokens t
  LEFT JOIN card_vault v ON v.transaction_token_id = t.id
 WHERE t.id = $1::uuid AND t.payment_type = 'card';

-- token_three_ds_update
-- params: $1 id uuid, $2 fromStatus text, $3 fromAttempt int4, $4 fromExpiring bool, $5 fromEnabled bool, $6 threeDs jsonb, $7 requested bool, $8 correlationId text, $9 causeEventId uuid
-- columns: id text, changed bool
  WITH old AS (
    SELECT id, data->'three_ds' AS three_ds
      FROM transaction_tokens
     WHERE id = $1::uuid AND payment_type = 'card'
       AND data->'three_ds'->>'status' IS NOT DISTINCT FROM $2::text
       AND COALESCE((data->'three_ds'->>'attempt')::int, 0) = $3::int4
       AND COALESCE((data->'three_ds'->>'expiring')::boolean, false) = $4::bool
       AND ($5::bool::boolean IS NULL
            OR COALESCE((data->'three_ds'->>'enabled')::boolean, false) = $5::bool)
       FOR UPDATE
  ), token AS (
    UPDATE transaction_tokens t
       SET data = jsonb_set(t.data, '{three_ds}',
                    CASE WHEN $5::bool::boolean IS NULL
                         THEN $6::jsonb || jsonb_build_object(
                                'enabled', COALESCE(old.three_ds->'enabled', 'false'::jsonb))
                         ELSE $6::jsonb END),
           updated_on = now()
      FROM old
     WHERE t.id = old.id
    RETURNING t.id, t.merchant_id, t.store_id, t.data,
              (old.three_ds->>'status' IS DISTINCT FROM t.data->'three_ds'->>'status'
               OR old.three_ds->>'enabled' IS DISTINCT FROM t.data->'three_ds'->>'enabled') AS changed
  ), updated_event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_three_ds_updated', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'status', data->'three_ds'->>'status', 'enabled', COALESCE((data->'three_ds'->>'enabled')::boolean, false)), COALESCE($8::text, (SELECT correlation_id FROM outbox_events cause WHERE cause.id = $9::uuid))
  FROM token
 WHERE changed
  ), requested_event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_three_ds_requested', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'attempt', COALESCE((data->'three_ds'->>'attempt')::int, 1)), COALESCE($8::text, (SELECT correlation_id FROM outbox_events cause WHERE cause.id = $9::uuid))
  FROM token
 WHERE $7::bool
  )
  SELECT id::text AS id, changed FROM token;

-- token_three_ds_record_notice
-- params: $1 id uuid, $2 noticeId text, $3 status text, $4 correlationId text
-- columns: id text
  INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_three_ds_notice_received', jsonb_build_object('transaction_token_id', id::text, 'notice_id', $2::text, 'status', $3::text), $4::text
  FROM transaction_tokens
 WHERE id = $1::uuid AND payment_type = 'card' AND data->'three_ds' IS NOT NULL AND data->'three_ds' <> 'null'::jsonb
  RETURNING aggregate_id::text AS id;

-- token_three_ds_find_expired
-- params: $1 expirySeconds int4, $2 limit int4
-- columns: id text, expires_on timestamptz
SELECT id::text AS id, deadline AS expires_on
  FROM (SELECT t.id, COALESCE((t.data->'three_ds'->>'expires_on')::timestamptz,
        t.updated_on + make_interval(secs => $1::int4)) AS deadline
          FROM transaction_tokens t
         WHERE (t.data->'three_ds'->>'status') = 'awaiting') awaiting
 WHERE deadline <= now()
 ORDER BY deadline
 LIMIT $2::int4;

-- token_three_ds_find_stale
-- params: $1 staleSeconds int4, $2 limit int4
-- columns: id text, attempt int4
SELECT t.id::text AS id, COALESCE((t.data->'three_ds'->>'attempt')::int, 1) AS attempt
  FROM transaction_tokens t
 WHERE (t.data->'three_ds'->>'status') = 'pending'
   AND t.updated_on <= now() - make_interval(secs => $1::int4)
 ORDER BY t.updated_on
 LIMIT $2::int4;
