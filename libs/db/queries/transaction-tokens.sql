-- Generated from libs/db/src/tokens/transaction-tokens.sql.ts by npm run sql:generate: do not edit.

-- transaction_tokens_create
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 mode processing_mode, $5 type token_type, $6 paymentType payment_type, $7 email text, $8 usageLimit usage_limit, $9 data jsonb, $10 metadata jsonb, $11 hasVault bool, $12 keyId text, $13 iv bytea, $14 ciphertext bytea, $15 authTag bytea, $16 fingerprint text, $17 confirmationCodeHash text, $18 correlationId text
-- columns: id text, merchant_id text, store_id text, mode text, type text, payment_type text, email text, active bool, usage_limit text, confirmed bool, confirmation_code_hash text, confirmation_attempts int4, previous_id text, data jsonb, metadata jsonb, used_count int4, last_used_on timestamptz, created_on timestamptz, updated_on timestamptz
  WITH
  live_store AS (
    SELECT id FROM stores
     WHERE id = $3::uuid AND merchant_id = $2::uuid AND deleted_on IS NULL
       FOR SHARE
  ),
  token AS (
    INSERT INTO transaction_tokens
           (id, merchant_id, store_id, mode, type, payment_type, email, usage_limit, data, metadata,
            confirmed, confirmation_code_hash)
    SELECT $1::uuid, $2::uuid, $3::uuid, $4::processing_mode, $5::token_type, $6::payment_type, $7::text,
           $8::usage_limit, $9::jsonb, $10::jsonb,
           CASE WHEN $17::text IS NOT NULL THEN false END, $17::text
      FROM live_store
    RETURNING *
  ), vault AS (
    INSERT INTO card_vault (transaction_token_id, key_id, iv, ciphertext, auth_tag, fingerprint)
    SELECT id, $12::text, $13::bytea, $14::bytea, $15::bytea, $16::text
      FROM token
     WHERE $11::bool
  ), event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_created', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'type', type::text, 'payment_type', payment_type::text, 'mode', mode::text), $18::text
  FROM token
  ), three_ds_event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_three_ds_requested', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'attempt', COALESCE((data->'three_ds'->>'attempt')::int, 1)), $18::text
  FROM token
 WHERE data->'three_ds'->>'status' = 'pending' AND (data->'three_ds'->>'enabled')::boolean
  ), cvv_authorize_event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_cvv_auth_requested', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'attempt', COALESCE((data->'cvv_authorize'->>'attempt')::int, 1)), $18::text
  FROM token
 WHERE data->'cvv_authorize'->>'status' = 'pending' AND (data->'cvv_authorize'->>'enabled')::boolean
  )
  SELECT id::text, merchant_id::text, store_id::text, mode::text, type::text, payment_type::text,
         email, active, usage_limit::text, confirmed, confirmation_code_hash, confirmation_attempts,
         previous_id::text, data, metadata, used_count, last_used_on, created_on, updated_on FROM token;

-- transaction_tokens_find_chargeable
-- params: $1 ids uuid[]
-- columns: id uuid, merchant_id uuid, store_id uuid, type token_type, payment_type payment_type, mode processing_mode, active bool, used_count int4, usage_limit usage_limit, confirmed bool, card_brand text, qr_gateway text, three_ds_enabled bool, three_ds_status text, cvv_authorize_enabled bool, cvv_authorize_status text, expiration_period text, expiration_time_shift text, store_configuration jsonb, merchant_configuration jsonb, convenience_store text, online_brand text, processor_routes jsonb
SELECT t.id, t.merchant_id, t.store_id, t.type, t.payment_type, t.mode, t.active, t.used_count,
       t.usage_limit, t.confirmed, t.data->'card'->>'brand' AS card_brand,
       CASE WHEN t.payment_type = 'qr_scan'
            THEN COALESCE(t.data->>'gateway', t.data->>'brand') END AS qr_gateway,
       (t.data->'three_ds'->>'enabled')::boolean AS three_ds_enabled,
       t.data->'three_ds'->>'status' AS three_ds_status,
       (t.data->'cvv_authorize'->>'enabled')::boolean AS cvv_authorize_enabled,
       t.data->'cvv_authorize'->>'status' AS cvv_authorize_status,
       t.data->>'expiration_period' AS expiration_period,
       t.data->>'expiration_time_shift' AS expiration_time_shift,
       s.configuration AS store_configuration, m.configuration AS merchant_configuration,
       t.data->>'convenience_store' AS convenience_store,
       CASE WHEN t.payment_type = 'online' THEN t.data->>'brand' END AS online_brand,
       (SELECT COALESCE(jsonb_agg(jsonb_build_object('currency', r.currency, 'provider', a.provider,
                                                     'fallbackProvider', f.provider)),
                        '[]'::jsonb)
          FROM processor_routes r
          JOIN processor_accounts a
            ON a.id = r.processor_account_id AND a.status = 'active' AND a.mode = t.mode
          LEFT JOIN processor_accounts f
            ON f.id = r.fallback_processor_account_id AND f.id <> a.id
           AND f.status = 'active' AND f.mode = t.mode
         WHERE r.store_id = t.store_id AND r.mode = t.mode
           AND r.payment_type::text = (CASE t.payment_type::text
                 WHEN 'qr_scan' THEN 'online' WHEN 'qr_merchant' THEN 'online'
                 ELSE t.payment_type::text END)) AS processor_routes
  FROM transaction_tokens t
  JOIN stores s ON s.id = t.store_id
  JOIN merchants m ON m.id = s.merchant_id
 WHERE t.id = ANY($1::uuid[]);

-- transaction_tokens_has_customer_email
-- params: $1 storeId uuid, $2 mode text, $3 email text
-- columns: found bool
SELECT EXISTS (
  SELECT 1 FROM transaction_tokens
   WHERE store_id = $1::uuid AND lower(email) = lower($3::text) AND mode::text = $2::text
) AS found;

-- transaction_tokens_record_updated
-- params: $1 id uuid, $2 changed jsonb, $3 correlationId text
-- columns: id text
  INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_updated', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'changed', $2::jsonb, 'active', active), $3::text
  FROM transaction_tokens
 WHERE id = $1::uuid
  RETURNING id::text AS id;

-- transaction_tokens_record_recurring_deleted
-- params: $1 id uuid, $2 correlationId text
-- columns: id text
  INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'recurring_token_deleted', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text), $2::text
  FROM transaction_tokens
 WHERE id = $1::uuid AND type = 'recurring'
  RETURNING id::text AS id;

-- transaction_tokens_renew
-- params: $1 oldId uuid, $2 newId uuid, $3 merchantId uuid, $4 storeId uuid, $5 email text, $6 data jsonb, $7 keyId text, $8 iv bytea, $9 ciphertext bytea, $10 authTag bytea, $11 fingerprint text, $12 correlationId text
-- columns: id text, merchant_id text, store_id text, mode text, type text, payment_type text, email text, active bool, usage_limit text, confirmed bool, confirmation_code_hash text, confirmation_attempts int4, previous_id text, data jsonb, metadata jsonb, used_count int4, last_used_on timestamptz, created_on timestamptz, updated_on timestamptz
  WITH
  live_store AS (
    SELECT id FROM stores
     WHERE id = $4::uuid AND merchant_id = $3::uuid AND deleted_on IS NULL
       FOR SHARE
  ),
  old AS (
    UPDATE transaction_tokens SET active = false, updated_on = now()
     WHERE id = $1::uuid AND merchant_id = $3::uuid AND store_id = $4::uuid
       AND active AND payment_type = 'card' AND EXISTS (SELECT 1 FROM live_store)
    RETURNING id, merchant_id, store_id, mode, type, payment_type, usage_limit, metadata, active
  ), token AS (
    INSERT INTO transaction_tokens
           (id, merchant_id, store_id, mode, type, payment_type, email, usage_limit, data, metadata,
            previous_id)
    SELECT $2::uuid, merchant_id, store_id, mode, type, payment_type, $5::text, usage_limit,
           $6::jsonb, metadata, id
      FROM old
    RETURNING *
  ), vault AS (
    INSERT INTO card_vault (transaction_token_id, key_id, iv, ciphertext, auth_tag, fingerprint)
    SELECT id, $7::text, $8::bytea, $9::bytea, $10::bytea, $11::text FROM token
  ), users AS MATERIALIZED (
    -- its subscriptions in id order, as the engine's settlements lock theirs (decision 0023)
    SELECT s.id FROM subscriptions s, token
     WHERE s.transaction_token_id = token.previous_id
     ORDER BY s.id
       FOR NO KEY UPDATE OF s
  ), moved AS (
    UPDATE subscriptions SET transaction_token_id = token.id, updated_on = now()
      FROM token, users
     WHERE subscriptions.id = users.id AND subscriptions.transaction_token_id = token.previous_id
    RETURNING subscriptions.id
  ), old_event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_updated', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'changed', '["active"]'::jsonb, 'active', active), $12::text
  FROM old
  ), replaced_event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_replaced', jsonb_build_object('transaction_token_id', id::text, 'previous_id', previous_id::text, 'store_id', store_id::text), $12::text
  FROM token
  )
  SELECT id::text, merchant_id::text, store_id::text, mode::text, type::text, payment_type::text,
         email, active, usage_limit::text, confirmed, confirmation_code_hash, confirmation_attempts,
         previous_id::text, data, metadata, used_count, last_used_on, created_on, updated_on FROM token;
