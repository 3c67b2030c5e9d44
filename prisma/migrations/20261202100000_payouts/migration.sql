-- Payouts (issue 31; docs/ledger.md, "Payouts"; decision 0038): transfers of merchants' available
-- balances to their bank accounts. What the database holds whatever writes:
-- - one payout run per merchant, mode, currency and payout day (payout_runs' primary key), and one
--   transfer per the same (transfers_merchant_id_mode_currency_payout_day_key): a second replica's
--   run, or a run after a crash, writes nothing;
-- - what a transfer covers (transfer_ledgers) and its status changes are append-only;
-- - a transfer's amount, currency, owner, bank account and payout day never change.
-- CreateEnum
CREATE TYPE "transfer_status" AS ENUM ('created', 'approved', 'processing', 'paid', 'failed', 'canceled');

-- CreateEnum
CREATE TYPE "payout_run_outcome" AS ENUM ('transfer', 'nothing_to_pay', 'below_minimum', 'no_bank_account');

-- AlterEnum
ALTER TYPE "ledger_account_kind" ADD VALUE 'payouts_in_transit';

-- AlterEnum (the new values are not used by this migration: Postgres allows adding them in its transaction)
ALTER TYPE "ledger_posting_kind" ADD VALUE 'payout';
ALTER TYPE "ledger_posting_kind" ADD VALUE 'payout_paid';
ALTER TYPE "ledger_posting_kind" ADD VALUE 'payout_returned';

-- CreateTable
CREATE TABLE "payout_runs" (
    "merchant_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "payout_day" DATE NOT NULL,
    "outcome" "payout_run_outcome" NOT NULL,
    "amount" BIGINT NOT NULL,
    "transfer_id" UUID,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payout_runs_pkey" PRIMARY KEY ("merchant_id","mode","currency","payout_day")
);

-- CreateTable
CREATE TABLE "transfers" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "amount" BIGINT NOT NULL,
    "bank_account_id" UUID NOT NULL,
    "status" "transfer_status" NOT NULL,
    "payout_day" DATE NOT NULL,
    "period_from" TIMESTAMPTZ(3) NOT NULL,
    "period_to" TIMESTAMPTZ(3) NOT NULL,
    "error_code" TEXT,
    "error_text" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "started_by" TEXT NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transfers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transfer_ledgers" (
    "transfer_id" UUID NOT NULL,
    "ledger_transaction_id" UUID NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transfer_ledgers_pkey" PRIMARY KEY ("transfer_id","ledger_transaction_id")
);

-- CreateTable
CREATE TABLE "transfer_status_changes" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "transfer_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "old_status" "transfer_status" NOT NULL,
    "new_status" "transfer_status" NOT NULL,
    "reason" TEXT,
    "created_by" TEXT NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transfer_status_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "payout_runs_transfer_id_key" ON "payout_runs"("transfer_id");

-- CreateIndex
CREATE INDEX "transfers_merchant_id_mode_created_on_id_idx" ON "transfers"("merchant_id", "mode", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "transfers_status_idx" ON "transfers"("status");

-- CreateIndex
CREATE UNIQUE INDEX "transfers_merchant_id_mode_currency_payout_day_key" ON "transfers"("merchant_id", "mode", "currency", "payout_day");

-- CreateIndex
CREATE INDEX "transfer_ledgers_ledger_transaction_id_idx" ON "transfer_ledgers"("ledger_transaction_id");

-- CreateIndex
CREATE INDEX "transfer_status_changes_transfer_id_created_on_id_idx" ON "transfer_status_changes"("transfer_id", "created_on", "id");

-- AddForeignKey
ALTER TABLE "payout_runs" ADD CONSTRAINT "payout_runs_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payout_runs" ADD CONSTRAINT "payout_runs_transfer_id_fkey" FOREIGN KEY ("transfer_id") REFERENCES "transfers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transfers" ADD CONSTRAINT "transfers_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transfers" ADD CONSTRAINT "transfers_bank_account_id_fkey" FOREIGN KEY ("bank_account_id") REFERENCES "bank_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transfer_ledgers" ADD CONSTRAINT "transfer_ledgers_transfer_id_fkey" FOREIGN KEY ("transfer_id") REFERENCES "transfers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transfer_ledgers" ADD CONSTRAINT "transfer_ledgers_ledger_transaction_id_fkey" FOREIGN KEY ("ledger_transaction_id") REFERENCES "ledger_transactions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transfer_status_changes" ADD CONSTRAINT "transfer_status_changes_transfer_id_fkey" FOREIGN KEY ("transfer_id") REFERENCES "transfers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- ---------------------------------------------------------------------------------------------
-- What Prisma cannot declare

-- append-only, with the ledger's own refusal
CREATE TRIGGER transfer_ledgers_append_only BEFORE UPDATE OR DELETE ON "transfer_ledgers"
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER transfer_ledgers_no_truncate BEFORE TRUNCATE ON "transfer_ledgers"
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER transfer_status_changes_append_only BEFORE UPDATE OR DELETE ON "transfer_status_changes"
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER transfer_status_changes_no_truncate BEFORE TRUNCATE ON "transfer_status_changes"
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER payout_runs_append_only BEFORE UPDATE OR DELETE ON "payout_runs"
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();

-- what a transfer pays, and to whom, is fixed when it is created; a transfer is never deleted
CREATE FUNCTION transfers_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'transfer %: a transfer is never deleted (cancel it)', OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.amount IS DISTINCT FROM OLD.amount OR NEW.currency IS DISTINCT FROM OLD.currency
     OR NEW.merchant_id IS DISTINCT FROM OLD.merchant_id OR NEW.mode IS DISTINCT FROM OLD.mode
     OR NEW.bank_account_id IS DISTINCT FROM OLD.bank_account_id OR NEW.payout_day IS DISTINCT FROM OLD.payout_day THEN
    RAISE EXCEPTION 'transfer %: its amount, currency, owner, bank account and payout day are fixed', OLD.id
      USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER transfers_fixed BEFORE UPDATE OR DELETE ON "transfers"
  FOR EACH ROW EXECUTE FUNCTION transfers_fixed();
