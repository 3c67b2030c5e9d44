-- Generated from libs/db/src/payouts/payouts.sql.ts by npm run sql:generate: do not edit.

-- payouts_find_books
-- params: $1 merchantId uuid, $2 mode text, $3 currency text, $4 limit int4
-- columns: merchant_id text, mode text, currency bpchar, configuration jsonb, last_payout_day text
SELECT b.merchant_id::text AS merchant_id, b.mode::text AS mode, b.currency, m.configuration,
       (SELECT max(r.payout_day)::text FROM payout_runs r
         WHERE r.merchant_id = b.merchant_id AND r.mode = b.mode AND r.currency = b.currency)
         AS last_payout_day
  FROM (SELECT DISTINCT merchant_id, mode, currency FROM ledger_accounts
         WHERE kind = 'store_available' AND mode IN ('test', 'live')
           AND (merchant_id, mode::text, currency) > ($1::uuid, $2::text, $3::text)) b
  JOIN merchants m ON m.id = b.merchant_id
 ORDER BY b.merchant_id, b.mode::text, b.currency
 LIMIT $4::int4;

-- payouts_find_run
-- params: $1 merchantId uuid, $2 mode processing_mode, $3 currency bpchar, $4 payoutDay date
-- columns: outcome text, transfer_id text
SELECT outcome::text AS outcome, transfer_id::text AS transfer_id FROM payout_runs
 WHERE merchant_id = $1::uuid AND mode = $2::processing_mode AND currency = $3::bpchar
   AND payout_day = $4::date;

-- payouts_lock_accounts
-- params: $1 merchantId uuid, $2 mode processing_mode, $3 currency bpchar
-- columns: id text
SELECT id::text AS id FROM ledger_accounts
 WHERE mode = $2::processing_mode AND currency = $3::bpchar
   AND ((kind = 'store_available' AND merchant_id = $1::uuid)
        OR (kind = 'payouts_in_transit' AND store_id IS NULL))
 ORDER BY id
   FOR UPDATE;

-- payouts_find_uncovered_ledgers
-- params: $1 merchantId uuid, $2 mode processing_mode, $3 currency bpchar, $4 cutoff timestamptz
-- columns: id text, store_id text, net int8
SELECT t.id::text AS id, t.store_id::text AS store_id, t.amount - t.fee_amount AS net
  FROM ledger_transactions t
 WHERE t.merchant_id = $1::uuid AND t.mode = $2::processing_mode AND t.currency = $3::bpchar
   AND t.kind::text IN ('sale', 'refund', 'adjustment')
   AND CASE WHEN t.kind = 'sale' THEN t.available_on <= $4::timestamptz ELSE t.created_on < $4::timestamptz END
   AND NOT EXISTS (SELECT 1 FROM transfer_ledgers tl JOIN transfers tr ON tr.id = tl.transfer_id
                    WHERE tl.ledger_transaction_id = t.id AND tr.status NOT IN ('failed', 'canceled'))
 ORDER BY t.id;

-- payouts_find_bank_account
-- params: $1 merchantId uuid, $2 mode processing_mode, $3 currency bpchar
-- columns: id text
SELECT id::text AS id FROM bank_accounts
 WHERE merchant_id = $1::uuid AND mode = $2::processing_mode AND currency = $3::bpchar
   AND "primary" AND deleted_on IS NULL AND status = 'verified';

-- payouts_insert_run
-- params: $1 merchantId uuid, $2 mode processing_mode, $3 currency bpchar, $4 payoutDay date, $5 outcome payout_run_outcome, $6 amount int8, $7 transferId uuid
-- columns: none
INSERT INTO payout_runs (merchant_id, mode, currency, payout_day, outcome, amount, transfer_id)
VALUES ($1::uuid, $2::processing_mode, $3::bpchar, $4::date, $5::payout_run_outcome, $6::int8, $7::uuid);

-- payouts_insert_transfer
-- params: $1 id uuid, $2 merchantId uuid, $3 mode processing_mode, $4 currency bpchar, $5 amount int8, $6 bankAccountId uuid, $7 status transfer_status, $8 payoutDay date, $9 periodFrom timestamptz, $10 periodTo timestamptz, $11 startedBy text, $12 ledgerIds uuid[]
-- columns: id text
  WITH transfer AS (
    INSERT INTO transfers (id, merchant_id, mode, currency, amount, bank_account_id, status, payout_day,
                           period_from, period_to, started_by)
    VALUES ($1::uuid, $2::uuid, $3::processing_mode, $4::bpchar, $5::int8, $6::uuid, $7::transfer_status,
            $8::date, $9::timestamptz, $10::timestamptz, $11::text)
    RETURNING id, merchant_id, status
  ),
  covered AS (
    INSERT INTO transfer_ledgers (transfer_id, ledger_transaction_id)
    SELECT transfer.id, l.id FROM transfer, unnest($12::uuid[]) AS l(id) ORDER BY l.id
    RETURNING 1
  ),
  announced AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, NULL::uuid, 'transfer', id,
       'transfer_created', jsonb_build_object('transfer_id', id::text, 'status', status::text), NULL::text
  FROM transfer
    RETURNING 1
  )
  SELECT id::text AS id FROM transfer;

-- payouts_change_transfer_status
-- params: $1 id uuid, $2 from text[], $3 to transfer_status, $4 reason text, $5 errorCode text, $6 errorText text, $7 createdBy text
-- columns: old_status text
  WITH old AS (
    SELECT id, merchant_id, status FROM transfers
     WHERE id = $1::uuid AND status::text = ANY($2::text[]) FOR UPDATE
  ),
  changed AS (
    UPDATE transfers t SET status = $3::transfer_status, updated_on = now(),
           error_code = coalesce($5::text, t.error_code), error_text = coalesce($6::text, t.error_text)
      FROM old WHERE t.id = old.id
    RETURNING t.id
  ),
  appended AS (
    INSERT INTO transfer_status_changes (transfer_id, merchant_id, old_status, new_status, reason, created_by)
    SELECT old.id, old.merchant_id, old.status, $3::transfer_status, $4::text, $7::text FROM old
    RETURNING 1
  ),
  announced AS (
    INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT merchant_id, NULL::uuid, 'transfer', id,
       CASE WHEN $3::transfer_status::text IN ('paid', 'failed', 'canceled') THEN 'transfer_finalized' ELSE 'transfer_updated' END, CASE WHEN $3::transfer_status::text IN ('paid', 'failed', 'canceled') THEN jsonb_build_object('transfer_id', id::text, 'status', $3::transfer_status::text) ELSE jsonb_build_object('transfer_id', id::text, 'status', $3::transfer_status::text) END, NULL::text
  FROM old
    RETURNING 1
  )
  SELECT status::text AS old_status FROM old;

-- payouts_find_payout_stores
-- params: $1 transferId uuid
-- columns: store_id text, amount int8
SELECT a.store_id::text AS store_id, e.amount
  FROM ledger_transactions t
  JOIN ledger_entries e ON e.transaction_id = t.id
  JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'store_available'
 WHERE t.kind = 'payout' AND t.source_type = 'transfer' AND t.source_id = $1::uuid
 ORDER BY a.store_id;

-- payouts_find_transfer_for_bank
-- params: $1 id uuid
-- columns: id text, merchant_id text, mode text, currency bpchar, amount int8, status text, bank_account_id text, holder_name text, bank_name text, last_four text
SELECT t.id::text AS id, t.merchant_id::text AS merchant_id, t.mode::text AS mode, t.currency, t.amount,
       t.status::text AS status, t.bank_account_id::text AS bank_account_id, b.holder_name, b.bank_name,
       b.last_four
  FROM transfers t JOIN bank_accounts b ON b.id = t.bank_account_id
 WHERE t.id = $1::uuid;

-- payouts_lock_approved_transfers
-- params: $1 limit int4, $2 modes text[]
-- columns: id text
SELECT id::text AS id FROM transfers WHERE status = 'approved' AND mode::text = ANY($2::text[])
 ORDER BY created_on, id LIMIT $1::int4
   FOR UPDATE SKIP LOCKED;
