-- The subscription sweeper walks the processing payments in windows, by (updated_on, id)
-- (FIND_UNSETTLED_CHARGES, issue 35, decision 0075): with the id in the key, a window reads its own rows even when
-- a whole claimed batch shares one updated_on. The index holds only processing payments, as before.

-- CreateIndex
CREATE INDEX "scheduled_payments_processing_key_idx" ON "scheduled_payments" ("updated_on", "id")
  WHERE "status" = 'processing';

-- DropIndex
DROP INDEX "scheduled_payments_processing_idx";

-- RenameIndex
ALTER INDEX "scheduled_payments_processing_key_idx" RENAME TO "scheduled_payments_processing_idx";
