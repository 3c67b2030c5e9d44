-- A store's customers by their address, compared case-blind as a whole (refers.sendCode, decision
-- 0058): one index probe instead of reading every token of the store, whatever their number.
CREATE INDEX "transaction_tokens_store_email_idx" ON "transaction_tokens" ("store_id", lower("email"));
