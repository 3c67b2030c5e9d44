-- The token list's previous_transaction_token_id filter (the SDK's previousTransactionTokenId):
-- the successor of a renewed token, found by its previous_id.
-- CreateIndex
CREATE INDEX "transaction_tokens_previous_id_idx" ON "transaction_tokens"("previous_id");
