-- The entries' statement trigger checks that every transaction it touched sums to zero per
-- currency by reading each transaction's entries through ledger_entries_transaction_id_idx, one
-- transaction at a time. Its earlier form (a semi-join of ledger_entries with the statement's
-- transition table) could be planned as a merge join walking the whole index: bench:ledger's posting
-- rate fell from 4,300 to 2,200 postings/s over 600,000 entries. Same check, same errors.
CREATE OR REPLACE FUNCTION ledger_entries_posted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bad record;
BEGIN
  -- entries only by the database transaction that created their ledger transaction
  SELECT t.id INTO bad FROM (SELECT DISTINCT transaction_id FROM inserted) i
    JOIN ledger_transactions t ON t.id = i.transaction_id
   WHERE t.txid <> pg_current_xact_id() LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger transaction % was posted by another database transaction: its entries are closed', bad.id
      USING ERRCODE = 'restrict_violation';
  END IF;
  -- an entry moves money, in its account's currency and mode and its transaction's; a store_pending
  -- entry says when its money becomes available, no other does; a fee is never negative (these
  -- checks live here rather than as CHECK constraints, which Prisma 6.19's schema engine cannot
  -- introspect: migrate diff crashes)
  SELECT i.id INTO bad FROM inserted i
    JOIN ledger_accounts a ON a.id = i.account_id
    JOIN ledger_transactions t ON t.id = i.transaction_id
   WHERE i.amount = 0 OR t.fee_amount < 0
      OR a.currency <> i.currency OR a.mode <> t.mode OR t.currency <> i.currency
      OR (a.kind = 'store_pending') <> (i.available_on IS NOT NULL)
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger entry % is malformed (a zero amount, a negative fee, another currency or mode than its account, or available_on off a store_pending account)', bad.id
      USING ERRCODE = 'check_violation';
  END IF;
  -- every transaction touched sums to zero per currency, counting all its entries
  -- (each transaction's entries by its index: a semi-join with the statement's entries could be
  -- planned as a walk of the whole index, which made every posting slower as the books grew)
  SELECT i.transaction_id AS id, s.currency, s.total INTO bad
    FROM (SELECT DISTINCT transaction_id FROM inserted) i
    CROSS JOIN LATERAL (SELECT e.currency, sum(e.amount) AS total FROM ledger_entries e
                         WHERE e.transaction_id = i.transaction_id
                         GROUP BY e.currency) s
   WHERE s.total <> 0 LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger transaction % does not balance: its % entries sum to %', bad.id, bad.currency, bad.total
      USING ERRCODE = 'check_violation';
  END IF;
  PERFORM set_config('kessai.ledger_posting', 'on', true);
  -- the accounts in id order, then their balances (one order everywhere: no deadlock)
  PERFORM 1 FROM ledger_accounts WHERE id IN (SELECT account_id FROM inserted) ORDER BY id FOR UPDATE;
  UPDATE ledger_accounts a
     SET balance = a.balance + s.total, entry_count = a.entry_count + s.n, updated_on = now()
    FROM (SELECT account_id, sum(amount) AS total, count(*) AS n FROM inserted GROUP BY account_id) s
   WHERE a.id = s.account_id;
  -- a pending account's money by the instant it becomes available
  INSERT INTO ledger_maturities AS m (account_id, available_on, amount)
  SELECT account_id, available_on, sum(amount) FROM inserted
   WHERE available_on IS NOT NULL GROUP BY account_id, available_on ORDER BY account_id, available_on
  ON CONFLICT (account_id, available_on) DO UPDATE SET amount = m.amount + EXCLUDED.amount;
  PERFORM set_config('kessai.ledger_posting', 'off', true);
  RETURN NULL;
END $$;
