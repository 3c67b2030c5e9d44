-- A card token's CVV authorization whose job was lost is swept (docs/transaction-tokens.md, "CVV
-- authorization"): charge-service's sweeper looks for tokens pending longer than
-- TOKEN_CVV_AUTHORIZE_STALE_SECONDS. Only the tokens whose authorization is pending are in this
-- index, a handful at any time, so each pass reads those (oldest change first) and no other.
-- schema.prisma cannot declare a partial index and the Prisma schema diff (scripts/check-migrations.sh)
-- ignores one, so it lives here only (a comment in schema.prisma points here).
CREATE INDEX "transaction_tokens_cvv_authorize_pending_idx" ON "transaction_tokens" ("updated_on")
  WHERE (data->'cvv_authorize'->>'status') = 'pending';
