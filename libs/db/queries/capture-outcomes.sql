-- Generated from libs/db/src/charges/capture-outcomes.sql.ts by npm run sql:generate: do not edit.

-- charge_outcomes_find_pending_capture
-- params: $1 chargeId uuid
-- columns: id text, charge_id text, amount int8, currency bpchar, charge_status text, mode text, processor_reference text, processor_account_id text, fee_rate_ppm int4, fee_flat_amount int8
SELECT k.id::text AS id, k.charge_id::text AS charge_id, k.amount, k.currency,
       c.status::text AS charge_status, c.mode::text AS mode, c.processor_reference,
       (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
             ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
       c.fee_rate_ppm, c.fee_flat_amount
  FROM captures k JOIN charges c ON c.id = k.charge_id
 WHERE k.charge_id = $1::uuid AND k.status = 'pending';

-- charge_outcomes_record_captured
-- params: $1 captureId uuid, $2 capturedAmount int8, $3 feeAmount int8, $4 captureFrom operation_status, $5 captureTo operation_status, $6 chargeFrom charge_status, $7 chargeTo charge_status, $8 event text, $9 causeEventId uuid
-- columns: captured bool
  WITH capture AS (
    UPDATE captures SET status = $5::operation_status, updated_on = now()
     WHERE id = $1::uuid AND status = $4::operation_status
    RETURNING charge_id, currency
  ), changed AS (
    UPDATE charges c
       SET status = $7::charge_status, capture_status = 'captured',
           charged_amount = $2::int8, charged_currency = capture.currency,
           fee_amount = $3::int8,
           pending_operation = NULL, updated_on = now()
      FROM capture
     WHERE c.id = capture.charge_id AND c.status = $6::charge_status
    RETURNING c.id, c.merchant_id, c.store_id, c.status
  ), event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'charge', id,
       $8::text, jsonb_build_object('charge_id', id::text, 'store_id', store_id::text, 'status', status::text), (SELECT correlation_id FROM outbox_events cause WHERE cause.id = $9::uuid)
  FROM changed
  )
  SELECT EXISTS (SELECT 1 FROM capture) AS captured;

-- charge_outcomes_record_capture_failed
-- params: $1 captureId uuid, $2 from operation_status, $3 to operation_status, $4 errorCode int4, $5 errorMessage text, $6 errorDetail text
-- columns: id text
WITH moved AS (
  UPDATE captures
     SET status = $3::operation_status, error_code = $4::int4, error_message = $5::text,
         error_detail = $6::text, updated_on = now()
   WHERE id = $1::uuid AND status = $2::operation_status
  RETURNING id, charge_id
), freed AS (
  UPDATE charges c SET pending_operation = NULL
    FROM moved
   WHERE c.id = moved.charge_id AND c.pending_operation = 'capture'
  RETURNING c.id
)
SELECT id::text AS id FROM moved;
