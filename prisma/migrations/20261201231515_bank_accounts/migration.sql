-- Bank accounts (issue 31, payouts; decision 0032): where a merchant's payouts go. The account
-- number is stored encrypted (key_id, iv, ciphertext, auth_tag) and as a keyed fingerprint; the
-- two partial unique indexes at the end hold the rules whatever writes: one primary account per
-- merchant, mode and currency, and one account per merchant, mode and fingerprint, among the
-- accounts not deleted (a deleted account stays for the transfers that name it).

-- CreateEnum
CREATE TYPE "bank_account_status" AS ENUM ('new', 'unable_to_verify', 'verified', 'errored');

-- CreateEnum
CREATE TYPE "bank_account_type" AS ENUM ('checking', 'savings');

-- CreateTable
CREATE TABLE "bank_accounts" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "holder_name" TEXT NOT NULL,
    "bank_name" TEXT NOT NULL,
    "branch_name" TEXT,
    "bank_address" TEXT,
    "country" CHAR(2) NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "routing_number" TEXT,
    "swift_code" TEXT,
    "ifsc_code" TEXT,
    "routing_code" TEXT,
    "account_type" "bank_account_type" NOT NULL,
    "key_id" TEXT NOT NULL,
    "iv" BYTEA NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "auth_tag" BYTEA NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "last_four" TEXT NOT NULL,
    "status" "bank_account_status" NOT NULL,
    "primary" BOOLEAN NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_on" TIMESTAMPTZ(3),

    CONSTRAINT "bank_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "bank_accounts_merchant_id_mode_created_on_id_idx" ON "bank_accounts"("merchant_id", "mode", "created_on" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- One primary per merchant, mode and currency (a second one, from any writer, is a unique violation).
CREATE UNIQUE INDEX "bank_accounts_primary_key" ON "bank_accounts" ("merchant_id", "mode", "currency")
  WHERE "primary" AND "deleted_on" IS NULL;

-- One account per merchant, mode and number at one bank (BANK_ACCOUNT_EXISTS).
CREATE UNIQUE INDEX "bank_accounts_fingerprint_key" ON "bank_accounts" ("merchant_id", "mode", "fingerprint")
  WHERE "deleted_on" IS NULL;

-- A deleted account is never primary, and last_four is digits only (a trigger, not CHECK
-- constraints: Prisma 6.19's schema engine crashes introspecting a CHECK constraint, as the ledger's
-- migration says).
CREATE FUNCTION bank_accounts_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."primary" AND NEW."deleted_on" IS NOT NULL THEN
    RAISE EXCEPTION 'bank account %: a deleted account cannot be primary', NEW.id
      USING ERRCODE = 'check_violation';
  END IF;
  IF NEW."last_four" !~ '^[0-9]{1,4}$' THEN
    RAISE EXCEPTION 'bank account %: last_four must be up to four digits', NEW.id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER "bank_accounts_check" BEFORE INSERT OR UPDATE ON "bank_accounts"
  FOR EACH ROW EXECUTE FUNCTION bank_accounts_check();
