-- first_charge_authorization_only and first_charge_capture_after of POST /subscriptions
-- (docs/subscriptions.md, section An authorized first charge).
-- AlterTable
ALTER TABLE "subscriptions" ADD COLUMN     "first_charge_authorization_only" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "first_charge_capture_after" TEXT;

