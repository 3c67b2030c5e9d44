-- Generated from libs/db/src/subscriptions/subscription-engine.sql.ts by npm run sql:generate: do not edit.

-- subscription_engine_claim_due
-- params: $1 limit int4
-- columns: payment_id uuid, sequence int4, cycle int4, due_at timestamptz, payment_zone_id text, payment_amount int8, currency bpchar, attempts int4, is_last_payment bool, terminate_with_status subscription_status, test_clock_id uuid, clock_now timestamptz, subscription_id uuid, merchant_id uuid, store_id uuid, transaction_token_id uuid, mode processing_mode, subscription_status subscription_status, period text, cyclical_period text, subscription_amount int8, initial_amount int8, schedule_created_at timestamptz, start_on text, zone_id text, preserve_end_of_month bool, retry_interval text, installment_plan jsonb, subscription_plan jsonb, payments_left int4, cycles_left int4, amount_left int8, descriptor text, only_direct_currency bool, first_charge_authorization_only bool, first_charge_capture_after text, store_configuration jsonb, merchant_configuration jsonb, token_active bool, token_type token_type, token_mode processing_mode, payment_type payment_type, token_confirmed bool, card_brand text, qr_gateway text, three_ds_status text, cvv_authorize_enabled bool, cvv_authorize_status text, usage_limit text
WITH due_now AS MATERIALIZED (
  SELECT sp.id
    FROM scheduled_payments sp
    JOIN subscriptions s ON s.id = sp.subscription_id
   WHERE sp.status = 'pending' AND sp.test_clock_id IS NULL AND sp.next_try_at <= now()
   ORDER BY sp.next_try_at
   LIMIT $1::int4
     FOR UPDATE OF sp, s SKIP LOCKED
),
due_on_clocks AS MATERIALIZED (
  SELECT sp.id
    FROM scheduled_payments sp
    JOIN test_clocks tc ON tc.id = sp.test_clock_id
    JOIN subscriptions s ON s.id = sp.subscription_id
   WHERE sp.status = 'pending' AND sp.test_clock_id IS NOT NULL AND tc.deleted_on IS NULL
     AND sp.next_try_at <= tc.frozen_time
   ORDER BY sp.next_try_at
   LIMIT $1::int4
     FOR UPDATE OF sp, s SKIP LOCKED
)
SELECT
   sp.id AS payment_id, sp.sequence, sp.cycle, sp.due_at, sp.zone_id AS payment_zone_id,
   sp.amount AS payment_amount, sp.currency, sp.attempts, sp.is_last_payment,
   sp.terminate_with_status, sp.test_clock_id, COALESCE(tc.frozen_time, now()) AS clock_now,

   s.id AS subscription_id, s.merchant_id, s.store_id, s.transaction_token_id, s.mode,
   s.status AS subscription_status, s.period::text AS period, s.cyclical_period,
   s.amount AS subscription_amount, s.initial_amount, s.schedule_created_at,
   to_char(s.start_on, 'YYYY-MM-DD') AS start_on, s.zone_id, s.preserve_end_of_month,
   s.retry_interval, s.installment_plan, s.subscription_plan, s.payments_left, s.cycles_left,
   s.amount_left, s.descriptor, s.only_direct_currency, s.first_charge_authorization_only,
   s.first_charge_capture_after, st.configuration AS store_configuration, m.configuration AS merchant_configuration,
       t.active AS token_active, t.type AS token_type, t.mode AS token_mode,
       t.payment_type, t.confirmed AS token_confirmed, t.data->'card'->>'brand' AS card_brand,
       CASE WHEN t.payment_type = 'qr_scan'
            THEN COALESCE(t.data->>'gateway', t.data->>'brand') END AS qr_gateway,
       CASE WHEN (t.data->'three_ds'->>'enabled')::boolean
            THEN t.data->'three_ds'->>'status' END AS three_ds_status,
       (t.data->'cvv_authorize'->>'enabled')::boolean AS cvv_authorize_enabled,
       t.data->'cvv_authorize'->>'status' AS cvv_authorize_status,
       t.usage_limit::text AS usage_limit
  FROM scheduled_payments sp
  JOIN subscriptions s ON s.id = sp.subscription_id
  JOIN transaction_tokens t ON t.id = s.transaction_token_id
  JOIN stores st ON st.id = s.store_id
  JOIN merchants m ON m.id = s.merchant_id
  LEFT JOIN test_clocks tc ON tc.id = sp.test_clock_id
 WHERE sp.id IN (SELECT id FROM due_now UNION ALL SELECT id FROM due_on_clocks)
 ORDER BY sp.next_try_at;

-- subscription_engine_start_payments
-- params: $1 input jsonb, $2 cardLimitErrorCode int4, $3 cardLimitErrorMessage text, $4 cardLimitErrorDetail text
-- columns: payment_id uuid, charge_id uuid
  WITH input AS MATERIALIZED (
    SELECT r.payment_id, r.attempt, r.charge_id, r.subscription_id, r.merchant_id, r.store_id,
           r.transaction_token_id, r.transaction_token_type, r.mode, r.amount, r.currency,
           r.descriptor, r.only_direct_currency, r.capture, r.capture_at, r.fee_rate_ppm,
           r.fee_flat_amount,
           (CASE WHEN r.refused OR l.over_limit THEN 'failed' ELSE 'pending' END)::charge_status AS status,
           CASE WHEN l.over_limit THEN $2::int4 ELSE r.error_code END AS error_code,
           CASE WHEN l.over_limit THEN $3::text ELSE r.error_message END AS error_message,
           CASE WHEN l.over_limit THEN $4::text ELSE r.error_detail END AS error_detail
      FROM jsonb_to_recordset($1::jsonb) AS r(
        payment_id uuid, attempt int, charge_id uuid, subscription_id uuid, merchant_id uuid,
        store_id uuid, transaction_token_id uuid, transaction_token_type token_type,
        mode processing_mode, amount bigint, currency text, descriptor text,
        only_direct_currency boolean, capture boolean, capture_at timestamptz, fee_rate_ppm int,
        fee_flat_amount bigint, refused boolean,
        error_code int, error_message text, error_detail text,
        card_limit_amount bigint, card_limit_since timestamptz)
     -- the store's card limit (charges.sql.ts, the rule POST /charges is held to): a charge
     -- refused for another reason is not checked
     CROSS JOIN LATERAL (
       SELECT NOT r.refused AND NOT
    CASE WHEN r.card_limit_amount IS NULL THEN true
         ELSE (SELECT coalesce(sum(c.requested_amount), 0)
                 FROM card_vault mine
                 JOIN card_vault same ON same.fingerprint = mine.fingerprint
                 JOIN charges c ON c.transaction_token_id = same.transaction_token_id
                WHERE mine.transaction_token_id = r.transaction_token_id
                  AND c.store_id = r.store_id
                  AND c.requested_currency = r.currency
                  AND c.created_on > r.card_limit_since
                  AND c.status NOT IN ('failed', 'error', 'canceled')
              ) + r.amount <= r.card_limit_amount
    END AS over_limit) l
  ),
  started AS (
    UPDATE scheduled_payments sp
       SET status = 'processing', attempts = i.attempt, next_try_at = NULL, updated_on = now()
      FROM input i
     -- status as text: by primary key, never a full scan of a partial index of pending payments
     -- (LOCK_SETTLEMENTS says why)
     WHERE sp.id = i.payment_id AND sp.status::text = 'pending' AND sp.attempts = i.attempt - 1
    RETURNING sp.id
  ),
  inserted AS (
    INSERT INTO charges (
      id, merchant_id, store_id, transaction_token_id, transaction_token_type, subscription_id,
      scheduled_payment_id, payment_attempt, mode, status, requested_amount, requested_currency,
      capture, capture_at, descriptor, only_direct_currency, fee_rate_ppm, fee_flat_amount,
      error_code, error_message, error_detail, metadata)
    SELECT charge_id, merchant_id, store_id, transaction_token_id, transaction_token_type,
           subscription_id, payment_id, attempt, mode, status, amount, currency, capture,
           capture_at, descriptor, only_direct_currency, fee_rate_ppm, fee_flat_amount, error_code,
           error_message, error_detail, '{}'::jsonb
      FROM input
     WHERE payment_id IN (SELECT id FROM started)
    RETURNING id, store_id, merchant_id, status, scheduled_payment_id, (status = 'failed') AS refused
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'charge', id,
       CASE WHEN refused THEN 'charge_finished' ELSE 'charge_requested' END, CASE WHEN refused THEN jsonb_build_object('charge_id', id::text, 'store_id', store_id::text, 'status', status::text) ELSE jsonb_build_object('charge_id', id::text, 'store_id', store_id::text) END, NULL
  FROM inserted
  )
  SELECT scheduled_payment_id AS payment_id, id AS charge_id FROM inserted;

-- subscription_engine_terminate_payments
-- params: $1 paymentIds uuid[]
-- columns: payment_id uuid, subscription_status text
  WITH target AS MATERIALIZED (
    SELECT sp.id AS payment_id, sp.subscription_id, s.store_id, s.merchant_id,
           CASE WHEN s.status IN ('canceled', 'completed', 'unconfirmed') THEN NULL
                ELSE sp.terminate_with_status END AS new_status
      FROM scheduled_payments sp
      JOIN subscriptions s ON s.id = sp.subscription_id
     -- status as text, as in START_PAYMENTS
     WHERE sp.id = ANY($1::uuid[]) AND sp.status::text = 'pending'
  ),
  payment AS (
    UPDATE scheduled_payments sp
       SET status = CASE WHEN t.new_status = 'suspended' THEN 'pending'
                         ELSE 'canceled' END::scheduled_payment_status,
           next_try_at = NULL, terminate_with_status = NULL, updated_on = now()
      FROM target t
     WHERE sp.id = t.payment_id
    RETURNING sp.id
  ),
  moved AS (
    UPDATE subscriptions s
       SET status = t.new_status, updated_on = now()
      FROM target t
     WHERE s.id = t.subscription_id AND t.new_status IS NOT NULL
    RETURNING s.id AS subscription_id, s.store_id, s.merchant_id, s.status, t.payment_id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'subscription', subscription_id,
       CASE WHEN status = 'suspended' THEN 'subscription_suspended' ELSE 'subscription_canceled' END, jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'status', status::text, 'scheduled_payment_id', scheduled_payment_id::text, 'charge_id', charge_id::text), NULL
  FROM (SELECT subscription_id, store_id, merchant_id, status, payment_id AS scheduled_payment_id, NULL::uuid AS charge_id FROM moved) m
  )
  SELECT t.payment_id, COALESCE(t.new_status::text, 'unchanged') AS subscription_status
    FROM target t;

-- subscription_engine_lock_settlements
-- params: $1 chargeIds uuid[]
-- columns: payment_id uuid, sequence int4, cycle int4, due_at timestamptz, payment_zone_id text, payment_amount int8, currency bpchar, attempts int4, is_last_payment bool, terminate_with_status subscription_status, test_clock_id uuid, clock_now timestamptz, subscription_id uuid, merchant_id uuid, store_id uuid, transaction_token_id uuid, mode processing_mode, subscription_status subscription_status, period text, cyclical_period text, subscription_amount int8, initial_amount int8, schedule_created_at timestamptz, start_on text, zone_id text, preserve_end_of_month bool, retry_interval text, installment_plan jsonb, subscription_plan jsonb, payments_left int4, cycles_left int4, amount_left int8, descriptor text, only_direct_currency bool, first_charge_authorization_only bool, first_charge_capture_after text, store_configuration jsonb, merchant_configuration jsonb, charge_id uuid, charge_status text
WITH locked AS MATERIALIZED (
  SELECT sp.id, c.id AS charge_id, c.status::text AS charge_status
    FROM charges c
    JOIN scheduled_payments sp ON sp.id = c.scheduled_payment_id
    JOIN subscriptions s ON s.id = sp.subscription_id
   WHERE c.id = ANY($1::uuid[]) AND c.status IN ('successful', 'failed', 'error', 'canceled', 'authorized')
     AND sp.status::text = 'processing' AND sp.attempts = c.payment_attempt
   ORDER BY s.id
     FOR UPDATE OF sp, s
)
SELECT
   sp.id AS payment_id, sp.sequence, sp.cycle, sp.due_at, sp.zone_id AS payment_zone_id,
   sp.amount AS payment_amount, sp.currency, sp.attempts, sp.is_last_payment,
   sp.terminate_with_status, sp.test_clock_id, COALESCE(tc.frozen_time, now()) AS clock_now,

   s.id AS subscription_id, s.merchant_id, s.store_id, s.transaction_token_id, s.mode,
   s.status AS subscription_status, s.period::text AS period, s.cyclical_period,
   s.amount AS subscription_amount, s.initial_amount, s.schedule_created_at,
   to_char(s.start_on, 'YYYY-MM-DD') AS start_on, s.zone_id, s.preserve_end_of_month,
   s.retry_interval, s.installment_plan, s.subscription_plan, s.payments_left, s.cycles_left,
   s.amount_left, s.descriptor, s.only_direct_currency, s.first_charge_authorization_only,
   s.first_charge_capture_after, st.configuration AS store_configuration, m.configuration AS merchant_configuration,
       locked.charge_id, locked.charge_status
  FROM locked
  JOIN scheduled_payments sp ON sp.id = locked.id
  JOIN subscriptions s ON s.id = sp.subscription_id
  JOIN stores st ON st.id = s.store_id
  JOIN merchants m ON m.id = s.merchant_id
  LEFT JOIN test_clocks tc ON tc.id = sp.test_clock_id
 ORDER BY s.id;

-- subscription_engine_apply_settlements
-- params: $1 settlements jsonb, $2 next jsonb, $3 events jsonb
-- columns: payment_id uuid
  WITH settlement AS MATERIALIZED (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
      payment_id uuid, attempt int, charge_id uuid, subscription_id uuid,
      payment_status scheduled_payment_status, next_try_at timestamptz,
      successful_payment_date timestamptz, subscription_status subscription_status,
      payments_left int, cycles_left int, amount_left bigint)
  ),
  settled AS (
    UPDATE scheduled_payments sp
       SET status = st.payment_status, next_try_at = st.next_try_at,
           successful_payment_date = st.successful_payment_date, updated_on = now()
      FROM settlement st
     -- ::text: by primary key, never from the partial index of processing payments (LOCK_SETTLEMENTS)
     WHERE sp.id = st.payment_id AND sp.status::text = 'processing' AND sp.attempts = st.attempt
    RETURNING sp.id, sp.subscription_id
  ),
  moved AS (
    UPDATE subscriptions s
       SET status = st.subscription_status, payments_left = st.payments_left,
           cycles_left = st.cycles_left, amount_left = st.amount_left, updated_on = now()
      FROM settlement st
     WHERE s.id = st.subscription_id AND st.payment_id IN (SELECT id FROM settled)
    RETURNING s.id
  ),
  next_payment AS (
    INSERT INTO scheduled_payments (
      id, subscription_id, sequence, cycle, due_date, due_at, zone_id, amount, currency,
      is_last_payment, status, attempts, next_try_at, test_clock_id)
    SELECT n.id, n.subscription_id, n.sequence, n.cycle, n.due_date, n.due_at, n.zone_id,
           n.amount, n.currency, n.is_last_payment, 'pending', 0, n.next_try_at, n.test_clock_id
      FROM jsonb_to_recordset($2::jsonb) AS n(
        id uuid, subscription_id uuid, sequence int, cycle int, due_date date, due_at timestamptz,
        zone_id text, amount bigint, currency text, is_last_payment boolean,
        next_try_at timestamptz, test_clock_id uuid)
     WHERE n.subscription_id IN (SELECT subscription_id FROM settled)
    RETURNING id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'subscription', subscription_id,
       event_type, jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'status', status::text, 'scheduled_payment_id', scheduled_payment_id::text, 'charge_id', charge_id::text), NULL
  FROM (SELECT e.* FROM jsonb_to_recordset($3::jsonb) AS e(
          subscription_id uuid, merchant_id uuid, store_id uuid, event_type text,
          status subscription_status, scheduled_payment_id uuid, charge_id uuid)
         WHERE e.scheduled_payment_id IN (SELECT id FROM settled)) ev
  )
  -- (every data-modifying CTE runs to completion whether read or not; next_payment reads
  -- settled, so the payment left processing before its successor is inserted, which the
  -- one-open-payment index requires)
  SELECT id AS payment_id FROM settled;

-- subscription_engine_find_unsettled
-- params: $1 staleSeconds int4, $2 afterUpdatedOn text, $3 afterId uuid, $4 windowSize int4
-- columns: payment_updated_on text, payment_id uuid, charge_id uuid
WITH sweep_window AS MATERIALIZED (
  SELECT sp.id, sp.attempts, sp.updated_on
    FROM scheduled_payments sp
   WHERE sp.status = 'processing'
     AND sp.updated_on < now() - make_interval(secs => $1::int4)
     AND sp.updated_on >= $2::text::timestamptz
     AND (sp.updated_on, sp.id) > ($2::text::timestamptz, $3::uuid)
   ORDER BY sp.updated_on, sp.id
   LIMIT $4::int4
)
SELECT w.updated_on::text AS payment_updated_on, w.id AS payment_id, c.id AS charge_id
  FROM sweep_window w
  LEFT JOIN charges c
    ON c.scheduled_payment_id = w.id AND c.payment_attempt = w.attempts
   AND c.status IN ('successful', 'failed', 'error', 'canceled')
   AND c.updated_on < now() - make_interval(secs => $1::int4)
 ORDER BY w.updated_on, w.id;
