-- Generated from libs/db/src/charges/charges.sql.ts by npm run sql:generate: do not edit.

-- charges_create
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 transactionTokenId uuid, $5 transactionTokenType token_type, $6 mode processing_mode, $7 requestedAmount int8, $8 requestedCurrency text, $9 capture bool, $10 captureAt timestamptz, $11 descriptor text, $12 onlyDirectCurrency bool, $13 feeRatePpm int4, $14 feeFlatAmount int8, $15 expiresOn timestamptz, $16 matchAmount match_amount, $17 threeDs jsonb, $18 redirect jsonb, $19 metadata jsonb, $20 correlationId text, $21 now timestamptz, $22 quotaResource text, $23 quotaScopeKey text, $24 quotaDay date, $25 quotaMax int4, $26 duplicateWindowSeconds int4, $27 duplicateErrorCode int4, $28 duplicateErrorMessage text, $29 duplicateErrorDetail text, $30 cardLimitAmount int8, $31 cardLimitSince timestamptz
-- columns: id text, created_on timestamptz, status text
  WITH dup AS (
    SELECT $26::int4 IS NOT NULL
           AND EXISTS (
             SELECT 1 FROM charges
              WHERE transaction_token_id = $4::uuid
                AND requested_amount = $7::int8
                AND requested_currency = $8::text
                AND created_on > now() - make_interval(secs => $26::int4)
                AND error_code IS DISTINCT FROM $27::int4)
           AND EXISTS (SELECT 1 FROM transaction_tokens WHERE id = $4::uuid AND active)
             AS duplicate
  ),
  input AS (
    SELECT $1::uuid AS id, $2::uuid AS merchant_id, $3::uuid AS store_id,
           $4::uuid AS transaction_token_id,
           $5::token_type AS transaction_token_type, $6::processing_mode AS mode,
           $7::int8 AS requested_amount, $8::text AS requested_currency,
           $9::bool AS capture, $10::timestamptz AS capture_at, $11::text AS descriptor,
           $12::bool AS only_direct_currency, $13::int4 AS fee_rate_ppm,
           $14::int8 AS fee_flat_amount, $15::timestamptz AS expires_on,
           $16::match_amount AS match_amount, $17::jsonb AS three_ds,
           $18::jsonb AS redirect, $19::jsonb AS metadata, $20::text AS correlation_id,
           $21::timestamptz AS now, $22::text AS quota_resource, $23::text AS quota_scope_key,
           $24::date AS quota_day, duplicate,
           (CASE WHEN duplicate THEN 'failed'
                 ELSE 'pending' END)::charge_status AS status,
           CASE WHEN duplicate THEN $27::int4 END AS error_code,
           CASE WHEN duplicate THEN $28::text END AS error_message,
           CASE WHEN duplicate THEN $29::text END AS error_detail
      FROM dup
  ),
  claimed AS (
    UPDATE transaction_tokens t
       SET used_count = t.used_count + 1, last_used_on = $21::timestamptz, active = (t.type <> 'one_time'), updated_on = $21::timestamptz
     WHERE t.id = $4::uuid
       AND NOT (SELECT duplicate FROM dup)
       AND t.active AND (t.type <> 'one_time' OR t.used_count = 0)
    RETURNING t.id
  ),
  quota AS (
    INSERT INTO daily_quota_usage (resource, scope_key, day, count)
    SELECT $22::text, $23::text, $24::date, 1
     WHERE $22::text IS NOT NULL AND 1 <= $25::int4 AND NOT (SELECT duplicate FROM dup)

    ON CONFLICT (resource, scope_key, day)
    DO UPDATE SET count = daily_quota_usage.count + excluded.count, updated_on = now()
    WHERE daily_quota_usage.count + excluded.count <= $25::int4
    RETURNING 1
  ),
  card_limit AS (
    SELECT (SELECT duplicate FROM dup)
           OR
    CASE WHEN $30::int8 IS NULL THEN true
         ELSE (SELECT coalesce(sum(c.requested_amount), 0)
                 FROM card_vault mine
                 JOIN card_vault same ON same.fingerprint = mine.fingerprint
                 JOIN charges c ON c.transaction_token_id = same.transaction_token_id
                WHERE mine.transaction_token_id = $4::uuid
                  AND c.store_id = $3::uuid
                  AND c.requested_currency = $8::text
                  AND c.created_on > $31::timestamptz
                  AND c.status NOT IN ('failed', 'error', 'canceled')
              ) + $7::int8 <= $30::int8
    END AS ok
  ),
  outcome AS (
    SELECT claimed, limit_ok, quota_ok, claimed AND limit_ok AND quota_ok AS ok
      FROM (SELECT duplicate OR EXISTS (SELECT 1 FROM claimed) AS claimed,
                   (SELECT ok FROM card_limit) AS limit_ok,
                   duplicate OR $22::text IS NULL OR EXISTS (SELECT 1 FROM quota) AS quota_ok
              FROM dup) o
  ),

  -- a refused claim, card limit or quota raises here, undoing the claims, the quotas and the inserts
  guard AS (
    SELECT CASE WHEN ok THEN true
                ELSE kessai_refuse(CASE WHEN NOT claimed THEN 'token_not_claimable'
                                        WHEN NOT limit_ok THEN 'card_limit_exceeded'
                                        ELSE 'quota_exhausted' END)
           END AS ok
      FROM outcome
  ),
  inserted AS (
    INSERT INTO charges (
      id, merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
      requested_amount, requested_currency, capture, capture_at, descriptor, only_direct_currency,
      fee_rate_ppm, fee_flat_amount, error_code, error_message, error_detail, three_ds, redirect,
      metadata, expires_on, match_amount)
    SELECT id, merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
           requested_amount, requested_currency, capture, capture_at, descriptor, only_direct_currency,
           fee_rate_ppm, fee_flat_amount, error_code, error_message, error_detail, three_ds, redirect,
           metadata, expires_on, match_amount
      FROM input
     WHERE (SELECT ok FROM guard)
    RETURNING id, created_on, status
  ),
  expiry AS (
    INSERT INTO charge_expiries (charge_id, expiration_date, created_on, updated_on)
    SELECT id, expires_on, now, now
      FROM input
     WHERE expires_on IS NOT NULL AND NOT duplicate AND (SELECT ok FROM guard)
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'charge', id,
       CASE WHEN duplicate THEN 'charge_finished' ELSE 'charge_requested' END, CASE WHEN duplicate THEN jsonb_build_object('charge_id', id::text, 'store_id', store_id::text, 'status', status::text) ELSE jsonb_build_object('charge_id', id::text, 'store_id', store_id::text) END, correlation_id
  FROM input
 WHERE (SELECT ok FROM guard)
  )
  SELECT id::text AS id, created_on, status::text AS status FROM inserted;

-- charges_lock_card_limit
-- params: $1 storeId uuid, $2 transactionTokenId uuid
-- columns: locked bool
SELECT true AS locked
  FROM (SELECT fingerprint FROM card_vault WHERE transaction_token_id = $2::uuid) card,
       LATERAL pg_advisory_xact_lock(hashtextextended('card-limit:' || $1::uuid::text || ':' || card.fingerprint, 0));

-- charges_try_lock_creation
-- params: $1 duplicateKey text, $2 cardLimit bool, $3 storeId uuid, $4 transactionTokenId uuid
-- columns: locked bool
SELECT CASE WHEN $1::text IS NOT NULL
             AND NOT pg_try_advisory_xact_lock(hashtextextended($1::text, 0)) THEN false
            WHEN NOT $2::bool THEN true
            ELSE coalesce((SELECT pg_try_advisory_xact_lock(hashtextextended('card-limit:' || $3::uuid::text || ':' || cv.fingerprint, 0))
                             FROM card_vault cv
                            WHERE cv.transaction_token_id = $4::uuid), true)
       END AS locked;

-- charges_lock_card_limits
-- params: $1 storeIds uuid[], $2 transactionTokenIds uuid[]
-- columns: locked bool
SELECT true AS locked
  FROM (SELECT DISTINCT hashtextextended('card-limit:' || pair.store_id::text || ':' || cv.fingerprint, 0) AS key
          FROM unnest($1::uuid[], $2::uuid[]) AS pair(store_id, token_id)
          JOIN card_vault cv ON cv.transaction_token_id = pair.token_id
         ORDER BY key) card,
       LATERAL pg_advisory_xact_lock(card.key);

-- charges_create_many
-- params: $1 input jsonb, $2 tokenIds uuid[], $3 quotaMax int4
-- columns: id text, created_on timestamptz, status text
  WITH input AS MATERIALIZED (
    SELECT r.*, false AS duplicate, 'pending'::charge_status AS status,
           NULL::int AS error_code, NULL::text AS error_message, NULL::text AS error_detail
      FROM jsonb_to_recordset($1::jsonb) AS r(
        id uuid, merchant_id uuid, store_id uuid, transaction_token_id uuid,
        transaction_token_type token_type, mode processing_mode, requested_amount bigint,
        requested_currency text, capture boolean, capture_at timestamptz, descriptor text,
        only_direct_currency boolean, fee_rate_ppm int, fee_flat_amount bigint,
        expires_on timestamptz, match_amount match_amount, three_ds jsonb,
        redirect jsonb, metadata jsonb,
        correlation_id text, now timestamptz, quota_resource text, quota_scope_key text,
        quota_day date)
  ),
  locked AS MATERIALIZED (
    SELECT t.id FROM transaction_tokens t
     WHERE t.id = ANY($2::uuid[])
     ORDER BY t.id
       FOR UPDATE
  ),
  claimed AS (
    UPDATE transaction_tokens t
       SET used_count = t.used_count + 1, last_used_on = i.now, active = (t.type <> 'one_time'), updated_on = i.now
      FROM input i
     WHERE t.id = ANY($2::uuid[])
       AND t.id = i.transaction_token_id
       AND t.id IN (SELECT id FROM locked)
       AND t.active AND (t.type <> 'one_time' OR t.used_count = 0)
    RETURNING t.id
  ),
  all_claimed AS MATERIALIZED (
    SELECT count(*) = (SELECT count(*) FROM input) AS ok FROM claimed
  ),
  wanted AS (
    SELECT quota_resource AS resource, quota_scope_key AS scope_key, quota_day AS day, count(*)::int AS n
      FROM input
     WHERE quota_resource IS NOT NULL
     GROUP BY 1, 2, 3
  ),
  -- taken after the claims (it reads all_claimed), each (scope, day) once, in key order
  quota AS (
    INSERT INTO daily_quota_usage (resource, scope_key, day, count)
    SELECT resource, scope_key, day, n FROM wanted
     WHERE n <= $3::int4 AND (SELECT ok FROM all_claimed)
     ORDER BY resource, scope_key, day

    ON CONFLICT (resource, scope_key, day)
    DO UPDATE SET count = daily_quota_usage.count + excluded.count, updated_on = now()
    WHERE daily_quota_usage.count + excluded.count <= $3::int4
    RETURNING 1
  ),
  -- no card limit here: a charge with one is created alone (CREATE_CHARGE)
  outcome AS MATERIALIZED (
    SELECT claimed, true AS limit_ok, quota_ok, claimed AND quota_ok AS ok
      FROM (SELECT (SELECT ok FROM all_claimed) AS claimed,
                   (SELECT count(*) FROM quota) = (SELECT count(*) FROM wanted) AS quota_ok) o
  ),

  -- a refused claim, card limit or quota raises here, undoing the claims, the quotas and the inserts
  guard AS (
    SELECT CASE WHEN ok THEN true
                ELSE kessai_refuse(CASE WHEN NOT claimed THEN 'token_not_claimable'
                                        WHEN NOT limit_ok THEN 'card_limit_exceeded'
                                        ELSE 'quota_exhausted' END)
           END AS ok
      FROM outcome
  ),
  inserted AS (
    INSERT INTO charges (
      id, merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
      requested_amount, requested_currency, capture, capture_at, descriptor, only_direct_currency,
      fee_rate_ppm, fee_flat_amount, error_code, error_message, error_detail, three_ds, redirect,
      metadata, expires_on, match_amount)
    SELECT id, merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
           requested_amount, requested_currency, capture, capture_at, descriptor, only_direct_currency,
           fee_rate_ppm, fee_flat_amount, error_code, error_message, error_detail, three_ds, redirect,
           metadata, expires_on, match_amount
      FROM input
     WHERE (SELECT ok FROM guard)
    RETURNING id, created_on, status
  ),
  expiry AS (
    INSERT INTO charge_expiries (charge_id, expiration_date, created_on, updated_on)
    SELECT id, expires_on, now, now
      FROM input
     WHERE expires_on IS NOT NULL AND NOT duplicate AND (SELECT ok FROM guard)
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'charge', id,
       CASE WHEN duplicate THEN 'charge_finished' ELSE 'charge_requested' END, CASE WHEN duplicate THEN jsonb_build_object('charge_id', id::text, 'store_id', store_id::text, 'status', status::text) ELSE jsonb_build_object('charge_id', id::text, 'store_id', store_id::text) END, correlation_id
  FROM input
 WHERE (SELECT ok FROM guard)
  )
  SELECT id::text AS id, created_on, status::text AS status FROM inserted;

-- charges_record_processor_notice
-- params: $1 chargeId uuid, $2 noticeId text, $3 event text, $4 status text, $5 awaitingOnly bool, $6 correlationId text
-- columns: id text
  INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'charge', id,
       'processor_notice_received', jsonb_build_object('charge_id', id::text, 'notice_id', $2::text, 'event', $3::text, 'status', $4::text), $6::text
  FROM charges
 WHERE id = $1::uuid AND (NOT $5::bool OR status = 'awaiting')
  RETURNING id::text AS id;

-- charges_find_ledger_ids
-- params: $1 ids uuid[]
-- columns: id text, ledger_id text
SELECT c.id::text AS id, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = c.id)::text AS ledger_id FROM charges c WHERE c.id = ANY($1::uuid[]);

-- charges_find_by_ids
-- params: $1 ids uuid[]
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz
SELECT charges.id::text, charges.merchant_id::text, charges.store_id::text,
       charges.transaction_token_id::text, charges.transaction_token_type::text,
       charges.subscription_id::text, charges.scheduled_payment_id::text, charges.payment_attempt,
       charges.mode::text, charges.status::text, charges.requested_amount, charges.requested_currency,
       charges.charged_amount, charges.charged_currency, charges.fee_rate_ppm, charges.fee_flat_amount,
       charges.fee_amount, charges.capture, charges.capture_at, charges.capture_status::text,
       charges.pending_operation::text, charges.refund_reserved_amount, charges.refunded_amount,
       charges.descriptor, charges.only_direct_currency, charges.error_code, charges.error_message,
       charges.error_detail, charges.processor_reference, charges.three_ds, charges.redirect,
       charges.issuer_token, charges.three_ds_issuer_token, charges.expires_on,
       charges.match_amount::text, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = charges.id)::text AS ledger_id,
       (CASE WHEN charges.processor_failed_over_on IS NULL THEN charges.processor_account_id
             ELSE charges.fallback_processor_account_id END)::text AS processor_account_id,
       charges.metadata, charges.card_last_four, charges.created_on, charges.updated_on
  FROM charges
 WHERE id = ANY($1::uuid[]);

-- charges_find_in_scope
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz
SELECT charges.id::text, charges.merchant_id::text, charges.store_id::text,
       charges.transaction_token_id::text, charges.transaction_token_type::text,
       charges.subscription_id::text, charges.scheduled_payment_id::text, charges.payment_attempt,
       charges.mode::text, charges.status::text, charges.requested_amount, charges.requested_currency,
       charges.charged_amount, charges.charged_currency, charges.fee_rate_ppm, charges.fee_flat_amount,
       charges.fee_amount, charges.capture, charges.capture_at, charges.capture_status::text,
       charges.pending_operation::text, charges.refund_reserved_amount, charges.refunded_amount,
       charges.descriptor, charges.only_direct_currency, charges.error_code, charges.error_message,
       charges.error_detail, charges.processor_reference, charges.three_ds, charges.redirect,
       charges.issuer_token, charges.three_ds_issuer_token, charges.expires_on,
       charges.match_amount::text, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = charges.id)::text AS ledger_id,
       (CASE WHEN charges.processor_failed_over_on IS NULL THEN charges.processor_account_id
             ELSE charges.fallback_processor_account_id END)::text AS processor_account_id,
       charges.metadata, charges.card_last_four, charges.created_on, charges.updated_on
  FROM charges
 WHERE id = $1::uuid
   AND merchant_id = $2::uuid
   AND ($3::uuid::uuid IS NULL OR store_id = $3::uuid);

-- charges_find_cursor
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid
-- columns: created_on timestamptz
SELECT created_on
  FROM charges
 WHERE id = $1::uuid
   AND merchant_id = $2::uuid
   AND ($3::uuid::uuid IS NULL OR store_id = $3::uuid);

-- charges_list_merchant_desc
-- params: $1 merchantId uuid, $2 lowerOn text, $3 lowerId uuid, $4 upperOn text, $5 upperId uuid, $6 take int4, $7 countAll bool
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz, store_name text, merchant_name text, token_email text, token_payment_type text, total_hits int8
SELECT c.id::text, c.merchant_id::text, c.store_id::text,
       c.transaction_token_id::text, c.transaction_token_type::text,
       c.subscription_id::text, c.scheduled_payment_id::text, c.payment_attempt,
       c.mode::text, c.status::text, c.requested_amount, c.requested_currency,
       c.charged_amount, c.charged_currency, c.fee_rate_ppm, c.fee_flat_amount,
       c.fee_amount, c.capture, c.capture_at, c.capture_status::text,
       c.pending_operation::text, c.refund_reserved_amount, c.refunded_amount,
       c.descriptor, c.only_direct_currency, c.error_code, c.error_message,
       c.error_detail, c.processor_reference, c.three_ds, c.redirect,
       c.issuer_token, c.three_ds_issuer_token, c.expires_on,
       c.match_amount::text, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = c.id)::text AS ledger_id,
       (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
             ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
       c.metadata, c.card_last_four, c.created_on, c.updated_on, s.name AS store_name, m.name AS merchant_name,
       t.email AS token_email, t.payment_type::text AS token_payment_type,
       CASE WHEN $7::bool THEN (SELECT count(*) FROM charges n WHERE n.merchant_id = $1::uuid
   AND (n.created_on, n.id) > ($2::text::timestamptz, $3::uuid)
   AND (n.created_on, n.id) < ($4::text::timestamptz, $5::uuid)) END AS total_hits
  FROM charges c
  JOIN stores s ON s.id = c.store_id
  JOIN merchants m ON m.id = s.merchant_id
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.merchant_id = $1::uuid
   AND (c.created_on, c.id) > ($2::text::timestamptz, $3::uuid)
   AND (c.created_on, c.id) < ($4::text::timestamptz, $5::uuid)
 ORDER BY c.created_on DESC, c.id DESC
 LIMIT $6::int4;

-- charges_list_merchant_asc
-- params: $1 merchantId uuid, $2 lowerOn text, $3 lowerId uuid, $4 upperOn text, $5 upperId uuid, $6 take int4, $7 countAll bool
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz, store_name text, merchant_name text, token_email text, token_payment_type text, total_hits int8
SELECT c.id::text, c.merchant_id::text, c.store_id::text,
       c.transaction_token_id::text, c.transaction_token_type::text,
       c.subscription_id::text, c.scheduled_payment_id::text, c.payment_attempt,
       c.mode::text, c.status::text, c.requested_amount, c.requested_currency,
       c.charged_amount, c.charged_currency, c.fee_rate_ppm, c.fee_flat_amount,
       c.fee_amount, c.capture, c.capture_at, c.capture_status::text,
       c.pending_operation::text, c.refund_reserved_amount, c.refunded_amount,
       c.descriptor, c.only_direct_currency, c.error_code, c.error_message,
       c.error_detail, c.processor_reference, c.three_ds, c.redirect,
       c.issuer_token, c.three_ds_issuer_token, c.expires_on,
       c.match_amount::text, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = c.id)::text AS ledger_id,
       (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
             ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
       c.metadata, c.card_last_four, c.created_on, c.updated_on, s.name AS store_name, m.name AS merchant_name,
       t.email AS token_email, t.payment_type::text AS token_payment_type,
       CASE WHEN $7::bool THEN (SELECT count(*) FROM charges n WHERE n.merchant_id = $1::uuid
   AND (n.created_on, n.id) > ($2::text::timestamptz, $3::uuid)
   AND (n.created_on, n.id) < ($4::text::timestamptz, $5::uuid)) END AS total_hits
  FROM charges c
  JOIN stores s ON s.id = c.store_id
  JOIN merchants m ON m.id = s.merchant_id
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.merchant_id = $1::uuid
   AND (c.created_on, c.id) > ($2::text::timestamptz, $3::uuid)
   AND (c.created_on, c.id) < ($4::text::timestamptz, $5::uuid)
 ORDER BY c.created_on ASC, c.id ASC
 LIMIT $6::int4;

-- charges_list_store_desc
-- params: $1 merchantId uuid, $2 lowerOn text, $3 lowerId uuid, $4 upperOn text, $5 upperId uuid, $6 take int4, $7 countAll bool, $8 storeId uuid
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz, store_name text, merchant_name text, token_email text, token_payment_type text, total_hits int8
SELECT c.id::text, c.merchant_id::text, c.store_id::text,
       c.transaction_token_id::text, c.transaction_token_type::text,
       c.subscription_id::text, c.scheduled_payment_id::text, c.payment_attempt,
       c.mode::text, c.status::text, c.requested_amount, c.requested_currency,
       c.charged_amount, c.charged_currency, c.fee_rate_ppm, c.fee_flat_amount,
       c.fee_amount, c.capture, c.capture_at, c.capture_status::text,
       c.pending_operation::text, c.refund_reserved_amount, c.refunded_amount,
       c.descriptor, c.only_direct_currency, c.error_code, c.error_message,
       c.error_detail, c.processor_reference, c.three_ds, c.redirect,
       c.issuer_token, c.three_ds_issuer_token, c.expires_on,
       c.match_amount::text, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = c.id)::text AS ledger_id,
       (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
             ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
       c.metadata, c.card_last_four, c.created_on, c.updated_on, (SELECT name FROM stores WHERE id = $8::uuid) AS store_name,
       (SELECT m.name FROM stores s JOIN merchants m ON m.id = s.merchant_id
         WHERE s.id = $8::uuid) AS merchant_name,
       t.email AS token_email, t.payment_type::text AS token_payment_type,
       CASE WHEN $7::bool THEN (SELECT count(*) FROM charges n WHERE n.store_id = $8::uuid AND n.merchant_id = $1::uuid
   AND (n.created_on, n.id) > ($2::text::timestamptz, $3::uuid)
   AND (n.created_on, n.id) < ($4::text::timestamptz, $5::uuid)) END AS total_hits
  FROM charges c
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.store_id = $8::uuid AND c.merchant_id = $1::uuid
   AND (c.created_on, c.id) > ($2::text::timestamptz, $3::uuid)
   AND (c.created_on, c.id) < ($4::text::timestamptz, $5::uuid)
 ORDER BY c.created_on DESC, c.id DESC
 LIMIT $6::int4;

-- charges_list_store_asc
-- params: $1 merchantId uuid, $2 lowerOn text, $3 lowerId uuid, $4 upperOn text, $5 upperId uuid, $6 take int4, $7 countAll bool, $8 storeId uuid
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz, store_name text, merchant_name text, token_email text, token_payment_type text, total_hits int8
SELECT c.id::text, c.merchant_id::text, c.store_id::text,
       c.transaction_token_id::text, c.transaction_token_type::text,
       c.subscription_id::text, c.scheduled_payment_id::text, c.payment_attempt,
       c.mode::text, c.status::text, c.requested_amount, c.requested_currency,
       c.charged_amount, c.charged_currency, c.fee_rate_ppm, c.fee_flat_amount,
       c.fee_amount, c.capture, c.capture_at, c.capture_status::text,
       c.pending_operation::text, c.refund_reserved_amount, c.refunded_amount,
       c.descriptor, c.only_direct_currency, c.error_code, c.error_message,
       c.error_detail, c.processor_reference, c.three_ds, c.redirect,
       c.issuer_token, c.three_ds_issuer_token, c.expires_on,
       c.match_amount::text, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = c.id)::text AS ledger_id,
       (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
             ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
       c.metadata, c.card_last_four, c.created_on, c.updated_on, (SELECT name FROM stores WHERE id = $8::uuid) AS store_name,
       (SELECT m.name FROM stores s JOIN merchants m ON m.id = s.merchant_id
         WHERE s.id = $8::uuid) AS merchant_name,
       t.email AS token_email, t.payment_type::text AS token_payment_type,
       CASE WHEN $7::bool THEN (SELECT count(*) FROM charges n WHERE n.store_id = $8::uuid AND n.merchant_id = $1::uuid
   AND (n.created_on, n.id) > ($2::text::timestamptz, $3::uuid)
   AND (n.created_on, n.id) < ($4::text::timestamptz, $5::uuid)) END AS total_hits
  FROM charges c
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.store_id = $8::uuid AND c.merchant_id = $1::uuid
   AND (c.created_on, c.id) > ($2::text::timestamptz, $3::uuid)
   AND (c.created_on, c.id) < ($4::text::timestamptz, $5::uuid)
 ORDER BY c.created_on ASC, c.id ASC
 LIMIT $6::int4;

-- charges_list_merchant_filtered_desc (replanned)
-- params: $1 merchantId uuid, $2 lowerOn text, $3 lowerId uuid, $4 upperOn text, $5 upperId uuid, $6 take int4, $7 countAll bool, $8 status charge_status, $9 mode processing_mode, $10 transactionTokenId uuid, $11 subscriptionId uuid, $12 scheduledPaymentId uuid, $13 currency bpchar, $14 amountFrom int8, $15 amountTo int8, $16 metadata jsonb, $17 metadataNumber jsonb, $18 paymentType payment_type, $19 email text, $20 cardLastFour text
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz, store_name text, merchant_name text, token_email text, token_payment_type text, total_hits int8
SELECT c.id::text, c.merchant_id::text, c.store_id::text,
       c.transaction_token_id::text, c.transaction_token_type::text,
       c.subscription_id::text, c.scheduled_payment_id::text, c.payment_attempt,
       c.mode::text, c.status::text, c.requested_amount, c.requested_currency,
       c.charged_amount, c.charged_currency, c.fee_rate_ppm, c.fee_flat_amount,
       c.fee_amount, c.capture, c.capture_at, c.capture_status::text,
       c.pending_operation::text, c.refund_reserved_amount, c.refunded_amount,
       c.descriptor, c.only_direct_currency, c.error_code, c.error_message,
       c.error_detail, c.processor_reference, c.three_ds, c.redirect,
       c.issuer_token, c.three_ds_issuer_token, c.expires_on,
       c.match_amount::text, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = c.id)::text AS ledger_id,
       (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
             ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
       c.metadata, c.card_last_four, c.created_on, c.updated_on, s.name AS store_name, m.name AS merchant_name,
       t.email AS token_email, t.payment_type::text AS token_payment_type,
       CASE WHEN $7::bool THEN (SELECT count(*) FROM charges n WHERE n.merchant_id = $1::uuid
   AND (n.created_on, n.id) > ($2::text::timestamptz, $3::uuid)
   AND (n.created_on, n.id) < ($4::text::timestamptz, $5::uuid)
   AND ($8::charge_status IS NULL OR n.status = $8::charge_status)
   AND ($9::processing_mode IS NULL OR n.mode = $9::processing_mode)
   AND ($10::uuid IS NULL OR n.transaction_token_id = $10::uuid)
   AND ($11::uuid IS NULL OR n.subscription_id = $11::uuid)
   AND ($12::uuid IS NULL OR n.scheduled_payment_id = $12::uuid)
   AND ($13::bpchar IS NULL OR n.requested_currency = $13::bpchar)
   AND ($14::int8 IS NULL OR n.requested_amount >= $14::int8)
   AND ($15::int8 IS NULL OR n.requested_amount < $15::int8)
   AND ($16::jsonb IS NULL OR n.metadata @> $16::jsonb OR n.metadata @> $17::jsonb)
   AND ($20::text IS NULL OR n.card_last_four = $20::text)
   AND ($18::payment_type IS NULL AND $19::text IS NULL
        OR EXISTS (SELECT FROM transaction_tokens ft
                    WHERE ft.id = n.transaction_token_id
                      AND ($18::payment_type IS NULL OR ft.payment_type = $18::payment_type)
                      AND ($19::text IS NULL OR lower(ft.email) = lower($19::text))))) END AS total_hits
  FROM charges c
  JOIN stores s ON s.id = c.store_id
  JOIN merchants m ON m.id = s.merchant_id
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.merchant_id = $1::uuid
   AND (c.created_on, c.id) > ($2::text::timestamptz, $3::uuid)
   AND (c.created_on, c.id) < ($4::text::timestamptz, $5::uuid)
   AND ($8::charge_status IS NULL OR c.status = $8::charge_status)
   AND ($9::processing_mode IS NULL OR c.mode = $9::processing_mode)
   AND ($10::uuid IS NULL OR c.transaction_token_id = $10::uuid)
   AND ($11::uuid IS NULL OR c.subscription_id = $11::uuid)
   AND ($12::uuid IS NULL OR c.scheduled_payment_id = $12::uuid)
   AND ($13::bpchar IS NULL OR c.requested_currency = $13::bpchar)
   AND ($14::int8 IS NULL OR c.requested_amount >= $14::int8)
   AND ($15::int8 IS NULL OR c.requested_amount < $15::int8)
   AND ($16::jsonb IS NULL OR c.metadata @> $16::jsonb OR c.metadata @> $17::jsonb)
   AND ($20::text IS NULL OR c.card_last_four = $20::text)
   AND ($18::payment_type IS NULL AND $19::text IS NULL
        OR EXISTS (SELECT FROM transaction_tokens ft
                    WHERE ft.id = c.transaction_token_id
                      AND ($18::payment_type IS NULL OR ft.payment_type = $18::payment_type)
                      AND ($19::text IS NULL OR lower(ft.email) = lower($19::text))))
 ORDER BY c.created_on DESC, c.id DESC
 LIMIT $6::int4;

-- charges_list_merchant_filtered_asc (replanned)
-- params: $1 merchantId uuid, $2 lowerOn text, $3 lowerId uuid, $4 upperOn text, $5 upperId uuid, $6 take int4, $7 countAll bool, $8 status charge_status, $9 mode processing_mode, $10 transactionTokenId uuid, $11 subscriptionId uuid, $12 scheduledPaymentId uuid, $13 currency bpchar, $14 amountFrom int8, $15 amountTo int8, $16 metadata jsonb, $17 metadataNumber jsonb, $18 paymentType payment_type, $19 email text, $20 cardLastFour text
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz, store_name text, merchant_name text, token_email text, token_payment_type text, total_hits int8
SELECT c.id::text, c.merchant_id::text, c.store_id::text,
       c.transaction_token_id::text, c.transaction_token_type::text,
       c.subscription_id::text, c.scheduled_payment_id::text, c.payment_attempt,
       c.mode::text, c.status::text, c.requested_amount, c.requested_currency,
       c.charged_amount, c.charged_currency, c.fee_rate_ppm, c.fee_flat_amount,
       c.fee_amount, c.capture, c.capture_at, c.capture_status::text,
       c.pending_operation::text, c.refund_reserved_amount, c.refunded_amount,
       c.descriptor, c.only_direct_currency, c.error_code, c.error_message,
       c.error_detail, c.processor_reference, c.three_ds, c.redirect,
       c.issuer_token, c.three_ds_issuer_token, c.expires_on,
       c.match_amount::text, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = c.id)::text AS ledger_id,
       (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
             ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
       c.metadata, c.card_last_four, c.created_on, c.updated_on, s.name AS store_name, m.name AS merchant_name,
       t.email AS token_email, t.payment_type::text AS token_payment_type,
       CASE WHEN $7::bool THEN (SELECT count(*) FROM charges n WHERE n.merchant_id = $1::uuid
   AND (n.created_on, n.id) > ($2::text::timestamptz, $3::uuid)
   AND (n.created_on, n.id) < ($4::text::timestamptz, $5::uuid)
   AND ($8::charge_status IS NULL OR n.status = $8::charge_status)
   AND ($9::processing_mode IS NULL OR n.mode = $9::processing_mode)
   AND ($10::uuid IS NULL OR n.transaction_token_id = $10::uuid)
   AND ($11::uuid IS NULL OR n.subscription_id = $11::uuid)
   AND ($12::uuid IS NULL OR n.scheduled_payment_id = $12::uuid)
   AND ($13::bpchar IS NULL OR n.requested_currency = $13::bpchar)
   AND ($14::int8 IS NULL OR n.requested_amount >= $14::int8)
   AND ($15::int8 IS NULL OR n.requested_amount < $15::int8)
   AND ($16::jsonb IS NULL OR n.metadata @> $16::jsonb OR n.metadata @> $17::jsonb)
   AND ($20::text IS NULL OR n.card_last_four = $20::text)
   AND ($18::payment_type IS NULL AND $19::text IS NULL
        OR EXISTS (SELECT FROM transaction_tokens ft
                    WHERE ft.id = n.transaction_token_id
                      AND ($18::payment_type IS NULL OR ft.payment_type = $18::payment_type)
                      AND ($19::text IS NULL OR lower(ft.email) = lower($19::text))))) END AS total_hits
  FROM charges c
  JOIN stores s ON s.id = c.store_id
  JOIN merchants m ON m.id = s.merchant_id
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.merchant_id = $1::uuid
   AND (c.created_on, c.id) > ($2::text::timestamptz, $3::uuid)
   AND (c.created_on, c.id) < ($4::text::timestamptz, $5::uuid)
   AND ($8::charge_status IS NULL OR c.status = $8::charge_status)
   AND ($9::processing_mode IS NULL OR c.mode = $9::processing_mode)
   AND ($10::uuid IS NULL OR c.transaction_token_id = $10::uuid)
   AND ($11::uuid IS NULL OR c.subscription_id = $11::uuid)
   AND ($12::uuid IS NULL OR c.scheduled_payment_id = $12::uuid)
   AND ($13::bpchar IS NULL OR c.requested_currency = $13::bpchar)
   AND ($14::int8 IS NULL OR c.requested_amount >= $14::int8)
   AND ($15::int8 IS NULL OR c.requested_amount < $15::int8)
   AND ($16::jsonb IS NULL OR c.metadata @> $16::jsonb OR c.metadata @> $17::jsonb)
   AND ($20::text IS NULL OR c.card_last_four = $20::text)
   AND ($18::payment_type IS NULL AND $19::text IS NULL
        OR EXISTS (SELECT FROM transaction_tokens ft
                    WHERE ft.id = c.transaction_token_id
                      AND ($18::payment_type IS NULL OR ft.payment_type = $18::payment_type)
                      AND ($19::text IS NULL OR lower(ft.email) = lower($19::text))))
 ORDER BY c.created_on ASC, c.id ASC
 LIMIT $6::int4;

-- charges_list_store_filtered_desc (replanned)
-- params: $1 merchantId uuid, $2 lowerOn text, $3 lowerId uuid, $4 upperOn text, $5 upperId uuid, $6 take int4, $7 countAll bool, $8 storeId uuid, $9 status charge_status, $10 mode processing_mode, $11 transactionTokenId uuid, $12 subscriptionId uuid, $13 scheduledPaymentId uuid, $14 currency bpchar, $15 amountFrom int8, $16 amountTo int8, $17 metadata jsonb, $18 metadataNumber jsonb, $19 paymentType payment_type, $20 email text, $21 cardLastFour text
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz, store_name text, merchant_name text, token_email text, token_payment_type text, total_hits int8
SELECT c.id::text, c.merchant_id::text, c.store_id::text,
       c.transaction_token_id::text, c.transaction_token_type::text,
       c.subscription_id::text, c.scheduled_payment_id::text, c.payment_attempt,
       c.mode::text, c.status::text, c.requested_amount, c.requested_currency,
       c.charged_amount, c.charged_currency, c.fee_rate_ppm, c.fee_flat_amount,
       c.fee_amount, c.capture, c.capture_at, c.capture_status::text,
       c.pending_operation::text, c.refund_reserved_amount, c.refunded_amount,
       c.descriptor, c.only_direct_currency, c.error_code, c.error_message,
       c.error_detail, c.processor_reference, c.three_ds, c.redirect,
       c.issuer_token, c.three_ds_issuer_token, c.expires_on,
       c.match_amount::text, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = c.id)::text AS ledger_id,
       (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
             ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
       c.metadata, c.card_last_four, c.created_on, c.updated_on, (SELECT name FROM stores WHERE id = $8::uuid) AS store_name,
       (SELECT m.name FROM stores s JOIN merchants m ON m.id = s.merchant_id
         WHERE s.id = $8::uuid) AS merchant_name,
       t.email AS token_email, t.payment_type::text AS token_payment_type,
       CASE WHEN $7::bool THEN (SELECT count(*) FROM charges n WHERE n.store_id = $8::uuid AND n.merchant_id = $1::uuid
   AND (n.created_on, n.id) > ($2::text::timestamptz, $3::uuid)
   AND (n.created_on, n.id) < ($4::text::timestamptz, $5::uuid)
   AND ($9::charge_status IS NULL OR n.status = $9::charge_status)
   AND ($10::processing_mode IS NULL OR n.mode = $10::processing_mode)
   AND ($11::uuid IS NULL OR n.transaction_token_id = $11::uuid)
   AND ($12::uuid IS NULL OR n.subscription_id = $12::uuid)
   AND ($13::uuid IS NULL OR n.scheduled_payment_id = $13::uuid)
   AND ($14::bpchar IS NULL OR n.requested_currency = $14::bpchar)
   AND ($15::int8 IS NULL OR n.requested_amount >= $15::int8)
   AND ($16::int8 IS NULL OR n.requested_amount < $16::int8)
   AND ($17::jsonb IS NULL OR n.metadata @> $17::jsonb OR n.metadata @> $18::jsonb)
   AND ($21::text IS NULL OR n.card_last_four = $21::text)
   AND ($19::payment_type IS NULL AND $20::text IS NULL
        OR EXISTS (SELECT FROM transaction_tokens ft
                    WHERE ft.id = n.transaction_token_id
                      AND ($19::payment_type IS NULL OR ft.payment_type = $19::payment_type)
                      AND ($20::text IS NULL OR lower(ft.email) = lower($20::text))))) END AS total_hits
  FROM charges c
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.store_id = $8::uuid AND c.merchant_id = $1::uuid
   AND (c.created_on, c.id) > ($2::text::timestamptz, $3::uuid)
   AND (c.created_on, c.id) < ($4::text::timestamptz, $5::uuid)
   AND ($9::charge_status IS NULL OR c.status = $9::charge_status)
   AND ($10::processing_mode IS NULL OR c.mode = $10::processing_mode)
   AND ($11::uuid IS NULL OR c.transaction_token_id = $11::uuid)
   AND ($12::uuid IS NULL OR c.subscription_id = $12::uuid)
   AND ($13::uuid IS NULL OR c.scheduled_payment_id = $13::uuid)
   AND ($14::bpchar IS NULL OR c.requested_currency = $14::bpchar)
   AND ($15::int8 IS NULL OR c.requested_amount >= $15::int8)
   AND ($16::int8 IS NULL OR c.requested_amount < $16::int8)
   AND ($17::jsonb IS NULL OR c.metadata @> $17::jsonb OR c.metadata @> $18::jsonb)
   AND ($21::text IS NULL OR c.card_last_four = $21::text)
   AND ($19::payment_type IS NULL AND $20::text IS NULL
        OR EXISTS (SELECT FROM transaction_tokens ft
                    WHERE ft.id = c.transaction_token_id
                      AND ($19::payment_type IS NULL OR ft.payment_type = $19::payment_type)
                      AND ($20::text IS NULL OR lower(ft.email) = lower($20::text))))
 ORDER BY c.created_on DESC, c.id DESC
 LIMIT $6::int4;

-- charges_list_store_filtered_asc (replanned)
-- params: $1 merchantId uuid, $2 lowerOn text, $3 lowerId uuid, $4 upperOn text, $5 upperId uuid, $6 take int4, $7 countAll bool, $8 storeId uuid, $9 status charge_status, $10 mode processing_mode, $11 transactionTokenId uuid, $12 subscriptionId uuid, $13 scheduledPaymentId uuid, $14 currency bpchar, $15 amountFrom int8, $16 amountTo int8, $17 metadata jsonb, $18 metadataNumber jsonb, $19 paymentType payment_type, $20 email text, $21 cardLastFour text
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz, store_name text, merchant_name text, token_email text, token_payment_type text, total_hits int8
SELECT c.id::text, c.merchant_id::text, c.store_id::text,
       c.transaction_token_id::text, c.transaction_token_type::text,
       c.subscription_id::text, c.scheduled_payment_id::text, c.payment_attempt,
       c.mode::text, c.status::text, c.requested_amount, c.requested_currency,
       c.charged_amount, c.charged_currency, c.fee_rate_ppm, c.fee_flat_amount,
       c.fee_amount, c.capture, c.capture_at, c.capture_status::text,
       c.pending_operation::text, c.refund_reserved_amount, c.refunded_amount,
       c.descriptor, c.only_direct_currency, c.error_code, c.error_message,
       c.error_detail, c.processor_reference, c.three_ds, c.redirect,
       c.issuer_token, c.three_ds_issuer_token, c.expires_on,
       c.match_amount::text, (SELECT lt.id FROM ledger_transactions lt
 WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = c.id)::text AS ledger_id,
       (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
             ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
       c.metadata, c.card_last_four, c.created_on, c.updated_on, (SELECT name FROM stores WHERE id = $8::uuid) AS store_name,
       (SELECT m.name FROM stores s JOIN merchants m ON m.id = s.merchant_id
         WHERE s.id = $8::uuid) AS merchant_name,
       t.email AS token_email, t.payment_type::text AS token_payment_type,
       CASE WHEN $7::bool THEN (SELECT count(*) FROM charges n WHERE n.store_id = $8::uuid AND n.merchant_id = $1::uuid
   AND (n.created_on, n.id) > ($2::text::timestamptz, $3::uuid)
   AND (n.created_on, n.id) < ($4::text::timestamptz, $5::uuid)
   AND ($9::charge_status IS NULL OR n.status = $9::charge_status)
   AND ($10::processing_mode IS NULL OR n.mode = $10::processing_mode)
   AND ($11::uuid IS NULL OR n.transaction_token_id = $11::uuid)
   AND ($12::uuid IS NULL OR n.subscription_id = $12::uuid)
   AND ($13::uuid IS NULL OR n.scheduled_payment_id = $13::uuid)
   AND ($14::bpchar IS NULL OR n.requested_currency = $14::bpchar)
   AND ($15::int8 IS NULL OR n.requested_amount >= $15::int8)
   AND ($16::int8 IS NULL OR n.requested_amount < $16::int8)
   AND ($17::jsonb IS NULL OR n.metadata @> $17::jsonb OR n.metadata @> $18::jsonb)
   AND ($21::text IS NULL OR n.card_last_four = $21::text)
   AND ($19::payment_type IS NULL AND $20::text IS NULL
        OR EXISTS (SELECT FROM transaction_tokens ft
                    WHERE ft.id = n.transaction_token_id
                      AND ($19::payment_type IS NULL OR ft.payment_type = $19::payment_type)
                      AND ($20::text IS NULL OR lower(ft.email) = lower($20::text))))) END AS total_hits
  FROM charges c
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.store_id = $8::uuid AND c.merchant_id = $1::uuid
   AND (c.created_on, c.id) > ($2::text::timestamptz, $3::uuid)
   AND (c.created_on, c.id) < ($4::text::timestamptz, $5::uuid)
   AND ($9::charge_status IS NULL OR c.status = $9::charge_status)
   AND ($10::processing_mode IS NULL OR c.mode = $10::processing_mode)
   AND ($11::uuid IS NULL OR c.transaction_token_id = $11::uuid)
   AND ($12::uuid IS NULL OR c.subscription_id = $12::uuid)
   AND ($13::uuid IS NULL OR c.scheduled_payment_id = $13::uuid)
   AND ($14::bpchar IS NULL OR c.requested_currency = $14::bpchar)
   AND ($15::int8 IS NULL OR c.requested_amount >= $15::int8)
   AND ($16::int8 IS NULL OR c.requested_amount < $16::int8)
   AND ($17::jsonb IS NULL OR c.metadata @> $17::jsonb OR c.metadata @> $18::jsonb)
   AND ($21::text IS NULL OR c.card_last_four = $21::text)
   AND ($19::payment_type IS NULL AND $20::text IS NULL
        OR EXISTS (SELECT FROM transaction_tokens ft
                    WHERE ft.id = c.transaction_token_id
                      AND ($19::payment_type IS NULL OR ft.payment_type = $19::payment_type)
                      AND ($20::text IS NULL OR lower(ft.email) = lower($20::text))))
 ORDER BY c.created_on ASC, c.id ASC
 LIMIT $6::int4;
