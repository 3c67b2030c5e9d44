-- DropIndex
DROP INDEX "captures_charge_id_created_on_idx";

-- AlterTable
ALTER TABLE "captures" ADD COLUMN     "error_code" INTEGER,
ADD COLUMN     "error_detail" TEXT,
ADD COLUMN     "error_message" TEXT;

-- AlterTable
ALTER TABLE "charges" ADD COLUMN     "expires_on" TIMESTAMPTZ(3),
ADD COLUMN     "issuer_token" JSONB,
ADD COLUMN     "redirect" JSONB,
ADD COLUMN     "three_ds" JSONB,
ADD COLUMN     "three_ds_issuer_token" JSONB;

-- CreateIndex
CREATE UNIQUE INDEX "captures_charge_id_key" ON "captures"("charge_id");

-- CreateIndex
CREATE INDEX "charges_status_updated_on_idx" ON "charges"("status", "updated_on");

