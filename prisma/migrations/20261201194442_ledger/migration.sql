-- The ledger (issue 31; docs/ledger.md, decision 0030): a double-entry journal whose invariants the
-- database itself holds, whatever code writes to it:
-- - entries and transactions are append-only (UPDATE, DELETE and TRUNCATE refused);
-- - a transaction is written with its entries, in one statement, and they sum to zero per currency
--   (checked when that statement ends); no entry is added to it afterwards;
-- - each account's balance and entry count, and each pending account's maturities, are kept by the
--   entries' trigger in the statement that posts them, the accounts locked in id order (decision
--   0023's rule: one order, no deadlock), and refused when written any other way.
-- The poster reads the outbox by database transaction (outbox_events.txid), below the oldest one
-- still running, so that no event is skipped by a transaction that commits late.
-- CreateEnum
CREATE TYPE "ledger_account_kind" AS ENUM ('store_pending', 'store_available', 'platform_fee_revenue', 'processor_clearing', 'platform_adjustments');

-- CreateEnum
CREATE TYPE "ledger_posting_kind" AS ENUM ('sale', 'refund', 'release', 'adjustment');

-- AlterTable
-- existing events get the migration's own transaction: the poster's first pass posts what they record
ALTER TABLE "outbox_events" ADD COLUMN     "txid" xid8 NOT NULL DEFAULT pg_current_xact_id();

-- CreateTable
CREATE TABLE "ledger_accounts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "mode" "processing_mode" NOT NULL,
    "kind" "ledger_account_kind" NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "merchant_id" UUID,
    "store_id" UUID,
    "balance" BIGINT NOT NULL DEFAULT 0,
    "entry_count" BIGINT NOT NULL DEFAULT 0,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_transactions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "kind" "ledger_posting_kind" NOT NULL,
    "source_type" TEXT NOT NULL,
    "source_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "merchant_id" UUID NOT NULL,
    "store_id" UUID,
    "currency" CHAR(3) NOT NULL,
    "amount" BIGINT NOT NULL,
    "fee_amount" BIGINT NOT NULL DEFAULT 0,
    "fee_rate_ppm" INTEGER,
    "fee_flat_amount" BIGINT,
    "available_on" TIMESTAMPTZ(3),
    "note" TEXT,
    "created_by" TEXT NOT NULL,
    "cause_event_id" UUID,
    "txid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "transaction_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "amount" BIGINT NOT NULL,
    "available_on" TIMESTAMPTZ(3),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_maturities" (
    "account_id" UUID NOT NULL,
    "available_on" TIMESTAMPTZ(3) NOT NULL,
    "amount" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "ledger_maturities_pkey" PRIMARY KEY ("account_id","available_on")
);

-- CreateTable
CREATE TABLE "ledger_cursors" (
    "name" TEXT NOT NULL,
    "txid" TEXT NOT NULL DEFAULT '0',
    "sequence" BIGINT NOT NULL DEFAULT 0,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_cursors_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "ledger_accounts_merchant_id_store_id_idx" ON "ledger_accounts"("merchant_id", "store_id");

-- CreateIndex
CREATE INDEX "ledger_transactions_merchant_id_created_on_id_idx" ON "ledger_transactions"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "ledger_transactions_store_id_created_on_id_idx" ON "ledger_transactions"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "ledger_transactions_kind_source_type_source_id_key" ON "ledger_transactions"("kind", "source_type", "source_id");

-- CreateIndex
CREATE INDEX "ledger_entries_transaction_id_idx" ON "ledger_entries"("transaction_id");

-- CreateIndex
CREATE INDEX "ledger_entries_account_id_id_idx" ON "ledger_entries"("account_id", "id");

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "ledger_transactions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "ledger_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_maturities" ADD CONSTRAINT "ledger_maturities_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "ledger_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- ---------------------------------------------------------------------------------------------
-- What Prisma cannot declare

-- the poster's read: ledger-relevant events in database-transaction order
CREATE INDEX "outbox_events_ledger_idx" ON "outbox_events" ("txid", "sequence")
  WHERE "event_type" IN ('charge_finished', 'refund_finished');

-- one account of a kind per mode, currency and owner: a store's (its store names its merchant), or
-- the platform's (no owner); partial indexes, since Prisma's schema engine cannot read NULLS NOT DISTINCT
CREATE UNIQUE INDEX "ledger_accounts_store_key"
  ON "ledger_accounts" ("store_id", "mode", "kind", "currency") WHERE "store_id" IS NOT NULL;
CREATE UNIQUE INDEX "ledger_accounts_platform_key"
  ON "ledger_accounts" ("mode", "kind", "currency") WHERE "store_id" IS NULL;

-- a store's account names its merchant and store, the platform's neither (a trigger, not a CHECK
-- constraint: Prisma 6.19's schema engine crashes introspecting any CHECK constraint, so the
-- migrations could no longer be compared with schema.prisma)
CREATE FUNCTION ledger_account_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.kind IN ('store_pending', 'store_available'))
     <> (NEW.merchant_id IS NOT NULL AND NEW.store_id IS NOT NULL)
     OR (NEW.merchant_id IS NULL) <> (NEW.store_id IS NULL) THEN
    RAISE EXCEPTION 'a % ledger account % a merchant and a store', NEW.kind,
      CASE WHEN NEW.kind IN ('store_pending', 'store_available') THEN 'needs' ELSE 'has neither' END
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_accounts_owner BEFORE INSERT ON "ledger_accounts"
  FOR EACH ROW EXECUTE FUNCTION ledger_account_owner();
-- the release's look-up of matured money
CREATE INDEX "ledger_maturities_due_idx" ON "ledger_maturities" ("available_on") WHERE "amount" <> 0;

-- append-only
CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % on % is refused (post a correcting transaction instead)',
    TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON "ledger_entries"
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON "ledger_entries"
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_transactions_append_only BEFORE UPDATE OR DELETE ON "ledger_transactions"
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_transactions_no_truncate BEFORE TRUNCATE ON "ledger_transactions"
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();

-- a balance, an entry count or a maturity changes only through ledger_entries_posted()
CREATE FUNCTION ledger_refuse_derived_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('kessai.ledger_posting', true) IS DISTINCT FROM 'on' THEN
    IF TG_OP = 'DELETE' OR TG_OP = 'TRUNCATE' THEN
      RAISE EXCEPTION 'the ledger''s derived % rows are kept by its entries: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
    END IF;
    -- nested: PL/pgSQL does not skip the right side of an AND, and a maturity has no balance
    IF TG_TABLE_NAME = 'ledger_accounts' THEN
      IF NEW.balance IS DISTINCT FROM OLD.balance OR NEW.entry_count IS DISTINCT FROM OLD.entry_count THEN
        RAISE EXCEPTION 'a ledger account''s balance is the sum of its entries: post entries instead'
          USING ERRCODE = 'restrict_violation';
      END IF;
    ELSE
      RAISE EXCEPTION 'a ledger maturity is the sum of its account''s entries: post entries instead'
        USING ERRCODE = 'restrict_violation';
    END IF;
  END IF;
  RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END $$;
CREATE TRIGGER ledger_accounts_derived BEFORE UPDATE OR DELETE ON "ledger_accounts"
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_derived_change();
CREATE TRIGGER ledger_accounts_no_truncate BEFORE TRUNCATE ON "ledger_accounts"
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_derived_change();
CREATE TRIGGER ledger_maturities_derived BEFORE UPDATE OR DELETE ON "ledger_maturities"
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_derived_change();
CREATE TRIGGER ledger_maturities_no_truncate BEFORE TRUNCATE ON "ledger_maturities"
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_derived_change();

-- a maturity row is written by the posting statement only: its insert needs the flag too
CREATE FUNCTION ledger_refuse_maturity_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('kessai.ledger_posting', true) IS DISTINCT FROM 'on' THEN
    RAISE EXCEPTION 'a ledger maturity is the sum of its account''s entries: post entries instead'
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_maturities_insert BEFORE INSERT ON "ledger_maturities"
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_maturity_insert();

-- the end of every statement that inserts entries: the rules, then the derived rows
CREATE FUNCTION ledger_entries_posted() RETURNS trigger LANGUAGE plpgsql AS $$
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
  SELECT e.transaction_id AS id, e.currency, sum(e.amount) AS total INTO bad
    FROM ledger_entries e
   WHERE e.transaction_id IN (SELECT transaction_id FROM inserted)
   GROUP BY e.transaction_id, e.currency HAVING sum(e.amount) <> 0 LIMIT 1;
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
CREATE TRIGGER ledger_entries_posted AFTER INSERT ON "ledger_entries"
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_posted();

-- a transaction is written with its entries, by one statement (the posting's INSERTs in one
-- statement's CTEs: AFTER triggers run when the whole statement ends, so this sees the entries the
-- same statement wrote). Not a deferred constraint trigger: Prisma 6.19's schema engine crashes
-- introspecting one, as it does on CHECK constraints.
CREATE FUNCTION ledger_transactions_posted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bad record;
BEGIN
  SELECT t.id INTO bad FROM inserted t
   WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transaction_id = t.id) LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger transaction % has no entries: a transaction is posted with its entries, in one statement', bad.id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_transactions_posted AFTER INSERT ON "ledger_transactions"
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION ledger_transactions_posted();

-- the poster's one cursor over the outbox, from the start: the first pass posts every fact before it
INSERT INTO "ledger_cursors" ("name") VALUES ('outbox');
