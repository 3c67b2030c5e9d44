-- CreateEnum
CREATE TYPE "charge_operation" AS ENUM ('capture', 'cancel');

-- AlterTable
ALTER TABLE "charges" ADD COLUMN     "pending_operation" "charge_operation",
ADD COLUMN     "refund_reserved_amount" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "refunded_amount" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "processor_reference" TEXT;


-- The sweeper's (FIND_STALE_OPERATIONS): pending refunds and cancels, which are few at any time.
CREATE INDEX "refunds_pending_idx" ON "refunds" ("updated_on") WHERE "status" = 'pending';

CREATE INDEX "cancels_pending_idx" ON "cancels" ("updated_on") WHERE "status" = 'pending';
