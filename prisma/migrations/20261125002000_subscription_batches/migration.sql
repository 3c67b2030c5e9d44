-- POST /subscriptions/batches (docs/subscriptions.md, section Batches): the subscriptions and the
-- charge created together, whose statuses make the batch status.
-- CreateTable
CREATE TABLE "subscription_batches" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "subscription_ids" UUID[],
    "charge_id" UUID,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscription_batches_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "subscription_batches_merchant_id_created_on_idx" ON "subscription_batches"("merchant_id", "created_on" DESC);

-- AddForeignKey
ALTER TABLE "subscription_batches" ADD CONSTRAINT "subscription_batches_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscription_batches" ADD CONSTRAINT "subscription_batches_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

