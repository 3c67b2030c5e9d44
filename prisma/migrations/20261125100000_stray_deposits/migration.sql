-- Money that arrived for no charge of Kessai's (unassigned_deposits) or after its charge ended
-- (charge_deposits.received_after_end): recorded, the charges unchanged, listed for the operator
-- by the admin CLI deposits:stray (docs/bank-transfer-and-konbini.md, "Stray money").

-- AlterTable
ALTER TABLE "charge_deposits" ADD COLUMN     "received_after_end" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "unassigned_deposits" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "processor_deposit_id" TEXT NOT NULL,
    "processor_reference" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "received_on" TIMESTAMPTZ(3) NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "unassigned_deposits_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "unassigned_deposits_processor_deposit_id_key" ON "unassigned_deposits"("processor_deposit_id");

-- CreateIndex
CREATE INDEX "unassigned_deposits_created_on_idx" ON "unassigned_deposits"("created_on");


-- CreateIndex (partial: the few deposits that came after their charge ended, for deposits:stray)
CREATE INDEX "charge_deposits_after_end_idx" ON "charge_deposits" ("created_on") WHERE "received_after_end";
