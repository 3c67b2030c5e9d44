-- Failover between processor accounts (issue 32; decision 0056): a route may name a fallback
-- account, which a charge moves to only when its own account provably executed none of the calls
-- sent to it.

-- AlterTable
ALTER TABLE "charges" ADD COLUMN     "fallback_processor_account_id" UUID,
ADD COLUMN     "processor_calls_started" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "processor_calls_unexecuted" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "processor_failed_over_on" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "processor_routes" ADD COLUMN     "fallback_processor_account_id" UUID;

-- AddForeignKey
ALTER TABLE "charges" ADD CONSTRAINT "charges_fallback_processor_account_id_fkey" FOREIGN KEY ("fallback_processor_account_id") REFERENCES "processor_accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "processor_routes" ADD CONSTRAINT "processor_routes_fallback_processor_account_id_fkey" FOREIGN KEY ("fallback_processor_account_id") REFERENCES "processor_accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The route's fallback is chosen with its account, in the same insert: an active account of the
-- charge's mode other than the account itself, and only when the account itself was chosen (a
-- charge on the mode's default has no fallback).
CREATE OR REPLACE FUNCTION "charges_routed_processor_account"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  routed RECORD;
BEGIN
  IF NEW."processor_account_id" IS NULL AND NEW."status" = 'pending' AND NEW."mode" IN ('test', 'live') THEN
    SELECT r."processor_account_id" AS account_id, f."id" AS fallback_id INTO routed
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
      LEFT JOIN "processor_accounts" f
        ON f."id" = r."fallback_processor_account_id" AND f."id" <> a."id"
       AND f."status" = 'active' AND f."mode" = NEW."mode"
     WHERE t."id" = NEW."transaction_token_id"
     ORDER BY (r."currency" = '*')
     LIMIT 1;
    IF FOUND THEN
      NEW."processor_account_id" := routed.account_id;
      NEW."fallback_processor_account_id" := routed.fallback_id;
    END IF;
  END IF;
  RETURN NEW;
END
$$;

-- Once chosen, a charge's account and fallback stay; it fails over once, to its fallback, and stays.
CREATE OR REPLACE FUNCTION "charges_processor_account_kept"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD."processor_account_id" IS DISTINCT FROM NEW."processor_account_id"
     OR OLD."fallback_processor_account_id" IS DISTINCT FROM NEW."fallback_processor_account_id" THEN
    RAISE EXCEPTION 'a charge keeps the processor account it was created with (charge %)', OLD."id";
  END IF;
  IF OLD."processor_failed_over_on" IS DISTINCT FROM NEW."processor_failed_over_on"
     AND (OLD."processor_failed_over_on" IS NOT NULL OR NEW."fallback_processor_account_id" IS NULL) THEN
    RAISE EXCEPTION 'a charge fails over once, to its fallback account (charge %)', OLD."id";
  END IF;
  RETURN NEW;
END
$$;

DROP TRIGGER "charges_processor_account_kept" ON "charges";
CREATE TRIGGER "charges_processor_account_kept"
  BEFORE UPDATE OF "processor_account_id", "fallback_processor_account_id", "processor_failed_over_on" ON "charges"
  FOR EACH ROW EXECUTE FUNCTION "charges_processor_account_kept"();
