-- Generated from libs/db/src/subscriptions/test-clocks.sql.ts by npm run sql:generate: do not edit.

-- test_clocks_find_advancing
-- params: $1 ids uuid[]
-- columns: id text, advancing bool
SELECT c.id::text AS id,
       EXISTS (SELECT 1 FROM scheduled_payments sp
                WHERE sp.test_clock_id = c.id
                  AND (sp.status = 'processing'
                       OR (sp.status = 'pending' AND sp.next_try_at <= c.frozen_time))) AS advancing
  FROM test_clocks c
 WHERE c.id = ANY ($1::uuid[]);

-- test_clocks_advance
-- params: $1 id uuid, $2 merchantId uuid, $3 to timestamptz
-- columns: frozen_time timestamptz, moved bool
WITH target AS (
  SELECT id, frozen_time FROM test_clocks
   WHERE id = $1::uuid AND merchant_id = $2::uuid AND deleted_on IS NULL
),
moved AS (
  UPDATE test_clocks c SET frozen_time = $3::timestamptz, updated_on = now()
    FROM target
   WHERE c.id = target.id AND c.frozen_time < $3::timestamptz AND c.deleted_on IS NULL
  RETURNING c.id
)
SELECT target.frozen_time, EXISTS (SELECT 1 FROM moved) AS moved FROM target;

-- test_clocks_lock_for_deletion
-- params: $1 id uuid, $2 merchantId uuid
-- columns: subscriptions int4
WITH clock AS MATERIALIZED (
  SELECT id FROM test_clocks
   WHERE id = $1::uuid AND merchant_id = $2::uuid AND deleted_on IS NULL
     FOR NO KEY UPDATE
), locked AS MATERIALIZED (
  SELECT s.id FROM subscriptions s, clock
   WHERE s.test_clock_id = clock.id AND s.status IN ('unverified', 'current', 'suspended', 'unpaid', 'unconfirmed', 'authorized')
   ORDER BY s.id
     FOR NO KEY UPDATE OF s
)
SELECT (SELECT count(*) FROM locked)::int4 AS subscriptions FROM clock;

-- test_clocks_delete
-- params: $1 id uuid, $2 merchantId uuid, $3 correlationId text
-- columns: canceled int4
  WITH clock AS (
    UPDATE test_clocks SET deleted_on = now(), updated_on = now()
     WHERE id = $1::uuid AND merchant_id = $2::uuid AND deleted_on IS NULL
    RETURNING id
  ),
  locked AS MATERIALIZED (
    SELECT s.id FROM subscriptions s, clock
     WHERE s.test_clock_id = clock.id AND s.status IN ('unverified', 'current', 'suspended', 'unpaid', 'unconfirmed', 'authorized')
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
  )
  SELECT (SELECT count(*) FROM moved)::int4 AS canceled FROM clock;

-- test_clocks_create
-- params: $1 id uuid, $2 merchantId uuid, $3 name text, $4 frozenTime timestamptz
-- columns: created_on timestamptz
INSERT INTO test_clocks (id, merchant_id, name, frozen_time, created_on, updated_on)
VALUES ($1::uuid, $2::uuid, $3::text, $4::timestamptz, now(), now())
RETURNING created_on;
