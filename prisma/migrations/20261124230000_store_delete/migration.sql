-- DELETE /stores/{id} deactivates a store (deleted_on) and never removes it: its charges, refunds and
-- events stay. A name is unique among the merchant's stores that are not deleted, so a deleted
-- store's name may be used again (a partial index: in this migration only, Prisma cannot declare it).

-- AlterTable
ALTER TABLE "stores" ADD COLUMN     "deleted_on" TIMESTAMPTZ(3);

-- DropIndex
DROP INDEX "stores_merchant_id_name_key";

CREATE UNIQUE INDEX "stores_merchant_id_name_active_key" ON "stores" ("merchant_id", "name") WHERE "deleted_on" IS NULL;
