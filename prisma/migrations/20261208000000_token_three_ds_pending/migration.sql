-- A card token's 3-D Secure whose job was lost is swept (docs/transaction-tokens.md, "3-D Secure"):
-- charge-service's sweeper looks for tokens pending longer than TOKEN_THREE_DS_STALE_SECONDS. Only
-- the tokens whose authentication is pending are in this index, a handful at any time, so each pass
-- reads those (oldest change first) and no other.
-- schema.prisma cannot declare a partial index and the Prisma schema diff (scripts/check-migrations.sh)
-- ignores one, so it lives here only (a comment in schema.prisma points here).
CREATE INDEX "transaction_tokens_three_ds_pending_idx" ON "transaction_tokens" ("updated_on")
  WHERE (data->'three_ds'->>'status') = 'pending';
