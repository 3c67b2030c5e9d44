-- Generated from libs/db/src/transaction-history/transaction-history.sql.ts by npm run sql:generate: do not edit.

-- transaction_history_merchant_desc (replanned)
-- params: $1 merchantId uuid, $2 includeCharges bool, $3 includeRefunds bool, $4 status text, $5 mode processing_mode, $6 lowerOn text, $7 lowerId uuid, $8 upperOn text, $9 upperId uuid, $10 take int4
-- columns: type text, resource_id uuid, charge_id uuid, store_id uuid, status text, amount int8, currency bpchar, metadata jsonb, mode processing_mode, created_on timestamptz, merchant_name text, payment_type payment_type, email text, cardholder_name text
WITH ledger AS (
  (SELECT 'charge'::text AS type, c.id AS resource_id, c.id AS charge_id, c.store_id,
          c.status::text AS status,
          COALESCE(c.charged_amount, c.requested_amount) AS amount,
          COALESCE(c.charged_currency, c.requested_currency) AS currency,
          c.metadata, c.mode, c.created_on, c.transaction_token_id
     FROM charges c
    WHERE $2::bool AND c.merchant_id = $1::uuid
     AND ($4::text IS NULL OR c.status::text = $4::text)
     AND ($5::processing_mode IS NULL OR c.mode = $5::processing_mode)
     AND (c.created_on, c.id) > ($6::text::timestamptz, $7::uuid)
     AND (c.created_on, c.id) < ($8::text::timestamptz, $9::uuid)
   ORDER BY c.created_on DESC, c.id DESC
   LIMIT $10::int4)
  UNION ALL
  (SELECT 'refund'::text, r.id, r.charge_id, r.store_id, r.status::text, r.amount, r.currency,
          r.metadata, r.mode, r.created_on, NULL::uuid
     FROM refunds r
    WHERE $3::bool AND r.merchant_id = $1::uuid
     AND ($4::text IS NULL OR r.status::text = $4::text)
     AND ($5::processing_mode IS NULL OR r.mode = $5::processing_mode)
     AND (r.created_on, r.id) > ($6::text::timestamptz, $7::uuid)
     AND (r.created_on, r.id) < ($8::text::timestamptz, $9::uuid)
   ORDER BY r.created_on DESC, r.id DESC
   LIMIT $10::int4)
  ORDER BY created_on DESC, resource_id DESC, type DESC
  LIMIT $10::int4
)
SELECT l.type, l.resource_id, l.charge_id, l.store_id, l.status, l.amount, l.currency, l.metadata,
       l.mode, l.created_on, m.name AS merchant_name, t.payment_type, t.email,
       t.data -> 'card' ->> 'cardholder' AS cardholder_name
  FROM ledger l
  JOIN merchants m ON m.id = $1::uuid
  LEFT JOIN charges rc ON l.type = 'refund' AND rc.id = l.charge_id
  LEFT JOIN transaction_tokens t ON t.id = COALESCE(l.transaction_token_id, rc.transaction_token_id)
 ORDER BY l.created_on DESC, l.resource_id DESC, l.type DESC;

-- transaction_history_merchant_asc (replanned)
-- params: $1 merchantId uuid, $2 includeCharges bool, $3 includeRefunds bool, $4 status text, $5 mode processing_mode, $6 lowerOn text, $7 lowerId uuid, $8 upperOn text, $9 upperId uuid, $10 take int4
-- columns: type text, resource_id uuid, charge_id uuid, store_id uuid, status text, amount int8, currency bpchar, metadata jsonb, mode processing_mode, created_on timestamptz, merchant_name text, payment_type payment_type, email text, cardholder_name text
WITH ledger AS (
  (SELECT 'charge'::text AS type, c.id AS resource_id, c.id AS charge_id, c.store_id,
          c.status::text AS status,
          COALESCE(c.charged_amount, c.requested_amount) AS amount,
          COALESCE(c.charged_currency, c.requested_currency) AS currency,
          c.metadata, c.mode, c.created_on, c.transaction_token_id
     FROM charges c
    WHERE $2::bool AND c.merchant_id = $1::uuid
     AND ($4::text IS NULL OR c.status::text = $4::text)
     AND ($5::processing_mode IS NULL OR c.mode = $5::processing_mode)
     AND (c.created_on, c.id) > ($6::text::timestamptz, $7::uuid)
     AND (c.created_on, c.id) < ($8::text::timestamptz, $9::uuid)
   ORDER BY c.created_on ASC, c.id ASC
   LIMIT $10::int4)
  UNION ALL
  (SELECT 'refund'::text, r.id, r.charge_id, r.store_id, r.status::text, r.amount, r.currency,
          r.metadata, r.mode, r.created_on, NULL::uuid
     FROM refunds r
    WHERE $3::bool AND r.merchant_id = $1::uuid
     AND ($4::text IS NULL OR r.status::text = $4::text)
     AND ($5::processing_mode IS NULL OR r.mode = $5::processing_mode)
     AND (r.created_on, r.id) > ($6::text::timestamptz, $7::uuid)
     AND (r.created_on, r.id) < ($8::text::timestamptz, $9::uuid)
   ORDER BY r.created_on ASC, r.id ASC
   LIMIT $10::int4)
  ORDER BY created_on ASC, resource_id ASC, type ASC
  LIMIT $10::int4
)
SELECT l.type, l.resource_id, l.charge_id, l.store_id, l.status, l.amount, l.currency, l.metadata,
       l.mode, l.created_on, m.name AS merchant_name, t.payment_type, t.email,
       t.data -> 'card' ->> 'cardholder' AS cardholder_name
  FROM ledger l
  JOIN merchants m ON m.id = $1::uuid
  LEFT JOIN charges rc ON l.type = 'refund' AND rc.id = l.charge_id
  LEFT JOIN transaction_tokens t ON t.id = COALESCE(l.transaction_token_id, rc.transaction_token_id)
 ORDER BY l.created_on ASC, l.resource_id ASC, l.type ASC;

-- transaction_history_store_desc (replanned)
-- params: $1 merchantId uuid, $2 includeCharges bool, $3 includeRefunds bool, $4 status text, $5 mode processing_mode, $6 lowerOn text, $7 lowerId uuid, $8 upperOn text, $9 upperId uuid, $10 take int4, $11 storeId uuid
-- columns: type text, resource_id uuid, charge_id uuid, store_id uuid, status text, amount int8, currency bpchar, metadata jsonb, mode processing_mode, created_on timestamptz, merchant_name text, payment_type payment_type, email text, cardholder_name text
WITH ledger AS (
  (SELECT 'charge'::text AS type, c.id AS resource_id, c.id AS charge_id, c.store_id,
          c.status::text AS status,
          COALESCE(c.charged_amount, c.requested_amount) AS amount,
          COALESCE(c.charged_currency, c.requested_currency) AS currency,
          c.metadata, c.mode, c.created_on, c.transaction_token_id
     FROM charges c
    WHERE $2::bool AND c.store_id = $11::uuid AND c.merchant_id = $1::uuid
     AND ($4::text IS NULL OR c.status::text = $4::text)
     AND ($5::processing_mode IS NULL OR c.mode = $5::processing_mode)
     AND (c.created_on, c.id) > ($6::text::timestamptz, $7::uuid)
     AND (c.created_on, c.id) < ($8::text::timestamptz, $9::uuid)
   ORDER BY c.created_on DESC, c.id DESC
   LIMIT $10::int4)
  UNION ALL
  (SELECT 'refund'::text, r.id, r.charge_id, r.store_id, r.status::text, r.amount, r.currency,
          r.metadata, r.mode, r.created_on, NULL::uuid
     FROM refunds r
    WHERE $3::bool AND r.store_id = $11::uuid AND r.merchant_id = $1::uuid
     AND ($4::text IS NULL OR r.status::text = $4::text)
     AND ($5::processing_mode IS NULL OR r.mode = $5::processing_mode)
     AND (r.created_on, r.id) > ($6::text::timestamptz, $7::uuid)
     AND (r.created_on, r.id) < ($8::text::timestamptz, $9::uuid)
   ORDER BY r.created_on DESC, r.id DESC
   LIMIT $10::int4)
  ORDER BY created_on DESC, resource_id DESC, type DESC
  LIMIT $10::int4
)
SELECT l.type, l.resource_id, l.charge_id, l.store_id, l.status, l.amount, l.currency, l.metadata,
       l.mode, l.created_on, m.name AS merchant_name, t.payment_type, t.email,
       t.data -> 'card' ->> 'cardholder' AS cardholder_name
  FROM ledger l
  JOIN merchants m ON m.id = $1::uuid
  LEFT JOIN charges rc ON l.type = 'refund' AND rc.id = l.charge_id
  LEFT JOIN transaction_tokens t ON t.id = COALESCE(l.transaction_token_id, rc.transaction_token_id)
 ORDER BY l.created_on DESC, l.resource_id DESC, l.type DESC;

-- transaction_history_store_asc (replanned)
-- params: $1 merchantId uuid, $2 includeCharges bool, $3 includeRefunds bool, $4 status text, $5 mode processing_mode, $6 lowerOn text, $7 lowerId uuid, $8 upperOn text, $9 upperId uuid, $10 take int4, $11 storeId uuid
-- columns: type text, resource_id uuid, charge_id uuid, store_id uuid, status text, amount int8, currency bpchar, metadata jsonb, mode processing_mode, created_on timestamptz, merchant_name text, payment_type payment_type, email text, cardholder_name text
WITH ledger AS (
  (SELECT 'charge'::text AS type, c.id AS resource_id, c.id AS charge_id, c.store_id,
          c.status::text AS status,
          COALESCE(c.charged_amount, c.requested_amount) AS amount,
          COALESCE(c.charged_currency, c.requested_currency) AS currency,
          c.metadata, c.mode, c.created_on, c.transaction_token_id
     FROM charges c
    WHERE $2::bool AND c.store_id = $11::uuid AND c.merchant_id = $1::uuid
     AND ($4::text IS NULL OR c.status::text = $4::text)
     AND ($5::processing_mode IS NULL OR c.mode = $5::processing_mode)
     AND (c.created_on, c.id) > ($6::text::timestamptz, $7::uuid)
     AND (c.created_on, c.id) < ($8::text::timestamptz, $9::uuid)
   ORDER BY c.created_on ASC, c.id ASC
   LIMIT $10::int4)
  UNION ALL
  (SELECT 'refund'::text, r.id, r.charge_id, r.store_id, r.status::text, r.amount, r.currency,
          r.metadata, r.mode, r.created_on, NULL::uuid
     FROM refunds r
    WHERE $3::bool AND r.store_id = $11::uuid AND r.merchant_id = $1::uuid
     AND ($4::text IS NULL OR r.status::text = $4::text)
     AND ($5::processing_mode IS NULL OR r.mode = $5::processing_mode)
     AND (r.created_on, r.id) > ($6::text::timestamptz, $7::uuid)
     AND (r.created_on, r.id) < ($8::text::timestamptz, $9::uuid)
   ORDER BY r.created_on ASC, r.id ASC
   LIMIT $10::int4)
  ORDER BY created_on ASC, resource_id ASC, type ASC
  LIMIT $10::int4
)
SELECT l.type, l.resource_id, l.charge_id, l.store_id, l.status, l.amount, l.currency, l.metadata,
       l.mode, l.created_on, m.name AS merchant_name, t.payment_type, t.email,
       t.data -> 'card' ->> 'cardholder' AS cardholder_name
  FROM ledger l
  JOIN merchants m ON m.id = $1::uuid
  LEFT JOIN charges rc ON l.type = 'refund' AND rc.id = l.charge_id
  LEFT JOIN transaction_tokens t ON t.id = COALESCE(l.transaction_token_id, rc.transaction_token_id)
 ORDER BY l.created_on ASC, l.resource_id ASC, l.type ASC;

-- transaction_history_find_cursor
-- params: $1 merchantId uuid, $2 storeId uuid, $3 id uuid
-- columns: type text, created_on timestamptz
SELECT 'charge'::text AS type, created_on FROM charges
 WHERE id = $3::uuid AND merchant_id = $1::uuid AND ($2::uuid IS NULL OR store_id = $2::uuid)
UNION ALL
SELECT 'refund'::text, created_on FROM refunds
 WHERE id = $3::uuid AND merchant_id = $1::uuid AND ($2::uuid IS NULL OR store_id = $2::uuid);
