-- A merchant user removed by an owner from the console (decision 0057): the row stays, for the
-- audit rows that name it; a removed user signs in no more.
-- AlterTable
ALTER TABLE "merchant_users" ADD COLUMN     "removed_on" TIMESTAMPTZ(3);
