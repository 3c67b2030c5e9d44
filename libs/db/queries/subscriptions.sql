-- Generated from libs/db/src/subscriptions/subscriptions.sql.ts by npm run sql:generate: do not edit.

-- subscriptions_create
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 transactionTokenId uuid, $5 mode processing_mode, $6 status subscription_status, $7 period subscription_period, $8 cyclicalPeriod text, $9 amount int8, $10 currency text, $11 initialAmount int8, $12 scheduleCreatedAt timestamptz, $13 startOn date, $14 zoneId text, $15 preserveEndOfMonth bool, $16 retryInterval text, $17 terminationMode termination_mode, $18 installmentPlan jsonb, $19 subscriptionPlan jsonb, $20 paymentsLeft int4, $21 cyclesLeft int4, $22 amountLeft int8, $23 descriptor text, $24 onlyDirectCurrency bool, $25 threeDs jsonb, $26 firstChargeAuthorizationOnly bool, $27 firstChargeCaptureAfter text, $28 metadata jsonb, $29 testClockId uuid, $30 paymentId uuid, $31 paymentCycle int4, $32 paymentDueDate date, $33 paymentDueAt timestamptz, $34 paymentAmount int8, $35 paymentIsLast bool, $36 correlationId text
-- columns: created_on timestamptz
  WITH created AS (
    INSERT INTO subscriptions (id, merchant_id, store_id, transaction_token_id, mode, status, period,
                               cyclical_period, amount, currency, initial_amount, schedule_created_at,
                               start_on, zone_id, preserve_end_of_month, retry_interval,
                               termination_mode, installment_plan, subscription_plan, payments_left,
                               cycles_left, amount_left, descriptor, only_direct_currency, three_ds,
                               first_charge_authorization_only, first_charge_capture_after,
                               metadata, test_clock_id, created_on, updated_on)
    SELECT $1::uuid, $2::uuid, $3::uuid, $4::uuid, $5::processing_mode, $6::subscription_status,
           $7::subscription_period, $8::text, $9::int8, $10::text, $11::int8,
           $12::timestamptz, $13::date, $14::text, $15::bool,
           $16::text, $17::termination_mode, $18::jsonb, $19::jsonb,
           $20::int4, $21::int4, $22::int8, $23::text,
           $24::bool, $25::jsonb, $26::bool,
           $27::text, $28::jsonb, $29::uuid, now(), now()
     WHERE EXISTS (SELECT 1 FROM stores s
                    WHERE s.id = $3::uuid AND s.merchant_id = $2::uuid
                      AND s.deleted_on IS NULL
                      FOR SHARE)
       AND ($29::uuid IS NULL
            OR EXISTS (SELECT 1 FROM test_clocks c
                        WHERE c.id = $29::uuid AND c.merchant_id = $2::uuid
                          AND c.deleted_on IS NULL
                          FOR SHARE))
    RETURNING id, merchant_id, store_id, status, created_on
  ),
  payment AS (
    INSERT INTO scheduled_payments (id, subscription_id, sequence, cycle, due_date, due_at, zone_id,
                                    amount, currency, status, is_last_payment, attempts, next_try_at,
                                    test_clock_id, created_on, updated_on)
    SELECT $30::uuid, id, 1, $31::int4, $32::date, $33::timestamptz, $14::text,
           $34::int8, $10::text, 'pending', $35::bool, 0, $33::timestamptz,
           $29::uuid, created_on, created_on
      FROM created
    RETURNING id, subscription_id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'subscription', subscription_id,
       'subscription_created', jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'status', status::text, 'scheduled_payment_id', scheduled_payment_id::text, 'charge_id', charge_id::text), $36::text
  FROM (SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status,
             p.id AS scheduled_payment_id, NULL::uuid AS charge_id
        FROM created m LEFT JOIN payment p ON p.subscription_id = m.id) AS changed
  )
  SELECT created_on FROM created;

-- subscriptions_cancel
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 correlationId text
-- columns: status subscription_status, moved bool
  WITH target AS (SELECT id, status FROM subscriptions WHERE id = $1::uuid AND merchant_id = $2::uuid
 AND ($3::uuid IS NULL OR store_id = $3::uuid) FOR UPDATE),
  moved AS (
    UPDATE subscriptions s SET status = 'canceled', updated_on = now()
      FROM target
     WHERE s.id = target.id AND s.status IN ('unverified', 'current', 'suspended', 'unpaid', 'unconfirmed', 'authorized')
    RETURNING s.id, s.merchant_id, s.store_id, s.status, s.test_clock_id
  ),
  payment AS (
    UPDATE scheduled_payments sp SET status = 'canceled', next_try_at = NULL, updated_on = now()
      FROM moved
     WHERE sp.subscription_id = moved.id AND sp.status = 'pending'
    RETURNING sp.id, sp.subscription_id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'subscription', subscription_id,
       'subscription_canceled', jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'status', status::text, 'scheduled_payment_id', scheduled_payment_id::text, 'charge_id', charge_id::text), $4::text
  FROM (SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status,
             p.id AS scheduled_payment_id, NULL::uuid AS charge_id
        FROM moved m LEFT JOIN payment p ON p.subscription_id = m.id) AS changed
  )
  SELECT target.status, EXISTS (SELECT 1 FROM moved) AS moved FROM target;

-- subscriptions_suspend
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 correlationId text
-- columns: status subscription_status, moved bool
  WITH target AS (SELECT id, status FROM subscriptions WHERE id = $1::uuid AND merchant_id = $2::uuid
 AND ($3::uuid IS NULL OR store_id = $3::uuid) FOR UPDATE),
  moved AS (
    UPDATE subscriptions s SET status = 'suspended', updated_on = now()
      FROM target
     WHERE s.id = target.id AND s.status IN ('current', 'unpaid')
    RETURNING s.id, s.merchant_id, s.store_id, s.status, s.test_clock_id
  ),
  payment AS (
    UPDATE scheduled_payments sp SET next_try_at = NULL, updated_on = now()
      FROM moved
     WHERE sp.subscription_id = moved.id AND sp.status = 'pending'
    RETURNING sp.id, sp.subscription_id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'subscription', subscription_id,
       'subscription_suspended', jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'status', status::text, 'scheduled_payment_id', scheduled_payment_id::text, 'charge_id', charge_id::text), $4::text
  FROM (SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status,
             p.id AS scheduled_payment_id, NULL::uuid AS charge_id
        FROM moved m LEFT JOIN payment p ON p.subscription_id = m.id) AS changed
  )
  SELECT target.status, EXISTS (SELECT 1 FROM moved) AS moved FROM target;

-- subscriptions_unsuspend
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 correlationId text
-- columns: status subscription_status, moved bool
  WITH target AS (SELECT id, status FROM subscriptions WHERE id = $1::uuid AND merchant_id = $2::uuid
 AND ($3::uuid IS NULL OR store_id = $3::uuid) FOR UPDATE),
  moved AS (
    UPDATE subscriptions s SET status = 'unpaid', updated_on = now()
      FROM target
     WHERE s.id = target.id AND s.status IN ('suspended')
    RETURNING s.id, s.merchant_id, s.store_id, s.status, s.test_clock_id
  ),
  payment AS (
    UPDATE scheduled_payments sp SET next_try_at = GREATEST(sp.due_at, COALESCE(
             (SELECT c.frozen_time FROM test_clocks c WHERE c.id = moved.test_clock_id), now())),
           terminate_with_status = CASE WHEN sp.terminate_with_status = 'suspended' THEN NULL
                                        ELSE sp.terminate_with_status END, updated_on = now()
      FROM moved
     WHERE sp.subscription_id = moved.id AND sp.status = 'pending'
    RETURNING sp.id, sp.subscription_id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'subscription', subscription_id,
       'subscription_updated', jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'changed', to_jsonb(ARRAY['status']), 'status', status::text), $4::text
  FROM (SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status FROM moved m) AS changed
  )
  SELECT target.status, EXISTS (SELECT 1 FROM moved) AS moved FROM target;

-- subscriptions_retry_first_payment
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 transactionTokenId uuid, $5 correlationId text
-- columns: status subscription_status, moved bool
  WITH target AS (SELECT id, status FROM subscriptions WHERE id = $1::uuid AND merchant_id = $2::uuid
 AND ($3::uuid IS NULL OR store_id = $3::uuid) FOR UPDATE),
  moved AS (
    UPDATE subscriptions s
       SET status = 'unverified',
           transaction_token_id = $4::uuid, updated_on = now()
      FROM target
     WHERE s.id = target.id AND s.status IN ('unconfirmed')
       AND EXISTS (SELECT 1 FROM scheduled_payments sp
                    WHERE sp.subscription_id = s.id AND sp.sequence = 1 AND sp.status = 'failed')
    RETURNING s.id, s.merchant_id, s.store_id, s.status, s.test_clock_id
  ),
  payment AS (
    UPDATE scheduled_payments sp
       SET status = 'pending', updated_on = now(),
           next_try_at = COALESCE(
             (SELECT c.frozen_time FROM test_clocks c WHERE c.id = moved.test_clock_id), now())
      FROM moved
     WHERE sp.subscription_id = moved.id AND sp.sequence = 1 AND sp.status = 'failed'
    RETURNING sp.id, sp.subscription_id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'subscription', subscription_id,
       'subscription_updated', jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'changed', to_jsonb(ARRAY['transaction_token_id', 'status']), 'status', status::text), $5::text
  FROM (SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status FROM moved m) AS changed
  )
  SELECT target.status, EXISTS (SELECT 1 FROM moved) AS moved FROM target;

-- subscriptions_mark_termination
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 from subscription_status[], $5 terminateWith subscription_status, $6 correlationId text
-- columns: status subscription_status, has_pending bool, marked bool
  WITH target AS (SELECT id, status FROM subscriptions WHERE id = $1::uuid AND merchant_id = $2::uuid
 AND ($3::uuid IS NULL OR store_id = $3::uuid) FOR UPDATE),
  marked AS (
    UPDATE scheduled_payments sp SET terminate_with_status = $5::subscription_status, updated_on = now()
      FROM target
     WHERE sp.subscription_id = target.id AND sp.status = 'pending' AND target.status = ANY ($4::subscription_status[])
    RETURNING sp.subscription_id
  ),
  touched AS (
    UPDATE subscriptions s SET updated_on = now()
      FROM marked
     WHERE s.id = marked.subscription_id
    RETURNING s.id, s.merchant_id, s.store_id, s.status
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'subscription', subscription_id,
       'subscription_updated', jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'changed', to_jsonb(ARRAY['next_payment.terminate_with_status']), 'status', status::text), $6::text
  FROM (SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status FROM touched m) AS changed
  )
  SELECT target.status,
         EXISTS (SELECT 1 FROM scheduled_payments sp
                  WHERE sp.subscription_id = target.id AND sp.status = 'pending') AS has_pending,
         EXISTS (SELECT 1 FROM marked) AS marked
    FROM target;

-- subscriptions_update
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 setMetadata bool, $5 metadata jsonb, $6 setDescriptor bool, $7 descriptor text, $8 setAmount bool, $9 amount int8, $10 setToken bool, $11 transactionTokenId uuid, $12 setTerminationMode bool, $13 terminationMode termination_mode, $14 setOnlyDirectCurrency bool, $15 onlyDirectCurrency bool, $16 setPlan bool, $17 subscriptionPlan jsonb, $18 paymentsLeft int4, $19 cyclesLeft int4, $20 planAmountLeft int8, $21 openPaymentId uuid, $22 openIsLast bool, $23 openAmount int8, $24 changed text[], $25 correlationId text
-- columns: status subscription_status, moved bool
  WITH target AS (SELECT id, status FROM subscriptions WHERE id = $1::uuid AND merchant_id = $2::uuid
 AND ($3::uuid IS NULL OR store_id = $3::uuid) FOR UPDATE),
  moved AS (
    UPDATE subscriptions s
       SET metadata = CASE WHEN $4::bool THEN $5::jsonb ELSE s.metadata END,
           descriptor = CASE WHEN $6::bool THEN $7::text ELSE s.descriptor END,
           amount = CASE WHEN $8::bool THEN $9::int8 ELSE s.amount END,
           subscription_plan = CASE WHEN $16::bool THEN $17::jsonb ELSE s.subscription_plan END,
           payments_left = CASE WHEN $16::bool THEN $18::int4 ELSE s.payments_left END,
           cycles_left = CASE WHEN $16::bool THEN $19::int4 ELSE s.cycles_left END,
           amount_left = CASE
             WHEN $16::bool THEN $20::int8
             WHEN $8::bool AND s.amount_left IS NOT NULL AND s.cycles_left IS NOT NULL THEN
               s.amount_left + ($9::int8 - s.amount) * GREATEST(0, s.cycles_left - (
                 SELECT count(*) FROM scheduled_payments sp
                  WHERE sp.subscription_id = s.id AND sp.cycle IS NOT NULL
                    AND (sp.status = 'processing'
                         OR (sp.status = 'pending' AND sp.sequence = 1 AND s.initial_amount IS NOT NULL))))
             ELSE s.amount_left END,
           transaction_token_id =
             CASE WHEN $10::bool THEN $11::uuid ELSE s.transaction_token_id END,
           termination_mode =
             CASE WHEN $12::bool THEN $13::termination_mode ELSE s.termination_mode END,
           only_direct_currency =
             CASE WHEN $14::bool THEN $15::bool ELSE s.only_direct_currency END,
           updated_on = now()
      FROM target
     WHERE s.id = target.id AND s.status NOT IN ('canceled', 'completed')
       -- a new plan was computed from the open payment as read: it must still be the pending one
       AND (NOT $16::bool OR EXISTS (SELECT 1 FROM scheduled_payments sp
                                        WHERE sp.id = $21::uuid AND sp.subscription_id = s.id
                                          AND sp.status = 'pending'))
    RETURNING s.id, s.merchant_id, s.store_id, s.status, s.initial_amount
  ),
  repriced AS (
    UPDATE scheduled_payments sp
       SET amount = CASE
             WHEN $16::bool AND sp.id = $21::uuid THEN $23::int8
             WHEN $8::bool AND sp.cycle IS NOT NULL
                  AND NOT (sp.sequence = 1 AND moved.initial_amount IS NOT NULL) THEN $9::int8
             ELSE sp.amount END,
           is_last_payment = CASE
             WHEN $16::bool AND sp.id = $21::uuid THEN $22::bool
             ELSE sp.is_last_payment END,
           updated_on = now()
      FROM moved
     WHERE sp.subscription_id = moved.id AND sp.status = 'pending'
       AND ($8::bool OR $16::bool)
    RETURNING sp.id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'subscription', subscription_id,
       'subscription_updated', jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'changed', to_jsonb($24::text[]), 'status', status::text), $25::text
  FROM (SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status FROM moved m) AS changed
  )
  SELECT target.status, EXISTS (SELECT 1 FROM moved) AS moved FROM target;

-- subscriptions_update_scheduled_payment
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 paymentId uuid, $5 setDueDate bool, $6 dueDate date, $7 dueAt timestamptz, $8 setAmount bool, $9 amount int8, $10 changed text[], $11 correlationId text
-- columns: payment_status text, moved bool
  WITH owner AS MATERIALIZED (
    SELECT s.id FROM subscriptions s
      JOIN scheduled_payments sp ON sp.subscription_id = s.id
     WHERE sp.id = $4::uuid AND s.id = $1::uuid AND s.merchant_id = $2::uuid
 AND ($3::uuid IS NULL OR s.store_id = $3::uuid)
       FOR UPDATE OF s
  ),
  target AS (
    SELECT sp.id, sp.status, sp.amount FROM scheduled_payments sp
      JOIN owner ON owner.id = sp.subscription_id
     WHERE sp.id = $4::uuid
       FOR UPDATE OF sp
  ),
  moved AS (
    UPDATE scheduled_payments sp
       SET due_date = CASE WHEN $5::bool THEN $6::date ELSE sp.due_date END,
           due_at = CASE WHEN $5::bool THEN $7::timestamptz ELSE sp.due_at END,
           next_try_at = CASE WHEN $5::bool AND sp.next_try_at IS NOT NULL THEN $7::timestamptz
                              ELSE sp.next_try_at END,
           amount = CASE WHEN $8::bool THEN $9::int8 ELSE sp.amount END,
           updated_on = now()
      FROM target
     WHERE sp.id = target.id AND sp.status = 'pending'
    RETURNING sp.subscription_id, sp.amount - target.amount AS amount_change
  ),
  subscription AS (
    UPDATE subscriptions s
       SET amount_left = s.amount_left + moved.amount_change, updated_on = now()
      FROM moved
     WHERE s.id = moved.subscription_id
    RETURNING s.id, s.merchant_id, s.store_id, s.status
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'subscription', subscription_id,
       'subscription_updated', jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'changed', to_jsonb($10::text[]), 'status', status::text), $11::text
  FROM (SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status FROM subscription m) AS changed
  )
  SELECT target.status::text AS payment_status, EXISTS (SELECT 1 FROM moved) AS moved FROM target;

-- subscriptions_search_ids
-- params: $1 merchantId uuid, $2 storeId uuid, $3 statuses subscription_status[], $4 mode processing_mode, $5 search text, $6 afterCreatedOn timestamptz, $7 afterId uuid, $8 ascending bool, $9 limit int4
-- columns: id text
 SELECT s.id::text
   FROM subscriptions s
  WHERE
    s.merchant_id = $1::uuid
AND ($2::uuid::uuid IS NULL OR s.store_id = $2::uuid)
AND (cardinality($3::subscription_status[]::subscription_status[]) = 0 OR s.status = ANY($3::subscription_status[]))
AND ($4::processing_mode::processing_mode IS NULL OR s.mode = $4::processing_mode)
AND EXISTS (SELECT 1 FROM jsonb_each_text(s.metadata) kv
             WHERE strpos(lower(kv.value), lower($5::text)) > 0
                OR strpos(lower(kv.key), lower($5::text)) > 0)
    AND ($7::uuid::uuid IS NULL
         OR ($8::bool AND (s.created_on, s.id) > ($6::timestamptz, $7::uuid))
         OR (NOT $8::bool AND (s.created_on, s.id) < ($6::timestamptz, $7::uuid)))
  ORDER BY CASE WHEN $8::bool THEN s.created_on END ASC,
           CASE WHEN $8::bool THEN s.id END ASC,
           CASE WHEN NOT $8::bool THEN s.created_on END DESC,
           CASE WHEN NOT $8::bool THEN s.id END DESC
  LIMIT $9::int4;

-- subscriptions_search_count
-- params: $1 merchantId uuid, $2 storeId uuid, $3 statuses subscription_status[], $4 mode processing_mode, $5 search text
-- columns: n int4
SELECT count(*)::int AS n FROM subscriptions s WHERE
       s.merchant_id = $1::uuid
   AND ($2::uuid::uuid IS NULL OR s.store_id = $2::uuid)
   AND (cardinality($3::subscription_status[]::subscription_status[]) = 0 OR s.status = ANY($3::subscription_status[]))
   AND ($4::processing_mode::processing_mode IS NULL OR s.mode = $4::processing_mode)
   AND EXISTS (SELECT 1 FROM jsonb_each_text(s.metadata) kv
                WHERE strpos(lower(kv.value), lower($5::text)) > 0
                   OR strpos(lower(kv.key), lower($5::text)) > 0);
