-- A card token's 3-D Secure that nobody completed expires (docs/transaction-tokens.md, "3-D Secure"):
-- charge-service's sweeper looks for awaiting tokens past their deadline. Only the tokens awaiting
-- their cardholder are in this index, a handful at any time, so each pass reads those and no other.
-- schema.prisma cannot declare a partial index and the Prisma schema diff (scripts/check-migrations.sh)
-- ignores one, so it lives here only (a comment in schema.prisma points here).
CREATE INDEX "transaction_tokens_three_ds_awaiting_idx" ON "transaction_tokens" ("id")
  WHERE (data->'three_ds'->>'status') = 'awaiting';
