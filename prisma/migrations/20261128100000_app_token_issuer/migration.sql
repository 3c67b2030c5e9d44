-- Which app token issued an app token (null: a merchant user or the operator did). Revoking a token
-- revokes the tokens it issued, transitively, so a leaked token cannot leave credentials behind
-- that outlive its revocation (docs/decisions/0028-who-issues-app-tokens.md). Existing rows keep
-- null: who issued them was not recorded.
ALTER TABLE "app_tokens" ADD COLUMN "issued_by" UUID;

ALTER TABLE "app_tokens" ADD CONSTRAINT "app_tokens_issued_by_fkey" FOREIGN KEY ("issued_by") REFERENCES "app_tokens"("id") ON DELETE SET NULL ON UPDATE CASCADE;

CREATE INDEX "app_tokens_issued_by_idx" ON "app_tokens"("issued_by");
