-- One-time codes of customers' self-service logins (refers.sendCode / refers.authorize, decision 0058).
-- CreateTable
CREATE TABLE "customer_login_codes" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "email" TEXT NOT NULL,
    "code_hash" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "expires_on" TIMESTAMPTZ(3) NOT NULL,
    "used_on" TIMESTAMPTZ(3),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_login_codes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "customer_login_codes_store_id_mode_email_created_on_idx" ON "customer_login_codes"("store_id", "mode", "email", "created_on" DESC);

-- AddForeignKey
ALTER TABLE "customer_login_codes" ADD CONSTRAINT "customer_login_codes_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
