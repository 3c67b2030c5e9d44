-- Generated from libs/db/src/charges/deferred-payments.sql.ts by npm run sql:generate: do not edit.

-- deferred_payments_record_deposits
-- params: $1 chargeId uuid, $2 deposits jsonb, $3 causeEventId uuid
-- columns: id text
  WITH input AS (
    SELECT * FROM jsonb_to_recordset($2::jsonb)
      AS r(processor_deposit_id text, amount bigint, received_on timestamptz, matched boolean,
           received_after_end boolean)
  ),
  charge AS (
    SELECT c.id, c.merchant_id, c.store_id, c.requested_currency, t.payment_type
      FROM charges c JOIN transaction_tokens t ON t.id = c.transaction_token_id
     WHERE c.id = $1::uuid
  ),
  inserted AS (
    INSERT INTO charge_deposits
           (charge_id, processor_deposit_id, amount, currency, matched, received_after_end, received_on)
    SELECT charge.id, i.processor_deposit_id, i.amount, charge.requested_currency, i.matched,
           i.received_after_end, i.received_on
      FROM input i CROSS JOIN charge
        ON CONFLICT (charge_id, processor_deposit_id) DO NOTHING
    RETURNING id, charge_id, amount, currency, matched
  ),
  announced AS (
    SELECT inserted.*, charge.merchant_id, charge.store_id
      FROM inserted JOIN charge ON charge.id = inserted.charge_id
     WHERE charge.payment_type = 'bank_transfer'
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'charge', charge_id,
       'bank_transfer_status_updated', jsonb_build_object('charge_id', charge_id::text, 'store_id', store_id::text, 'deposit_id', id::text, 'amount', amount::text, 'currency', currency::text, 'matched', matched), (SELECT correlation_id FROM outbox_events cause WHERE cause.id = $3::uuid)
  FROM announced
  )
  SELECT id::text AS id FROM inserted;

-- deferred_payments_extend_expiry
-- params: $1 chargeId uuid, $2 readExpirationDate timestamptz, $3 expirationDate timestamptz
-- columns: id text
WITH charge AS (
  UPDATE charges c SET expires_on = $3::timestamptz, updated_on = now()
   WHERE c.id = $1::uuid AND c.status IN ('pending', 'awaiting')
     AND c.expires_on = $2::timestamptz AND c.expires_on > now()
  RETURNING c.id
),
moved AS (
  UPDATE charge_expiries e
     SET expiration_date = $3::timestamptz, extension_count = e.extension_count + 1, updated_on = now()
    FROM charge WHERE e.charge_id = charge.id
  RETURNING e.id
)
SELECT id::text AS id FROM moved;

-- deferred_payments_auto_extend_expiry
-- params: $1 chargeId uuid, $2 readExpirationDate timestamptz, $3 expirationDate timestamptz, $4 causeEventId uuid
-- columns: id text, extension_count int4
  WITH charge AS (
    UPDATE charges c SET expires_on = $3::timestamptz, updated_on = now()
     WHERE c.id = $1::uuid AND c.status = 'awaiting' AND c.pending_operation IS NULL
       AND c.expires_on = $2::timestamptz AND c.expires_on <= now()
    RETURNING c.id, c.merchant_id, c.store_id, c.status
  ),
  moved AS (
    UPDATE charge_expiries e
       SET expiration_date = $3::timestamptz, extension_count = e.extension_count + 1, updated_on = now()
      FROM charge WHERE e.charge_id = charge.id
    RETURNING e.id, e.extension_count
  ),
  event AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'charge', id,
       'charge_updated', jsonb_build_object('charge_id', id::text, 'store_id', store_id::text, 'status', status::text), (SELECT correlation_id FROM outbox_events cause WHERE cause.id = $4::uuid)
  FROM charge
  )
  SELECT id::text AS id, extension_count FROM moved;

-- deferred_payments_find_expiry_with_configuration
-- params: $1 chargeId uuid
-- columns: expiration_date timestamptz, extension_count int4, merchant_configuration jsonb, store_configuration jsonb
SELECT e.expiration_date, e.extension_count,
       m.configuration AS merchant_configuration, s.configuration AS store_configuration
  FROM charge_expiries e
  JOIN charges c ON c.id = e.charge_id
  JOIN stores s ON s.id = c.store_id
  JOIN merchants m ON m.id = c.merchant_id
 WHERE e.charge_id = $1::uuid;

-- deferred_payments_find_ended_charge
-- params: $1 chargeId uuid
-- columns: id text, mode text, status text
SELECT c.id::text AS id, c.mode::text AS mode, c.status::text AS status
  FROM charges c JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.id = $1::uuid AND t.payment_type IN ('bank_transfer', 'konbini')
   AND c.status NOT IN ('pending', 'awaiting');

-- deferred_payments_record_unassigned_deposit
-- params: $1 processorDepositId text, $2 processorReference text, $3 reference text, $4 amount int8, $5 currency bpchar, $6 receivedOn timestamptz
-- columns: id text
INSERT INTO unassigned_deposits
       (processor_deposit_id, processor_reference, reference, amount, currency, received_on)
VALUES ($1::text, $2::text, $3::text, $4::int8,
        $5::bpchar, $6::timestamptz)
    ON CONFLICT (processor_deposit_id) DO NOTHING
RETURNING id::text AS id;
