-- A store's logo for its hosted checkout (docs/hosted-checkout.md, decision 0021): the image itself,
-- served by the gateway at a URL naming its digest.
-- CreateTable
CREATE TABLE "store_logos" (
    "store_id" UUID NOT NULL,
    "content_type" TEXT NOT NULL,
    "image" BYTEA NOT NULL,
    "digest" TEXT NOT NULL,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "store_logos_pkey" PRIMARY KEY ("store_id")
);

-- AddForeignKey
ALTER TABLE "store_logos" ADD CONSTRAINT "store_logos_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
