-- A charge's fee: the terms it was accepted under (from its store's configuration) and the fee of
-- what was charged, set together with charged_amount. Null on charges made before fees existed.
ALTER TABLE "charges" ADD COLUMN "fee_rate_ppm" INTEGER,
ADD COLUMN "fee_flat_amount" BIGINT,
ADD COLUMN "fee_amount" BIGINT;
