-- Routing per store (issue 32; decision 0055): which processor account takes a store's charges of
-- a mode, payment type and currency, and the account each charge was given when it was created.

-- CreateEnum
CREATE TYPE "processor_route_payment_type" AS ENUM ('card', 'konbini', 'bank_transfer', 'online');

-- CreateTable
CREATE TABLE "processor_routes" (
    "store_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "payment_type" "processor_route_payment_type" NOT NULL,
    "currency" TEXT NOT NULL,
    "processor_account_id" UUID NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processor_routes_pkey" PRIMARY KEY ("store_id","mode","payment_type","currency")
);

-- CreateIndex
CREATE INDEX "processor_routes_processor_account_id_idx" ON "processor_routes"("processor_account_id");

-- AddForeignKey
ALTER TABLE "processor_routes" ADD CONSTRAINT "processor_routes_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "processor_routes" ADD CONSTRAINT "processor_routes_processor_account_id_fkey" FOREIGN KEY ("processor_account_id") REFERENCES "processor_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AlterTable: null for every charge so far, which keeps the mode's default processor
ALTER TABLE "charges" ADD COLUMN "processor_account_id" UUID;

-- AddForeignKey
ALTER TABLE "charges" ADD CONSTRAINT "charges_processor_account_id_fkey" FOREIGN KEY ("processor_account_id") REFERENCES "processor_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The route is chosen as the charge row is inserted, whichever statement inserts it (a charge of
-- the API, of the hosted checkout, of a subscription's due payment): the store's route of the
-- charge's mode, payment type (from its transaction token) and currency, the currency's own route
-- before `*`, to an active account of the same mode. A charge refused at creation (inserted failed)
-- gets none, nor one of mode live_test. Once set it never changes: the charge's later calls follow it.
CREATE FUNCTION "charges_routed_processor_account"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."processor_account_id" IS NULL AND NEW."status" = 'pending' AND NEW."mode" IN ('test', 'live') THEN
    NEW."processor_account_id" := (
      SELECT r."processor_account_id"
        FROM "transaction_tokens" t
        JOIN "processor_routes" r
          ON r."store_id" = NEW."store_id"
         AND r."mode" = NEW."mode"
         AND r."payment_type" = (CASE t."payment_type"::text
               WHEN 'card' THEN 'card'
               WHEN 'konbini' THEN 'konbini'
               WHEN 'bank_transfer' THEN 'bank_transfer'
               WHEN 'online' THEN 'online'
               WHEN 'qr_scan' THEN 'online'
               WHEN 'qr_merchant' THEN 'online'
             END)::"processor_route_payment_type"
         AND r."currency" IN (upper(NEW."requested_currency"), '*')
        JOIN "processor_accounts" a
          ON a."id" = r."processor_account_id" AND a."status" = 'active' AND a."mode" = NEW."mode"
       WHERE t."id" = NEW."transaction_token_id"
       ORDER BY (r."currency" = '*')
       LIMIT 1);
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "charges_processor_route" BEFORE INSERT ON "charges"
  FOR EACH ROW EXECUTE FUNCTION "charges_routed_processor_account"();

-- Once chosen, a charge's account stays: a route changed later moves new charges only.
CREATE FUNCTION "charges_processor_account_kept"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD."processor_account_id" IS DISTINCT FROM NEW."processor_account_id" THEN
    RAISE EXCEPTION 'a charge keeps the processor account it was created with (charge %)', OLD."id";
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER "charges_processor_account_kept" BEFORE UPDATE OF "processor_account_id" ON "charges"
  FOR EACH ROW EXECUTE FUNCTION "charges_processor_account_kept"();
