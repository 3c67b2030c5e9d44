-- The payments list's card and metadata filters read an index (issue 33, bench:console): the card's
-- last four as a column of the charge, copied from its transaction token as the row is inserted, and
-- the metadata under a GIN index that `metadata @> {key: value}` reads.

-- AlterTable
ALTER TABLE "charges" ADD COLUMN "card_last_four" TEXT;

-- The charges so far: their tokens' last four (a card token's number never changes)
UPDATE "charges" c
   SET "card_last_four" = t."data" #>> '{card,last_four}'
  FROM "transaction_tokens" t
 WHERE t."id" = c."transaction_token_id" AND t."data" #>> '{card,last_four}' IS NOT NULL;

-- Whichever statement inserts a charge (the API's, the hosted checkout's, a subscription's due
-- payment, a test's row), the token's last four go with it, in the same statement.
CREATE FUNCTION "charges_card_last_four"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."card_last_four" := (
    SELECT t."data" #>> '{card,last_four}' FROM "transaction_tokens" t WHERE t."id" = NEW."transaction_token_id");
  RETURN NEW;
END
$$;

CREATE TRIGGER "charges_card_last_four" BEFORE INSERT ON "charges"
  FOR EACH ROW EXECUTE FUNCTION "charges_card_last_four"();

-- CreateIndex
CREATE INDEX "charges_merchant_id_card_last_four_created_on_id_idx" ON "charges"("merchant_id", "card_last_four", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "charges_metadata_idx" ON "charges" USING GIN ("metadata" jsonb_path_ops);
