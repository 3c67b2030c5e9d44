-- Generated from libs/db/src/ledger/ledger.sql.ts by npm run sql:generate: do not edit.

-- ledger_lock_cursor
-- params: $1 name text
-- columns: txid text, sequence int8
SELECT txid, sequence FROM ledger_cursors WHERE name = $1::text FOR UPDATE SKIP LOCKED;

-- ledger_advance_cursor
-- params: $1 name text, $2 txid text, $3 sequence int8
-- columns: none
UPDATE ledger_cursors SET txid = $2::text, sequence = $3::int8, updated_on = now()
 WHERE name = $1::text;

-- ledger_read_events
-- params: $1 txid text, $2 sequence int8, $3 limit int4
-- columns: id text, event_type text, aggregate_id text, txid text, sequence int8, created_on timestamptz
SELECT id::text AS id, event_type, aggregate_id::text AS aggregate_id, txid::text AS txid,
       sequence, created_on
  FROM outbox_events
 WHERE event_type IN ('charge_finished', 'refund_finished')
   AND (txid, sequence) > ($1::text::xid8, $2::int8)
   AND txid < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY txid, sequence
 LIMIT $3::int4;

-- ledger_find_sale_facts
-- params: $1 chargeIds uuid[]
-- columns: id text, status text, mode text, merchant_id text, store_id text, charged_amount int8, charged_currency bpchar, fee_amount int8, fee_rate_ppm int4, fee_flat_amount int8, merchant_configuration jsonb, store_configuration jsonb
SELECT c.id::text AS id, c.status::text AS status, c.mode::text AS mode,
       c.merchant_id::text AS merchant_id, c.store_id::text AS store_id, c.charged_amount,
       c.charged_currency, c.fee_amount, c.fee_rate_ppm, c.fee_flat_amount,
       m.configuration AS merchant_configuration, s.configuration AS store_configuration
  FROM charges c JOIN stores s ON s.id = c.store_id JOIN merchants m ON m.id = c.merchant_id
 WHERE c.id = ANY($1::uuid[]);

-- ledger_find_refund_facts
-- params: $1 refundIds uuid[]
-- columns: id text, status text, mode text, merchant_id text, store_id text, amount int8, currency bpchar
SELECT id::text AS id, status::text AS status, mode::text AS mode, merchant_id::text AS merchant_id,
       store_id::text AS store_id, amount, currency
  FROM refunds WHERE id = ANY($1::uuid[]);

-- ledger_ensure_accounts
-- params: $1 keys json
-- columns: none
  INSERT INTO ledger_accounts (mode, kind, currency, merchant_id, store_id)
  SELECT mode, kind, currency, merchant_id, store_id FROM
json_to_recordset($1::json) AS k(mode processing_mode, kind ledger_account_kind, currency char(3),
                                merchant_id uuid, store_id uuid)
   ORDER BY mode, kind, currency, store_id
  ON CONFLICT DO NOTHING;

-- ledger_find_accounts
-- params: $1 keys json
-- columns: id text, mode text, kind text, currency bpchar, store_id text
  SELECT a.id::text AS id, a.mode::text AS mode, a.kind::text AS kind, a.currency,
         a.store_id::text AS store_id
    FROM
json_to_recordset($1::json) AS k(mode processing_mode, kind ledger_account_kind, currency char(3),
                                merchant_id uuid, store_id uuid)
    JOIN ledger_accounts a ON a.mode = k.mode AND a.kind = k.kind AND a.currency = k.currency
                          AND a.store_id IS NOT DISTINCT FROM k.store_id;

-- ledger_lock_accounts
-- params: $1 accountIds uuid[]
-- columns: id text
SELECT id::text AS id FROM ledger_accounts WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE;

-- ledger_post
-- params: $1 postings json, $2 lines json
-- columns: ref int4, id text
WITH input AS (
  SELECT * FROM json_to_recordset($1::json) AS i(
    ref int, kind ledger_posting_kind, source_type text, source_id uuid, mode processing_mode,
    merchant_id uuid, store_id uuid, currency char(3), amount bigint, fee_amount bigint,
    fee_rate_ppm int, fee_flat_amount bigint, available_on timestamptz, note text,
    created_by text, cause_event_id uuid)
),
written AS (
  INSERT INTO ledger_transactions (kind, source_type, source_id, mode, merchant_id, store_id,
                                   currency, amount, fee_amount, fee_rate_ppm, fee_flat_amount,
                                   available_on, note, created_by, cause_event_id)
  SELECT kind, source_type, source_id, mode, merchant_id, store_id, currency, amount, fee_amount,
         fee_rate_ppm, fee_flat_amount, available_on, note, created_by, cause_event_id
    -- in the keys' order, whatever the caller's: two posters writing some of the same facts
    -- wait on each other's keys in one order, never in a circle
    FROM input ORDER BY kind, source_type, source_id
  ON CONFLICT (kind, source_type, source_id) DO NOTHING
  RETURNING id, kind, source_type, source_id, currency
),
posted AS (
  SELECT i.ref, w.id, w.currency FROM written w
    JOIN input i ON i.kind = w.kind AND i.source_type = w.source_type AND i.source_id = w.source_id
),
entries AS (
  INSERT INTO ledger_entries (transaction_id, account_id, currency, amount, available_on)
  SELECT posted.id, l.account_id, posted.currency, l.amount, l.available_on
    FROM json_to_recordset($2::json) AS l(ref int, account_id uuid, amount bigint, available_on timestamptz)
    JOIN posted ON posted.ref = l.ref
   ORDER BY l.account_id
  RETURNING 1
),
-- ledger_id on a refund (decision 0052), with the posting; a charge's is read by the key (0080)
refunds_posted AS (
  SELECT r.id, w.id AS ledger_id FROM written w JOIN refunds r ON r.id = w.source_id
   WHERE w.kind = 'refund' AND w.source_type = 'refund'
   ORDER BY r.id FOR UPDATE OF r
),
refunds_ledger_ids AS (
  UPDATE refunds t SET ledger_id = p.ledger_id FROM refunds_posted p WHERE t.id = p.id RETURNING 1
)
SELECT i.ref, posted.id::text AS id FROM input i LEFT JOIN posted ON posted.ref = i.ref
 ORDER BY i.ref;

-- ledger_find_posted
-- params: $1 kinds text[], $2 sourceTypes text[], $3 sourceIds uuid[]
-- columns: id text, kind text, source_type text, source_id text, currency bpchar, amount int8, fee_amount int8
SELECT t.id::text AS id, t.kind::text AS kind, t.source_type, t.source_id::text AS source_id,
       t.currency, t.amount, t.fee_amount
  FROM unnest($1::text[]::ledger_posting_kind[], $2::text[], $3::uuid[]) AS k(kind, source_type, source_id)
  JOIN ledger_transactions t
    ON t.kind = k.kind AND t.source_type = k.source_type AND t.source_id = k.source_id;

-- ledger_lock_accounts_with_due_maturities
-- params: $1 limit int4
-- columns: id text
SELECT id::text AS id FROM ledger_accounts
 WHERE id IN (SELECT account_id FROM ledger_maturities
               WHERE amount <> 0 AND available_on <= now()
               ORDER BY available_on LIMIT $1::int4)
 ORDER BY id
   FOR UPDATE;

-- ledger_find_due_maturities
-- params: $1 accountIds uuid[]
-- columns: account_id text, available_on timestamptz, amount int8, mode text, currency bpchar, merchant_id text, store_id text
SELECT m.account_id::text AS account_id, m.available_on, m.amount, a.mode::text AS mode,
       a.currency, a.merchant_id::text AS merchant_id, a.store_id::text AS store_id
  FROM ledger_maturities m JOIN ledger_accounts a ON a.id = m.account_id
 WHERE m.account_id = ANY($1::uuid[]) AND m.amount <> 0 AND m.available_on <= now()
 ORDER BY m.account_id, m.available_on;

-- ledger_find_store_balances
-- params: $1 storeId uuid, $2 mode processing_mode
-- columns: kind text, currency bpchar, balance int8, entry_count int8
SELECT kind::text AS kind, currency, balance, entry_count FROM ledger_accounts
 WHERE store_id = $1::uuid AND mode = $2::processing_mode
 ORDER BY currency, kind;

-- ledger_verify
-- params: none
-- columns: unbalanced_transactions int8, empty_transactions int8, unbalanced_books int8, wrong_balances int8, wrong_maturities int8, entries int8, transactions int8
WITH per_transaction AS (
  SELECT transaction_id, currency, sum(amount) AS total FROM ledger_entries GROUP BY 1, 2
),
per_account AS (
  SELECT account_id, sum(amount) AS total, count(*) AS n FROM ledger_entries GROUP BY 1
),
per_maturity AS (
  SELECT account_id, available_on, sum(amount) AS total FROM ledger_entries
   WHERE available_on IS NOT NULL GROUP BY 1, 2
)
SELECT
  (SELECT count(*) FROM per_transaction WHERE total <> 0) AS unbalanced_transactions,
  (SELECT count(*) FROM ledger_transactions t
    WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transaction_id = t.id)) AS empty_transactions,
  (SELECT count(*) FROM (SELECT mode, currency FROM ledger_accounts GROUP BY 1, 2
                          HAVING sum(balance) <> 0) b) AS unbalanced_books,
  (SELECT count(*) FROM ledger_accounts a LEFT JOIN per_account e ON e.account_id = a.id
    WHERE a.balance <> coalesce(e.total, 0) OR a.entry_count <> coalesce(e.n, 0)) AS wrong_balances,
  (SELECT count(*) FROM per_maturity e
     FULL JOIN ledger_maturities m ON m.account_id = e.account_id AND m.available_on = e.available_on
    WHERE coalesce(m.amount, 0) <> coalesce(e.total, 0)) AS wrong_maturities,
  (SELECT count(*) FROM ledger_entries) AS entries,
  (SELECT count(*) FROM ledger_transactions) AS transactions;
