-- Hosted checkout, its first slice (docs/hosted-checkout.md): form designs, products, links and the
-- emails that carried a link. A link keeps no secret: its jwt and secret are derived from its id
-- (docs/decisions/0017-checkout-link-credentials.md).
-- CreateTable
CREATE TABLE "checkout_forms" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "app_token_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "name" TEXT NOT NULL,
    "checkout" TEXT NOT NULL DEFAULT 'payment',
    "payment_type" "payment_type",
    "token_type" "token_type" NOT NULL DEFAULT 'one_time',
    "usage_limit" "usage_limit",
    "capture" BOOLEAN NOT NULL DEFAULT true,
    "only_direct_currency" BOOLEAN NOT NULL DEFAULT false,
    "supported_payment_methods" TEXT[] DEFAULT ARRAY['card']::TEXT[],
    "cvv_authorize" BOOLEAN NOT NULL DEFAULT false,
    "confirmation_required" BOOLEAN NOT NULL DEFAULT false,
    "title" TEXT,
    "description" TEXT,
    "header" TEXT,
    "locale" TEXT,
    "dark" BOOLEAN NOT NULL DEFAULT false,
    "submit_button_text" TEXT,
    "show_cvv" BOOLEAN NOT NULL DEFAULT true,
    "display_store_name" BOOLEAN NOT NULL DEFAULT true,
    "display_store_logo" BOOLEAN NOT NULL DEFAULT true,
    "hide_privacy_link" BOOLEAN NOT NULL DEFAULT false,
    "header_color" TEXT,
    "button_color" TEXT,
    "background_color" TEXT,
    "require_name" BOOLEAN NOT NULL DEFAULT false,
    "require_name_kana" BOOLEAN NOT NULL DEFAULT false,
    "require_email" BOOLEAN NOT NULL DEFAULT true,
    "require_billing_address" BOOLEAN NOT NULL DEFAULT false,
    "require_phone_number" BOOLEAN NOT NULL DEFAULT false,
    "address" BOOLEAN NOT NULL DEFAULT false,
    "custom_fields" JSONB,
    "custom_fields_titles" JSONB,
    "order_summary_titles" JSONB,
    "success_redirect_url" TEXT,
    "failure_redirect_url" TEXT,
    "pending_redirect_url" TEXT,
    "descriptor" TEXT,
    "ignore_descriptor_on_error" BOOLEAN NOT NULL DEFAULT false,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_forms_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checkout_products" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "code" TEXT,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "amount" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "shipping_fees" BIGINT,
    "token_type" "token_type" NOT NULL DEFAULT 'one_time',
    "subscription_period" "subscription_period",
    "subscription_cyclical_period" TEXT,
    "subscription_cycles" INTEGER,
    "subscription_initial_amount" BIGINT,
    "subscription_retry_interval" TEXT,
    "subscription_preserve_end_of_month" BOOLEAN,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_products_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checkout_links" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "form_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "description" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "expiry" TIMESTAMPTZ(3),
    "amount" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "token_type" "token_type" NOT NULL,
    "token_only" BOOLEAN NOT NULL DEFAULT false,
    "hide_cvv" BOOLEAN,
    "hide_prefilled_email" BOOLEAN,
    "destination" TEXT,
    "cvv_authorize" BOOLEAN,
    "charge_auth" BOOLEAN,
    "charge_capture_on" TIMESTAMPTZ(3),
    "charge_capture_in" TEXT,
    "allow_card_installments" BOOLEAN,
    "subscription_period" "subscription_period",
    "subscription_cyclical_period" TEXT,
    "subscription_cycles" INTEGER,
    "subscription_initial_amount" BIGINT,
    "subscription_start_on" DATE,
    "subscription_start_in" TEXT,
    "subscription_start_in_months" INTEGER,
    "subscription_start_day_of_month" INTEGER,
    "subscription_preserve_end_of_month" BOOLEAN,
    "subscription_retry_interval" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "checkout_link_products" (
    "link_id" UUID NOT NULL,
    "product_id" UUID NOT NULL,
    "quantity" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "checkout_link_products_pkey" PRIMARY KEY ("link_id","product_id")
);

-- CreateTable
CREATE TABLE "checkout_emails" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "form_id" UUID NOT NULL,
    "link_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "customer_name" TEXT,
    "lang" TEXT NOT NULL DEFAULT 'ja_jp',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_emails_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "checkout_forms_merchant_id_created_on_id_idx" ON "checkout_forms"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "checkout_forms_store_id_created_on_id_idx" ON "checkout_forms"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "checkout_products_merchant_id_created_on_id_idx" ON "checkout_products"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "checkout_products_store_id_created_on_id_idx" ON "checkout_products"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "checkout_products_store_id_code_key" ON "checkout_products"("store_id", "code");

-- CreateIndex
CREATE INDEX "checkout_links_merchant_id_created_on_id_idx" ON "checkout_links"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "checkout_links_store_id_created_on_id_idx" ON "checkout_links"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "checkout_links_form_id_idx" ON "checkout_links"("form_id");

-- CreateIndex
CREATE INDEX "checkout_link_products_product_id_idx" ON "checkout_link_products"("product_id");

-- CreateIndex
CREATE INDEX "checkout_emails_merchant_id_created_on_id_idx" ON "checkout_emails"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "checkout_emails_link_id_idx" ON "checkout_emails"("link_id");

-- AddForeignKey
ALTER TABLE "checkout_forms" ADD CONSTRAINT "checkout_forms_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_forms" ADD CONSTRAINT "checkout_forms_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_forms" ADD CONSTRAINT "checkout_forms_app_token_id_fkey" FOREIGN KEY ("app_token_id") REFERENCES "app_tokens"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_products" ADD CONSTRAINT "checkout_products_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_products" ADD CONSTRAINT "checkout_products_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_links" ADD CONSTRAINT "checkout_links_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_links" ADD CONSTRAINT "checkout_links_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_links" ADD CONSTRAINT "checkout_links_form_id_fkey" FOREIGN KEY ("form_id") REFERENCES "checkout_forms"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_link_products" ADD CONSTRAINT "checkout_link_products_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "checkout_links"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_link_products" ADD CONSTRAINT "checkout_link_products_product_id_fkey" FOREIGN KEY ("product_id") REFERENCES "checkout_products"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_emails" ADD CONSTRAINT "checkout_emails_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_emails" ADD CONSTRAINT "checkout_emails_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_emails" ADD CONSTRAINT "checkout_emails_form_id_fkey" FOREIGN KEY ("form_id") REFERENCES "checkout_forms"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "checkout_emails" ADD CONSTRAINT "checkout_emails_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "checkout_links"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

