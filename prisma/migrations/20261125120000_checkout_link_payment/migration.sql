-- AlterTable
ALTER TABLE "checkout_links" ADD COLUMN     "payment_claimed_on" TIMESTAMPTZ(3),
ADD COLUMN     "payment_id" UUID,
ADD COLUMN     "payment_kind" TEXT;
