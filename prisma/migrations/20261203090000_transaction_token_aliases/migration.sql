-- Temporary aliases of transaction tokens (the SDK's TemporaryTokenAlias, decision 0058).
-- CreateTable
CREATE TABLE "transaction_token_aliases" (
    "id" UUID NOT NULL,
    "transaction_token_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "amount" BIGINT,
    "currency" CHAR(3),
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "valid_until" TIMESTAMPTZ(3) NOT NULL,
    "deleted_on" TIMESTAMPTZ(3),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transaction_token_aliases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "transaction_token_aliases_transaction_token_id_idx" ON "transaction_token_aliases"("transaction_token_id");

-- AddForeignKey
ALTER TABLE "transaction_token_aliases" ADD CONSTRAINT "transaction_token_aliases_transaction_token_id_fkey" FOREIGN KEY ("transaction_token_id") REFERENCES "transaction_tokens"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
