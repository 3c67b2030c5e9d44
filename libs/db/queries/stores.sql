-- Generated from libs/db/src/stores/stores.sql.ts by npm run sql:generate: do not edit.

-- stores_find_token_settings
-- params: $1 storeId uuid, $2 merchantId uuid
-- columns: pci_dss_compliant bool, store_configuration jsonb, merchant_configuration jsonb
SELECT m.pci_dss_compliant, s.configuration AS store_configuration,
       m.configuration AS merchant_configuration
  FROM stores s JOIN merchants m ON m.id = s.merchant_id
 WHERE s.id = $1::uuid AND m.id = $2::uuid AND s.deleted_on IS NULL;

-- stores_lock_subscriptions
-- params: $1 storeId uuid, $2 merchantId uuid
-- columns: locked int4
WITH locked AS MATERIALIZED (
  SELECT s.id FROM subscriptions s
   WHERE s.store_id = $1::uuid AND s.merchant_id = $2::uuid AND s.status IN ('unverified', 'current', 'suspended', 'unpaid', 'unconfirmed', 'authorized')
   ORDER BY s.id
     FOR NO KEY UPDATE OF s
)
SELECT count(*)::int4 AS locked FROM locked;

-- stores_close_subscriptions_and_tokens
-- params: $1 storeId uuid, $2 merchantId uuid, $3 correlationId text
-- columns: subscriptions_canceled int4, tokens_deactivated int4
  WITH
  locked AS MATERIALIZED (
    SELECT s.id FROM subscriptions s
     WHERE s.store_id = $1::uuid AND s.merchant_id = $2::uuid AND s.status IN ('unverified', 'current', 'suspended', 'unpaid', 'unconfirmed', 'authorized')
     ORDER BY s.id
       FOR NO KEY UPDATE OF s
  ),
  moved AS (
    UPDATE subscriptions s SET status = 'canceled', updated_on = now()
      FROM locked
     WHERE s.id = locked.id AND s.status IN ('unverified', 'current', 'suspended', 'unpaid', 'unconfirmed', 'authorized')
    RETURNING s.id, s.merchant_id, s.store_id, s.status
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
       'subscription_canceled', jsonb_build_object('subscription_id', subscription_id::text, 'store_id', store_id::text, 'status', status::text, 'scheduled_payment_id', scheduled_payment_id::text, 'charge_id', charge_id::text), $3::text
  FROM (SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status,
             p.id AS scheduled_payment_id, NULL::uuid AS charge_id
        FROM moved m LEFT JOIN payment p ON p.subscription_id = m.id) AS changed
  ),
  tokens AS (
    UPDATE transaction_tokens SET active = false, updated_on = now()
     WHERE store_id = $1::uuid AND merchant_id = $2::uuid AND active
    RETURNING id, merchant_id, store_id, active
  ),
  token_events AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, store_id, 'transaction_token', id,
       'token_updated', jsonb_build_object('transaction_token_id', id::text, 'store_id', store_id::text, 'changed', '["active"]'::jsonb, 'active', active), $3::text
  FROM tokens
  )
  SELECT (SELECT count(*) FROM moved)::int4 AS subscriptions_canceled,
         (SELECT count(*) FROM tokens)::int4 AS tokens_deactivated;
