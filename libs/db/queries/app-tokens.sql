-- Generated from libs/db/src/accounts/app-tokens.sql.ts by npm run sql:generate: do not edit.

-- app_tokens_find_by_id
-- params: $1 id uuid
-- columns: id text, merchant_id text, store_id text, scope text, mode text, domains text[], secret_hash text, version int4, issued_by text, revoked_on timestamptz, created_on timestamptz, updated_on timestamptz, merchant_verified bool
SELECT t.id::text, t.merchant_id::text, t.store_id::text, t.scope::text, t.mode::text, t.domains,
       t.secret_hash, t.version, t.issued_by::text, t.revoked_on, t.created_on, t.updated_on,
       m.verified AS merchant_verified
  FROM app_tokens t
  JOIN merchants m ON m.id = t.merchant_id
 WHERE t.id = $1::uuid;

-- app_tokens_lock_issuer
-- params: $1 id uuid
-- columns: revoked bool
SELECT revoked_on IS NOT NULL AS revoked FROM app_tokens WHERE id = $1::uuid FOR SHARE;

-- app_tokens_lock_tree
-- params: $1 id uuid, $2 owned bool, $3 merchantId uuid, $4 storeId uuid
-- columns: id text
WITH RECURSIVE root AS (
  SELECT id
    FROM app_tokens
   WHERE id = $1::uuid
     AND revoked_on IS NULL
     AND (NOT $2::bool OR (merchant_id = $3::uuid AND store_id IS NOT DISTINCT FROM $4::uuid))
), tree AS (
  SELECT id FROM root
  UNION
  SELECT child.id FROM app_tokens child JOIN tree ON child.issued_by = tree.id
)
SELECT id::text AS id FROM app_tokens WHERE id IN (SELECT id FROM tree) ORDER BY id FOR UPDATE;

-- app_tokens_revoke_tree
-- params: $1 id uuid, $2 owned bool, $3 merchantId uuid, $4 storeId uuid, $5 at timestamptz
-- columns: id text
WITH RECURSIVE root AS (
  SELECT id
    FROM app_tokens
   WHERE id = $1::uuid
     AND revoked_on IS NULL
     AND (NOT $2::bool OR (merchant_id = $3::uuid AND store_id IS NOT DISTINCT FROM $4::uuid))
), tree AS (
  SELECT id, 0 AS depth FROM root
  UNION
  SELECT child.id, tree.depth + 1
    FROM app_tokens child
    JOIN tree ON child.issued_by = tree.id
), revoked AS (
  UPDATE app_tokens
     SET revoked_on = $5::timestamptz, updated_on = $5::timestamptz
   WHERE id IN (SELECT id FROM tree)
     AND revoked_on IS NULL
  RETURNING id
)
SELECT revoked.id::text
  FROM revoked
  JOIN tree USING (id)
 ORDER BY tree.depth, revoked.id;
