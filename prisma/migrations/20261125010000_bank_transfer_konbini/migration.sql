-- Bank transfer and konbini charges (docs/bank-transfer-and-konbini.md): the match_amount rule a
-- charge was accepted under, its payment deadline (GET .../expiry/latest) and the money received for it.

-- CreateEnum
CREATE TYPE "match_amount" AS ENUM ('exact', 'minimum', 'maximum', 'disabled');

-- AlterTable
ALTER TABLE "charges" ADD COLUMN     "match_amount" "match_amount";

-- CreateTable
CREATE TABLE "charge_expiries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "charge_id" UUID NOT NULL,
    "expiration_date" TIMESTAMPTZ(3) NOT NULL,
    "extension_count" INTEGER NOT NULL DEFAULT 0,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "charge_expiries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "charge_deposits" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "charge_id" UUID NOT NULL,
    "processor_deposit_id" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "matched" BOOLEAN NOT NULL,
    "received_on" TIMESTAMPTZ(3) NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "charge_deposits_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "charge_expiries_charge_id_key" ON "charge_expiries"("charge_id");

-- CreateIndex
CREATE UNIQUE INDEX "charge_deposits_charge_id_processor_deposit_id_key" ON "charge_deposits"("charge_id", "processor_deposit_id");

-- AddForeignKey
ALTER TABLE "charge_expiries" ADD CONSTRAINT "charge_expiries_charge_id_fkey" FOREIGN KEY ("charge_id") REFERENCES "charges"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "charge_deposits" ADD CONSTRAINT "charge_deposits_charge_id_fkey" FOREIGN KEY ("charge_id") REFERENCES "charges"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

