-- Generated from libs/db/src/overview/payment-overview.sql.ts by npm run sql:generate: do not edit.

-- overview_charge_days (replanned)
-- params: $1 merchantId uuid, $2 mode processing_mode, $3 from date, $4 to date, $5 timeZone text
-- columns: day text, currency bpchar, successful int8, amount int8, unsuccessful int8
SELECT to_char(c.created_on AT TIME ZONE $5::text, 'YYYY-MM-DD') AS day,
       coalesce(c.charged_currency, c.requested_currency) AS currency,
       count(*) FILTER (WHERE c.status = 'successful')::int8 AS successful,
       coalesce(sum(coalesce(c.charged_amount, c.requested_amount))
                  FILTER (WHERE c.status = 'successful'), 0)::int8 AS amount,
       count(*) FILTER (WHERE c.status IN ('failed', 'error', 'canceled'))::int8 AS unsuccessful
  FROM charges c
 WHERE c.merchant_id = $1::uuid
   AND c.created_on >= ($3::date::timestamp AT TIME ZONE $5::text)
   AND c.created_on < (($4::date + 1)::timestamp AT TIME ZONE $5::text)
   AND c.mode = $2::processing_mode
   AND c.status IN ('successful', 'failed', 'error', 'canceled')
 GROUP BY 1, 2
 ORDER BY 1, 2;

-- overview_refund_days (replanned)
-- params: $1 merchantId uuid, $2 mode processing_mode, $3 from date, $4 to date, $5 timeZone text
-- columns: day text, currency bpchar, count int8, amount int8
SELECT to_char(r.created_on AT TIME ZONE $5::text, 'YYYY-MM-DD') AS day,
       r.currency,
       count(*)::int8 AS count,
       sum(r.amount)::int8 AS amount
  FROM refunds r
 WHERE r.merchant_id = $1::uuid
   AND r.created_on >= ($3::date::timestamp AT TIME ZONE $5::text)
   AND r.created_on < (($4::date + 1)::timestamp AT TIME ZONE $5::text)
   AND r.mode = $2::processing_mode
   AND r.status = 'successful'
 GROUP BY 1, 2
 ORDER BY 1, 2;

-- overview_store_balances
-- params: $1 merchantId uuid, $2 mode processing_mode
-- columns: store_id text, store_name text, currency bpchar, kind text, balance int8
SELECT a.store_id::text AS store_id, s.name AS store_name, a.currency, a.kind::text AS kind, a.balance
  FROM ledger_accounts a
  JOIN stores s ON s.id = a.store_id
 WHERE a.merchant_id = $1::uuid
   AND a.mode = $2::processing_mode
   AND a.kind IN ('store_pending', 'store_available')
 ORDER BY s.name, a.store_id, a.currency, a.kind;
