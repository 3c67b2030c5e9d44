-- Processor accounts (issue 32; decision 0055): a merchant's accounts at payment processors. The
-- credentials (secret key and webhook secret, one JSON value) are stored encrypted with the vault's
-- keys (key_id, iv, ciphertext, auth_tag), bound to the account's id, as bank account numbers are.

-- CreateEnum
CREATE TYPE "processor_provider" AS ENUM ('simulator', 'komoju', 'stripe');

-- CreateEnum
CREATE TYPE "processor_account_status" AS ENUM ('active', 'disabled');

-- CreateTable
CREATE TABLE "processor_accounts" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "provider" "processor_provider" NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "name" TEXT NOT NULL,
    "status" "processor_account_status" NOT NULL DEFAULT 'active',
    "key_id" TEXT NOT NULL,
    "iv" BYTEA NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "auth_tag" BYTEA NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processor_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "processor_accounts_merchant_id_created_on_id_idx" ON "processor_accounts"("merchant_id", "created_on" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "processor_accounts" ADD CONSTRAINT "processor_accounts_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
