-- Subscriptions as the engine runs them (docs/subscriptions.md, section The engine), and test clocks.
-- Nothing created subscriptions before this migration, so the NOT NULL columns are added without a
-- default and fail loudly on a database that somehow holds some, rather than inventing values.

-- CreateEnum
CREATE TYPE "termination_mode" AS ENUM ('immediate', 'on_next_payment');

-- CreateEnum
CREATE TYPE "scheduled_payment_status" AS ENUM ('pending', 'processing', 'paid', 'failed', 'canceled');

-- DropForeignKey
ALTER TABLE "scheduled_payments" DROP CONSTRAINT "scheduled_payments_charge_id_fkey";

-- DropIndex
DROP INDEX "scheduled_payments_charge_id_key";

-- DropIndex
DROP INDEX "scheduled_payments_is_paid_due_date_idx";

-- DropIndex
DROP INDEX "scheduled_payments_subscription_id_due_date_key";

-- AlterTable
ALTER TABLE "charges" ADD COLUMN     "payment_attempt" INTEGER,
ADD COLUMN     "scheduled_payment_id" UUID;

-- AlterTable
ALTER TABLE "scheduled_payments" DROP COLUMN "charge_id",
DROP COLUMN "claimed_on",
DROP COLUMN "is_paid",
ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "cycle" INTEGER,
ADD COLUMN     "due_at" TIMESTAMPTZ(3) NOT NULL,
ADD COLUMN     "next_try_at" TIMESTAMPTZ(3),
ADD COLUMN     "sequence" INTEGER NOT NULL,
ADD COLUMN     "status" "scheduled_payment_status" NOT NULL DEFAULT 'pending',
ADD COLUMN     "successful_payment_date" TIMESTAMPTZ(3),
ADD COLUMN     "terminate_with_status" "subscription_status",
ADD COLUMN     "test_clock_id" UUID,
ALTER COLUMN "due_date" SET DATA TYPE DATE;

-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN     "cycles_left" INTEGER,
ADD COLUMN     "cyclical_period" TEXT,
ADD COLUMN     "retry_interval" TEXT,
ADD COLUMN     "schedule_created_at" TIMESTAMPTZ(3) NOT NULL,
ADD COLUMN     "subscription_plan" JSONB,
ADD COLUMN     "termination_mode" "termination_mode" NOT NULL DEFAULT 'immediate',
ADD COLUMN     "test_clock_id" UUID,
ADD COLUMN     "three_ds" JSONB,
ALTER COLUMN "period" DROP NOT NULL,
ALTER COLUMN "start_on" SET DATA TYPE DATE;

-- CreateTable
CREATE TABLE "test_clocks" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "name" TEXT,
    "frozen_time" TIMESTAMPTZ(3) NOT NULL,
    "deleted_on" TIMESTAMPTZ(3),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "test_clocks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "test_clocks_merchant_id_created_on_id_idx" ON "test_clocks"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "charges_scheduled_payment_id_payment_attempt_key" ON "charges"("scheduled_payment_id", "payment_attempt");

-- CreateIndex
CREATE UNIQUE INDEX "scheduled_payments_subscription_id_sequence_key" ON "scheduled_payments"("subscription_id", "sequence");

-- CreateIndex
CREATE INDEX "subscriptions_transaction_token_id_idx" ON "subscriptions"("transaction_token_id");

-- CreateIndex
CREATE INDEX "subscriptions_test_clock_id_idx" ON "subscriptions"("test_clock_id");

-- AddForeignKey
ALTER TABLE "charges" ADD CONSTRAINT "charges_scheduled_payment_id_fkey" FOREIGN KEY ("scheduled_payment_id") REFERENCES "scheduled_payments"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_test_clock_id_fkey" FOREIGN KEY ("test_clock_id") REFERENCES "test_clocks"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "test_clocks" ADD CONSTRAINT "test_clocks_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- Scans of the scheduler (libs/db subscription-engine.sql.ts): due payments in real time, and due
-- payments on a test clock, and the scan of the sweeper of payments whose charge is in flight.
CREATE INDEX "scheduled_payments_due_idx" ON "scheduled_payments" ("next_try_at")
  WHERE "status" = 'pending' AND "test_clock_id" IS NULL;
CREATE INDEX "scheduled_payments_clock_due_idx" ON "scheduled_payments" ("test_clock_id", "next_try_at")
  WHERE "status" = 'pending' AND "test_clock_id" IS NOT NULL;
CREATE INDEX "scheduled_payments_processing_idx" ON "scheduled_payments" ("updated_on")
  WHERE "status" = 'processing';
-- At most one payment of a subscription is open (pending or processing) at any time: the next one
-- is created only when the previous one is settled.
CREATE UNIQUE INDEX "scheduled_payments_open_key" ON "scheduled_payments" ("subscription_id")
  WHERE "status" IN ('pending', 'processing');
