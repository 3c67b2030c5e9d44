-- Generated from libs/db/src/subscriptions/subscription-batches.sql.ts by npm run sql:generate: do not edit.

-- subscription_batches_lock_owners
-- params: $1 storeId uuid, $2 merchantId uuid, $3 clockIds uuid[]
-- columns: store_alive bool, clocks_alive bool
WITH store AS (
  SELECT id FROM stores
   WHERE id = $1::uuid AND merchant_id = $2::uuid AND deleted_on IS NULL
     FOR SHARE
), clocks AS (
  SELECT id FROM test_clocks
   WHERE id = ANY($3::uuid[]) AND merchant_id = $2::uuid AND deleted_on IS NULL
   ORDER BY id
     FOR SHARE
)
SELECT EXISTS (SELECT 1 FROM store) AS store_alive,
       (SELECT count(*) FROM clocks) = cardinality($3::uuid[]) AS clocks_alive;

-- subscription_batches_insert
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid, $4 subscriptionIds uuid[], $5 chargeId uuid
-- columns: id uuid
INSERT INTO subscription_batches (id, merchant_id, store_id, subscription_ids, charge_id)
VALUES ($1::uuid, $2::uuid, $3::uuid, $4::uuid[], $5::uuid)
RETURNING id;

-- subscription_batches_find
-- params: $1 id uuid, $2 merchantId uuid, $3 storeId uuid
-- columns: id uuid, subscription_ids uuid[], charge_id uuid, unverified int4, unconfirmed int4, charge_status text
SELECT b.id, b.subscription_ids, b.charge_id,
       (SELECT count(*)::int FROM subscriptions s
         WHERE s.id = ANY(b.subscription_ids) AND s.status = 'unverified') AS unverified,
       (SELECT count(*)::int FROM subscriptions s
         WHERE s.id = ANY(b.subscription_ids) AND s.status = 'unconfirmed') AS unconfirmed,
       (SELECT c.status::text FROM charges c WHERE c.id = b.charge_id) AS charge_status
  FROM subscription_batches b
 WHERE b.id = $1::uuid AND b.merchant_id = $2::uuid
   AND ($3::uuid::uuid IS NULL OR b.store_id = $3::uuid);
