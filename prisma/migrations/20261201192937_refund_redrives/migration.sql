-- Refunds that ended `error` are sent to the processor again under their own key (issue 34;
-- docs/refunds-and-cancels.md, "Re-driving a refund in error"): how many times, for the sweeper's
-- bounded schedule.
ALTER TABLE "refunds" ADD COLUMN     "redrives" INTEGER NOT NULL DEFAULT 0;

-- the sweeper's look-up of refunds in error, oldest first (Prisma cannot declare a partial index)
CREATE INDEX "refunds_error_idx" ON "refunds" ("updated_on") WHERE "status" = 'error';
