-- ledger_id on charges and refunds (issue 31; decision 0052): the ledger row (ledger_transactions)
-- that posted the charge's sale or the refund, set by the statement that posts it. Facts posted
-- before this migration get theirs here.
-- AlterTable
ALTER TABLE "charges" ADD COLUMN "ledger_id" UUID;

-- AlterTable
ALTER TABLE "refunds" ADD COLUMN "ledger_id" UUID;

UPDATE "charges" c SET "ledger_id" = t."id"
  FROM "ledger_transactions" t
 WHERE t."kind" = 'sale' AND t."source_type" = 'charge' AND t."source_id" = c."id";

UPDATE "refunds" r SET "ledger_id" = t."id"
  FROM "ledger_transactions" t
 WHERE t."kind" = 'refund' AND t."source_type" = 'refund' AND t."source_id" = r."id";
