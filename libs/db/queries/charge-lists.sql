-- Generated from libs/db/src/charges/charge-lists.sql.ts by npm run sql:generate: do not edit.

-- charges_list_page_desc (replanned)
-- params: $1 merchantId uuid, $2 storeId uuid, $3 status charge_status, $4 mode processing_mode, $5 transactionTokenId uuid, $6 subscriptionId uuid, $7 scheduledPaymentId uuid, $8 currency text, $9 amountFrom int8, $10 amountTo int8, $11 from timestamptz, $12 to timestamptz, $13 metadata jsonb, $14 metadataNumber jsonb, $15 cardLastFour text, $16 paymentType payment_type, $17 email text, $18 afterCreatedOn timestamptz, $19 afterId uuid, $20 limit int4
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz, store_name text, merchant_name text, token_email text, token_payment_type text
SELECT id::text, merchant_id::text, store_id::text, transaction_token_id::text,
       transaction_token_type::text, subscription_id::text, scheduled_payment_id::text,
       payment_attempt, mode::text, status::text, requested_amount, requested_currency,
       charged_amount, charged_currency, fee_rate_ppm, fee_flat_amount, fee_amount, capture,
       capture_at, capture_status::text, pending_operation::text, refund_reserved_amount,
       refunded_amount, descriptor, only_direct_currency, error_code, error_message, error_detail,
       processor_reference, three_ds, redirect, issuer_token, three_ds_issuer_token, expires_on,
       match_amount::text, ledger_id::text, processor_account_id::text, metadata, card_last_four,
       created_on, updated_on, store_name, merchant_name, token_email, token_payment_type
  FROM (
    SELECT c.*, t.email AS token_email, t.payment_type::text AS token_payment_type
  FROM charges c
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.merchant_id = $1::uuid
   AND ($2::uuid IS NULL OR c.store_id = $2::uuid)
   AND ($3::charge_status IS NULL OR c.status = $3::charge_status)
   AND ($4::processing_mode IS NULL OR c.mode = $4::processing_mode)
   AND ($5::uuid IS NULL OR c.transaction_token_id = $5::uuid)
   AND ($6::uuid IS NULL OR c.subscription_id = $6::uuid)
   AND ($7::uuid IS NULL OR c.scheduled_payment_id = $7::uuid)
   AND ($8::text IS NULL OR c.requested_currency = $8::text)
   AND ($9::int8 IS NULL OR c.requested_amount >= $9::int8)
   AND ($10::int8 IS NULL OR c.requested_amount < $10::int8)
   AND ($11::timestamptz IS NULL OR c.created_on >= $11::timestamptz)
   AND ($12::timestamptz IS NULL OR c.created_on < $12::timestamptz)
   AND ($13::jsonb IS NULL OR c.metadata @> $13::jsonb OR c.metadata @> $14::jsonb)
   AND ($15::text IS NULL OR c.card_last_four = $15::text)
   AND ($16::payment_type IS NULL OR t.payment_type = $16::payment_type)
   AND ($17::text IS NULL OR lower(t.email) = lower($17::text))
       AND ($18::timestamptz IS NULL
            OR (c.created_on, c.id) < ($18::timestamptz, $19::uuid))
     ORDER BY c.created_on desc, c.id desc
     LIMIT $20::int4
  ) page
  JOIN LATERAL (
    SELECT s.name AS store_name, m.name AS merchant_name
      FROM stores s JOIN merchants m ON m.id = s.merchant_id
     WHERE s.id = page.store_id
  ) owner ON true
 ORDER BY created_on desc, id desc;

-- charges_list_page_asc (replanned)
-- params: $1 merchantId uuid, $2 storeId uuid, $3 status charge_status, $4 mode processing_mode, $5 transactionTokenId uuid, $6 subscriptionId uuid, $7 scheduledPaymentId uuid, $8 currency text, $9 amountFrom int8, $10 amountTo int8, $11 from timestamptz, $12 to timestamptz, $13 metadata jsonb, $14 metadataNumber jsonb, $15 cardLastFour text, $16 paymentType payment_type, $17 email text, $18 afterCreatedOn timestamptz, $19 afterId uuid, $20 limit int4
-- columns: id text, merchant_id text, store_id text, transaction_token_id text, transaction_token_type text, subscription_id text, scheduled_payment_id text, payment_attempt int4, mode text, status text, requested_amount int8, requested_currency bpchar, charged_amount int8, charged_currency bpchar, fee_rate_ppm int4, fee_flat_amount int8, fee_amount int8, capture bool, capture_at timestamptz, capture_status text, pending_operation text, refund_reserved_amount int8, refunded_amount int8, descriptor text, only_direct_currency bool, error_code int4, error_message text, error_detail text, processor_reference text, three_ds jsonb, redirect jsonb, issuer_token jsonb, three_ds_issuer_token jsonb, expires_on timestamptz, match_amount text, ledger_id text, processor_account_id text, metadata jsonb, card_last_four text, created_on timestamptz, updated_on timestamptz, store_name text, merchant_name text, token_email text, token_payment_type text
SELECT id::text, merchant_id::text, store_id::text, transaction_token_id::text,
       transaction_token_type::text, subscription_id::text, scheduled_payment_id::text,
       payment_attempt, mode::text, status::text, requested_amount, requested_currency,
       charged_amount, charged_currency, fee_rate_ppm, fee_flat_amount, fee_amount, capture,
       capture_at, capture_status::text, pending_operation::text, refund_reserved_amount,
       refunded_amount, descriptor, only_direct_currency, error_code, error_message, error_detail,
       processor_reference, three_ds, redirect, issuer_token, three_ds_issuer_token, expires_on,
       match_amount::text, ledger_id::text, processor_account_id::text, metadata, card_last_four,
       created_on, updated_on, store_name, merchant_name, token_email, token_payment_type
  FROM (
    SELECT c.*, t.email AS token_email, t.payment_type::text AS token_payment_type
  FROM charges c
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.merchant_id = $1::uuid
   AND ($2::uuid IS NULL OR c.store_id = $2::uuid)
   AND ($3::charge_status IS NULL OR c.status = $3::charge_status)
   AND ($4::processing_mode IS NULL OR c.mode = $4::processing_mode)
   AND ($5::uuid IS NULL OR c.transaction_token_id = $5::uuid)
   AND ($6::uuid IS NULL OR c.subscription_id = $6::uuid)
   AND ($7::uuid IS NULL OR c.scheduled_payment_id = $7::uuid)
   AND ($8::text IS NULL OR c.requested_currency = $8::text)
   AND ($9::int8 IS NULL OR c.requested_amount >= $9::int8)
   AND ($10::int8 IS NULL OR c.requested_amount < $10::int8)
   AND ($11::timestamptz IS NULL OR c.created_on >= $11::timestamptz)
   AND ($12::timestamptz IS NULL OR c.created_on < $12::timestamptz)
   AND ($13::jsonb IS NULL OR c.metadata @> $13::jsonb OR c.metadata @> $14::jsonb)
   AND ($15::text IS NULL OR c.card_last_four = $15::text)
   AND ($16::payment_type IS NULL OR t.payment_type = $16::payment_type)
   AND ($17::text IS NULL OR lower(t.email) = lower($17::text))
       AND ($18::timestamptz IS NULL
            OR (c.created_on, c.id) > ($18::timestamptz, $19::uuid))
     ORDER BY c.created_on asc, c.id asc
     LIMIT $20::int4
  ) page
  JOIN LATERAL (
    SELECT s.name AS store_name, m.name AS merchant_name
      FROM stores s JOIN merchants m ON m.id = s.merchant_id
     WHERE s.id = page.store_id
  ) owner ON true
 ORDER BY created_on asc, id asc;

-- charges_list_cursor (replanned)
-- params: $1 merchantId uuid, $2 storeId uuid, $3 status charge_status, $4 mode processing_mode, $5 transactionTokenId uuid, $6 subscriptionId uuid, $7 scheduledPaymentId uuid, $8 currency text, $9 amountFrom int8, $10 amountTo int8, $11 from timestamptz, $12 to timestamptz, $13 metadata jsonb, $14 metadataNumber jsonb, $15 cardLastFour text, $16 paymentType payment_type, $17 email text, $18 id uuid
-- columns: id text, created_on timestamptz
SELECT c.id::text AS id, c.created_on
  FROM charges c
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.merchant_id = $1::uuid
   AND ($2::uuid IS NULL OR c.store_id = $2::uuid)
   AND ($3::charge_status IS NULL OR c.status = $3::charge_status)
   AND ($4::processing_mode IS NULL OR c.mode = $4::processing_mode)
   AND ($5::uuid IS NULL OR c.transaction_token_id = $5::uuid)
   AND ($6::uuid IS NULL OR c.subscription_id = $6::uuid)
   AND ($7::uuid IS NULL OR c.scheduled_payment_id = $7::uuid)
   AND ($8::text IS NULL OR c.requested_currency = $8::text)
   AND ($9::int8 IS NULL OR c.requested_amount >= $9::int8)
   AND ($10::int8 IS NULL OR c.requested_amount < $10::int8)
   AND ($11::timestamptz IS NULL OR c.created_on >= $11::timestamptz)
   AND ($12::timestamptz IS NULL OR c.created_on < $12::timestamptz)
   AND ($13::jsonb IS NULL OR c.metadata @> $13::jsonb OR c.metadata @> $14::jsonb)
   AND ($15::text IS NULL OR c.card_last_four = $15::text)
   AND ($16::payment_type IS NULL OR t.payment_type = $16::payment_type)
   AND ($17::text IS NULL OR lower(t.email) = lower($17::text))
   AND c.id = $18::uuid;

-- charges_list_count (replanned)
-- params: $1 merchantId uuid, $2 storeId uuid, $3 status charge_status, $4 mode processing_mode, $5 transactionTokenId uuid, $6 subscriptionId uuid, $7 scheduledPaymentId uuid, $8 currency text, $9 amountFrom int8, $10 amountTo int8, $11 from timestamptz, $12 to timestamptz, $13 metadata jsonb, $14 metadataNumber jsonb, $15 cardLastFour text, $16 paymentType payment_type, $17 email text
-- columns: n int8
SELECT count(*) AS n
  FROM charges c
  JOIN transaction_tokens t ON t.id = c.transaction_token_id
 WHERE c.merchant_id = $1::uuid
   AND ($2::uuid IS NULL OR c.store_id = $2::uuid)
   AND ($3::charge_status IS NULL OR c.status = $3::charge_status)
   AND ($4::processing_mode IS NULL OR c.mode = $4::processing_mode)
   AND ($5::uuid IS NULL OR c.transaction_token_id = $5::uuid)
   AND ($6::uuid IS NULL OR c.subscription_id = $6::uuid)
   AND ($7::uuid IS NULL OR c.scheduled_payment_id = $7::uuid)
   AND ($8::text IS NULL OR c.requested_currency = $8::text)
   AND ($9::int8 IS NULL OR c.requested_amount >= $9::int8)
   AND ($10::int8 IS NULL OR c.requested_amount < $10::int8)
   AND ($11::timestamptz IS NULL OR c.created_on >= $11::timestamptz)
   AND ($12::timestamptz IS NULL OR c.created_on < $12::timestamptz)
   AND ($13::jsonb IS NULL OR c.metadata @> $13::jsonb OR c.metadata @> $14::jsonb)
   AND ($15::text IS NULL OR c.card_last_four = $15::text)
   AND ($16::payment_type IS NULL OR t.payment_type = $16::payment_type)
   AND ($17::text IS NULL OR lower(t.email) = lower($17::text));
