-- Generated from libs/db/src/refunds-cancels/refunds-cancels.sql.ts by npm run sql:generate: do not edit.

-- refunds_request
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 chargeId uuid, $5 amount int8, $6 currency text, $7 reason refund_reason, $8 message text, $9 metadata jsonb, $10 correlationId text
-- columns: status charge_status, charged_currency bpchar, payment_type payment_type, created bool, mode text, created_on timestamptz
  WITH target AS (
    SELECT c.id, c.status, c.charged_currency, t.payment_type
      FROM charges c JOIN transaction_tokens t ON t.id = c.transaction_token_id
     WHERE c.id = $4::uuid AND c.merchant_id = $2::uuid AND c.store_id = $3::uuid
  ),
  reserved AS (
    UPDATE charges c
       SET refund_reserved_amount = c.refund_reserved_amount + $5::int8
      FROM target
     WHERE c.id = target.id AND c.status::text = 'successful'
       AND target.payment_type IN ('card', 'apple_pay', 'paidy', 'qr_scan', 'qr_merchant', 'online')
       AND c.charged_currency = $6::text
       AND c.refund_reserved_amount + $5::int8 <= c.charged_amount
    RETURNING c.id, c.merchant_id, c.store_id, c.mode
  ),
  created AS (
    INSERT INTO refunds (id, merchant_id, store_id, charge_id, mode, status, amount, currency,
                         reason, message, metadata)
    SELECT $1::uuid, merchant_id, store_id, id, mode, 'pending',
           $5::int8, $6::text, $7::refund_reason, $8::text, $9::jsonb
      FROM reserved
    RETURNING id, charge_id, merchant_id, store_id, amount, currency, mode, created_on
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'refund', id,
       'refund_requested', jsonb_build_object('refund_id', id::text, 'charge_id', charge_id::text, 'store_id', store_id::text, 'amount', amount::text, 'currency', currency::text), $10::text
  FROM created
  )
  SELECT target.status, target.charged_currency, target.payment_type, created.id IS NOT NULL AS created,
         created.mode::text AS mode, created.created_on
    FROM target LEFT JOIN created ON true;

-- refunds_find_pending
-- params: $1 ids uuid[]
-- columns: id text, charge_id text, mode text, amount int8, currency bpchar, processor_reference text, processor_account_id text
SELECT r.id::text AS id, r.charge_id::text AS charge_id, r.mode::text AS mode, r.amount,
       r.currency, c.processor_reference, c.processor_account_id::text AS processor_account_id
  FROM refunds r JOIN charges c ON c.id = r.charge_id
 WHERE r.id = ANY($1::uuid[]) AND r.status::text = 'pending';

-- refunds_record_outcomes
-- params: $1 outcomes jsonb, $2 ids uuid[], $3 from operation_status
-- columns: id text
  WITH outcome AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS o(
      id uuid, status operation_status, releases boolean, processor_reference text,
      error_code int, error_message text, error_detail text, cause_event_id uuid)
  ),
  moved AS (
    UPDATE refunds r
       SET status = o.status, processor_reference = o.processor_reference,
           error_code = o.error_code, error_message = o.error_message,
           error_detail = o.error_detail, updated_on = now()
      FROM outcome o
     WHERE r.id = ANY($2::uuid[]) AND r.id = o.id AND r.status::text = $3::operation_status::text
    RETURNING r.id, r.charge_id, r.merchant_id, r.store_id, r.status, r.amount, r.currency,
              o.releases, o.cause_event_id
  ),
  per_charge AS (
    SELECT charge_id,
           sum(CASE WHEN releases THEN amount ELSE 0 END) AS released,
           sum(CASE WHEN status = 'successful' THEN amount ELSE 0 END) AS refunded
      FROM moved GROUP BY charge_id ORDER BY charge_id
  ),
  settled AS (
    UPDATE charges c
       SET refund_reserved_amount = c.refund_reserved_amount - per_charge.released,
           refunded_amount = c.refunded_amount + per_charge.refunded,
           updated_on = CASE WHEN per_charge.refunded > 0 THEN now() ELSE c.updated_on END
      FROM per_charge
     WHERE c.id = per_charge.charge_id
    RETURNING c.id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'refund', id,
       'refund_finished', jsonb_build_object('refund_id', id::text, 'charge_id', charge_id::text, 'store_id', store_id::text, 'status', status::text, 'amount', amount::text, 'currency', currency::text), (SELECT correlation_id FROM outbox_events cause WHERE cause.id = moved.cause_event_id)
  FROM moved
  )
  SELECT id::text AS id FROM moved;

-- cancels_request
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 chargeId uuid, $5 metadata jsonb, $6 correlationId text
-- columns: status charge_status, created bool
  WITH target AS (
    SELECT id, status FROM charges
     WHERE id = $4::uuid AND merchant_id = $2::uuid AND store_id = $3::uuid
  ),
  marked AS (
    UPDATE charges c SET pending_operation = 'cancel', updated_on = now()
      FROM target
     WHERE c.id = target.id AND c.status IN ('authorized', 'awaiting') AND c.pending_operation IS NULL
       AND c.processor_reference IS NOT NULL
    RETURNING c.id, c.merchant_id, c.store_id, c.mode
  ),
  created AS (
    INSERT INTO cancels (id, merchant_id, store_id, charge_id, mode, status, metadata)
    SELECT $1::uuid, merchant_id, store_id, id, mode, 'pending',
           $5::jsonb
      FROM marked
    RETURNING id, charge_id, merchant_id, store_id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'cancel', id,
       'cancel_requested', jsonb_build_object('cancel_id', id::text, 'charge_id', charge_id::text, 'store_id', store_id::text), $6::text
  FROM created
  )
  SELECT status, EXISTS (SELECT 1 FROM created) AS created FROM target;

-- cancels_find_pending
-- params: $1 cancelId uuid
-- columns: id text, charge_id text, mode text, charge_status charge_status, processor_reference text, processor_account_id text
SELECT k.id::text AS id, k.charge_id::text AS charge_id, k.mode::text AS mode,
       c.status AS charge_status, c.processor_reference,
       c.processor_account_id::text AS processor_account_id
  FROM cancels k JOIN charges c ON c.id = k.charge_id
 WHERE k.id = $1::uuid AND k.status::text = 'pending';

-- cancels_record_outcome
-- params: $1 cancelId uuid, $2 from operation_status, $3 to operation_status, $4 chargeTo charge_status, $5 chargeEvent text, $6 errorCode int4, $7 errorMessage text, $8 errorDetail text, $9 causeEventId uuid
-- columns: recorded bool, charge_moved bool
  WITH moved AS (
    UPDATE cancels
       SET status = $3::operation_status, error_code = $6::int4, error_message = $7::text,
           error_detail = $8::text, updated_on = now()
     WHERE id = $1::uuid AND status::text = $2::operation_status::text
    RETURNING id, charge_id, merchant_id, store_id, status
  ),
  charge AS (
    UPDATE charges c
       SET pending_operation = NULL,
           status = CASE WHEN $4::charge_status IS NOT NULL AND c.status IN ('authorized', 'awaiting')
                         THEN $4::charge_status ELSE c.status END,
           capture_status = CASE WHEN $4::charge_status IS NOT NULL AND c.status IN ('authorized', 'awaiting')
                                 THEN NULL ELSE c.capture_status END,
           updated_on = now()
      FROM moved
     WHERE c.id = moved.charge_id AND c.pending_operation = 'cancel'
    RETURNING c.id, c.merchant_id, c.store_id, c.status
  ),
  charge_event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'charge', id,
       $5::text, jsonb_build_object('charge_id', id::text, 'store_id', store_id::text, 'status', status::text), (SELECT correlation_id FROM outbox_events cause WHERE cause.id = $9::uuid)
  FROM charge
 WHERE $4::charge_status IS NOT NULL AND status = $4::charge_status
  ),
  reconcile_event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'charge', id,
       'charge_reconcile_requested', jsonb_build_object('charge_id', id::text, 'cause', 'cancel_not_voided'), (SELECT correlation_id FROM outbox_events cause WHERE cause.id = $9::uuid)
  FROM charge
 WHERE status = 'awaiting'
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'cancel', id,
       'cancel_finished', jsonb_build_object('cancel_id', id::text, 'charge_id', charge_id::text, 'store_id', store_id::text, 'status', status::text), (SELECT correlation_id FROM outbox_events cause WHERE cause.id = $9::uuid)
  FROM moved
  )
  SELECT EXISTS (SELECT 1 FROM moved) AS recorded,
         EXISTS (SELECT 1 FROM charge WHERE $4::charge_status IS NOT NULL
                                        AND status = $4::charge_status) AS charge_moved;

-- refunds_cancels_find_stale
-- params: $1 seconds int4, $2 limit int4
-- columns: kind text, id text
(SELECT 'refund' AS kind, id::text AS id FROM refunds
  WHERE status = 'pending'
    AND updated_on < now() - make_interval(secs => $1::int4)
  ORDER BY updated_on LIMIT $2::int4)
UNION ALL
(SELECT 'cancel' AS kind, id::text AS id FROM cancels
  WHERE status = 'pending'
    AND updated_on < now() - make_interval(secs => $1::int4)
  ORDER BY updated_on LIMIT $2::int4);

-- refunds_redrive_due
-- params: $1 maxRedrives int4, $2 baseSeconds int4, $3 limit int4
-- columns: id text, redrives int4
  WITH due AS (
    SELECT id FROM refunds
     WHERE status = 'error' AND redrives < $1::int4
       AND updated_on < now() - make_interval(secs => $2::int4 * power(2, redrives))
     ORDER BY updated_on LIMIT $3::int4
     FOR UPDATE SKIP LOCKED
  ),
  moved AS (
    UPDATE refunds r
       SET status = 'pending', redrives = r.redrives + 1,
           error_code = NULL, error_message = NULL, error_detail = NULL, updated_on = now()
      FROM due
     WHERE r.id = due.id AND r.status = 'error'
    RETURNING r.id, r.charge_id, r.merchant_id, r.store_id, r.amount, r.currency, r.redrives
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'refund', id,
       'refund_requested', jsonb_build_object('refund_id', id::text, 'charge_id', charge_id::text, 'store_id', store_id::text, 'amount', amount::text, 'currency', currency::text), NULL
  FROM moved
  )
  SELECT id::text AS id, redrives FROM moved;

-- refunds_redrive_one
-- params: $1 refundId uuid, $2 correlationId text
-- columns: id text, redrives int4
  WITH due AS (
    SELECT id FROM refunds WHERE id = $1::uuid AND status = 'error'
     FOR UPDATE SKIP LOCKED
  ),
  moved AS (
    UPDATE refunds r
       SET status = 'pending', redrives = r.redrives + 1,
           error_code = NULL, error_message = NULL, error_detail = NULL, updated_on = now()
      FROM due
     WHERE r.id = due.id AND r.status = 'error'
    RETURNING r.id, r.charge_id, r.merchant_id, r.store_id, r.amount, r.currency, r.redrives
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'refund', id,
       'refund_requested', jsonb_build_object('refund_id', id::text, 'charge_id', charge_id::text, 'store_id', store_id::text, 'amount', amount::text, 'currency', currency::text), $2::text
  FROM moved
  )
  SELECT id::text AS id, redrives FROM moved;
