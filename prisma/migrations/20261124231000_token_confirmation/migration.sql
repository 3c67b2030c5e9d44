-- POST /stores/{storeId}/tokens/{id}/confirm (docs/transaction-tokens.md, "Confirmation").
-- AlterTable
ALTER TABLE "transaction_tokens" ADD COLUMN     "confirmation_attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "confirmation_code_hash" TEXT;

