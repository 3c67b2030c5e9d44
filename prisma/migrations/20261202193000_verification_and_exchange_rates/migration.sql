-- A merchant's onboarding data (the SDK's verification.*) and the operator's exchange rates
-- (exchangeRates.calculate), decision 0049.
-- CreateEnum
CREATE TYPE "verification_status" AS ENUM ('submitted', 'approved', 'rejected');

-- CreateTable
CREATE TABLE "merchant_verifications" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "homepage_url" TEXT NOT NULL,
    "company_description" TEXT NOT NULL,
    "company_contact_info" JSONB NOT NULL,
    "business_type" TEXT NOT NULL,
    "system_manager_name" TEXT,
    "system_manager_number" JSONB,
    "system_manager_email" TEXT,
    "customer_contact_email" TEXT,
    "customer_contact_number" JSONB,
    "recurring_token_request" TEXT,
    "recurring_token_request_reason" TEXT,
    "allow_empty_cvv" BOOLEAN,
    "status" "verification_status" NOT NULL DEFAULT 'submitted',
    "reviewed_by" TEXT,
    "reviewed_on" TIMESTAMPTZ(3),
    "review_reason" TEXT,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merchant_verifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "exchange_rates" (
    "from_currency" CHAR(3) NOT NULL,
    "to_currency" CHAR(3) NOT NULL,
    "rate" TEXT NOT NULL,
    "set_by" TEXT NOT NULL,
    "set_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "exchange_rates_pkey" PRIMARY KEY ("from_currency","to_currency")
);

-- CreateIndex
CREATE UNIQUE INDEX "merchant_verifications_merchant_id_key" ON "merchant_verifications"("merchant_id");

-- AddForeignKey
ALTER TABLE "merchant_verifications" ADD CONSTRAINT "merchant_verifications_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A rate is a positive decimal in plain digits (read back exactly: libs/domain exchange-rates.ts),
-- and a pair two currencies (a trigger, not CHECK constraints: Prisma 6.19's schema engine crashes
-- introspecting a CHECK constraint, as the ledger's migration says).
CREATE FUNCTION exchange_rates_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."rate" !~ '^[0-9]{1,18}(\.[0-9]{1,12})?$' OR NEW."rate" ~ '^[0.]+$' THEN
    RAISE EXCEPTION 'exchange rate %/%: % is not a positive decimal', NEW.from_currency, NEW.to_currency, NEW.rate
      USING ERRCODE = 'check_violation';
  END IF;
  IF NEW."from_currency" = NEW."to_currency" THEN
    RAISE EXCEPTION 'exchange rate %/%: a pair is two currencies', NEW.from_currency, NEW.to_currency
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER "exchange_rates_check" BEFORE INSERT OR UPDATE ON "exchange_rates"
  FOR EACH ROW EXECUTE FUNCTION exchange_rates_check();

-- Backfill (decision 0049): live mode is now closed to an unverified merchant on every request,
-- not only when a live app token is issued. A merchant holding an active live app token today
-- (the operator issued it) works in live mode today: it is marked verified so that it keeps working.
UPDATE "merchants" m
   SET "verified" = true
 WHERE NOT m."verified"
   AND EXISTS (SELECT 1 FROM "app_tokens" t
                WHERE t."merchant_id" = m."id" AND t."mode" = 'live' AND t."revoked_on" IS NULL);
