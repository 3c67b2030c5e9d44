-- Generated from libs/db/src/charges/captures.sql.ts by npm run sql:generate: do not edit.

-- captures_request
-- params: $1 chargeId uuid, $2 captureId uuid, $3 amount int8, $4 currency text, $5 correlationId text
-- columns: status charge_status, capture_status capture_status, cancel_pending bool, had_capture bool, created bool
  WITH target AS (
    SELECT id, merchant_id, store_id, status, capture_status,
           pending_operation IS NOT DISTINCT FROM 'cancel' AS cancel_pending,
           EXISTS (SELECT 1 FROM captures
                    WHERE charge_id = charges.id AND status <> 'failed') AS had_capture
      FROM charges
     WHERE id = $1::uuid
       FOR UPDATE
  ),
  created AS (
    INSERT INTO captures (id, charge_id, amount, currency, status)
    SELECT $2::uuid, id, $3::int8, $4::text, 'pending'
      FROM target
     WHERE status = 'authorized' AND NOT had_capture AND NOT cancel_pending
    ON CONFLICT (charge_id) DO UPDATE
       SET id = EXCLUDED.id, amount = EXCLUDED.amount, currency = EXCLUDED.currency,
           status = 'pending',
           error_code = NULL, error_message = NULL, error_detail = NULL, updated_on = now()
     WHERE captures.status = 'failed'
    RETURNING id, charge_id
  ),
  marked AS (
    UPDATE charges SET pending_operation = 'capture'
     WHERE id IN (SELECT charge_id FROM created)
    RETURNING id
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'charge', id,
       'capture_requested', jsonb_build_object('charge_id', id::text, 'capture_id', $2::uuid::text), $5::text
  FROM target
 WHERE EXISTS (SELECT 1 FROM created)
  )
  SELECT status, capture_status, cancel_pending, had_capture, EXISTS (SELECT 1 FROM created) AS created
    FROM target;
