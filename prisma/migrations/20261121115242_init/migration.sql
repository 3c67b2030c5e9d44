-- CreateEnum
CREATE TYPE "processing_mode" AS ENUM ('test', 'live', 'live_test');

-- CreateEnum
CREATE TYPE "app_token_scope" AS ENUM ('merchant', 'store');

-- CreateEnum
CREATE TYPE "token_type" AS ENUM ('one_time', 'subscription', 'recurring');

-- CreateEnum
CREATE TYPE "payment_type" AS ENUM ('card', 'qr_scan', 'konbini', 'apple_pay', 'paidy', 'qr_merchant', 'online', 'bank_transfer');

-- CreateEnum
CREATE TYPE "usage_limit" AS ENUM ('daily', 'weekly', 'monthly', 'annually');

-- CreateEnum
CREATE TYPE "charge_status" AS ENUM ('pending', 'successful', 'failed', 'error', 'canceled', 'awaiting', 'authorized');

-- CreateEnum
CREATE TYPE "capture_status" AS ENUM ('authorized', 'captured', 'not_authorized');

-- CreateEnum
CREATE TYPE "operation_status" AS ENUM ('pending', 'successful', 'failed', 'error');

-- CreateEnum
CREATE TYPE "subscription_status" AS ENUM ('unverified', 'current', 'suspended', 'unpaid', 'canceled', 'unconfirmed', 'completed', 'authorized');

-- CreateEnum
CREATE TYPE "subscription_period" AS ENUM ('daily', 'weekly', 'biweekly', 'monthly', 'bimonthly', 'quarterly', 'semiannually', 'annually');

-- CreateEnum
CREATE TYPE "refund_reason" AS ENUM ('duplicate', 'fraud', 'customer_request', 'chargeback', 'chargeback_fee_exempt', 'chargeback_reverse', 'system_failure');

-- CreateEnum
CREATE TYPE "delivery_status" AS ENUM ('pending', 'delivered', 'failed');

-- CreateEnum
CREATE TYPE "idempotency_state" AS ENUM ('in_flight', 'completed');

-- CreateTable
CREATE TABLE "merchants" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "verified" BOOLEAN NOT NULL DEFAULT false,
    "pci_dss_compliant" BOOLEAN NOT NULL DEFAULT false,
    "configuration" JSONB NOT NULL DEFAULT '{}',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merchants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stores" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "configuration" JSONB NOT NULL DEFAULT '{}',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stores_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "app_tokens" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID,
    "scope" "app_token_scope" NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "domains" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "secret_hash" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "revoked_on" TIMESTAMPTZ(3),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "app_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "transaction_tokens" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "type" "token_type" NOT NULL,
    "payment_type" "payment_type" NOT NULL,
    "email" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "usage_limit" "usage_limit",
    "confirmed" BOOLEAN,
    "previous_id" UUID,
    "data" JSONB NOT NULL DEFAULT '{}',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "used_count" INTEGER NOT NULL DEFAULT 0,
    "last_used_on" TIMESTAMPTZ(3),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "transaction_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "card_vault" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "transaction_token_id" UUID NOT NULL,
    "key_id" TEXT NOT NULL,
    "iv" BYTEA NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "auth_tag" BYTEA NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "card_vault_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "charges" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "transaction_token_id" UUID NOT NULL,
    "transaction_token_type" "token_type" NOT NULL,
    "subscription_id" UUID,
    "mode" "processing_mode" NOT NULL,
    "status" "charge_status" NOT NULL DEFAULT 'pending',
    "requested_amount" BIGINT NOT NULL,
    "requested_currency" CHAR(3) NOT NULL,
    "charged_amount" BIGINT,
    "charged_currency" CHAR(3),
    "capture" BOOLEAN NOT NULL DEFAULT true,
    "capture_at" TIMESTAMPTZ(3),
    "capture_status" "capture_status",
    "descriptor" TEXT,
    "only_direct_currency" BOOLEAN NOT NULL DEFAULT false,
    "error_code" INTEGER,
    "error_message" TEXT,
    "error_detail" TEXT,
    "processor_reference" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "charges_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "captures" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "charge_id" UUID NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "status" "operation_status" NOT NULL DEFAULT 'pending',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "captures_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscriptions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "transaction_token_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "status" "subscription_status" NOT NULL DEFAULT 'unverified',
    "period" "subscription_period" NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "initial_amount" BIGINT,
    "start_on" TIMESTAMPTZ(3),
    "zone_id" TEXT NOT NULL DEFAULT 'Asia/Tokyo',
    "preserve_end_of_month" BOOLEAN NOT NULL DEFAULT false,
    "installment_plan" JSONB,
    "payments_left" INTEGER,
    "amount_left" BIGINT,
    "descriptor" TEXT,
    "only_direct_currency" BOOLEAN NOT NULL DEFAULT false,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scheduled_payments" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "subscription_id" UUID NOT NULL,
    "due_date" TIMESTAMPTZ(3) NOT NULL,
    "zone_id" TEXT NOT NULL,
    "amount" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "is_paid" BOOLEAN NOT NULL DEFAULT false,
    "is_last_payment" BOOLEAN NOT NULL DEFAULT false,
    "charge_id" UUID,
    "claimed_on" TIMESTAMPTZ(3),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scheduled_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "refunds" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "charge_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "status" "operation_status" NOT NULL DEFAULT 'pending',
    "amount" BIGINT NOT NULL,
    "currency" CHAR(3) NOT NULL,
    "reason" "refund_reason",
    "message" TEXT,
    "error_code" INTEGER,
    "error_message" TEXT,
    "error_detail" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "refunds_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cancels" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID NOT NULL,
    "charge_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "status" "operation_status" NOT NULL DEFAULT 'pending',
    "error_code" INTEGER,
    "error_message" TEXT,
    "error_detail" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "cancels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhooks" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "store_id" UUID,
    "url" TEXT NOT NULL,
    "triggers" TEXT[],
    "auth_token" TEXT,
    "signing_secret" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "webhook_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "status" "delivery_status" NOT NULL DEFAULT 'pending',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_on" TIMESTAMPTZ(3),
    "delivered_on" TIMESTAMPTZ(3),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "delivery_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "status_code" INTEGER,
    "error_message" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "sequence" BIGSERIAL NOT NULL,
    "merchant_id" UUID NOT NULL,
    "store_id" UUID,
    "aggregate_type" TEXT NOT NULL,
    "aggregate_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "correlation_id" TEXT,
    "published_on" TIMESTAMPTZ(3),
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "credential_id" TEXT NOT NULL,
    "key" VARCHAR(255) NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "state" "idempotency_state" NOT NULL DEFAULT 'in_flight',
    "response_status" INTEGER,
    "response_body" TEXT,
    "response_headers" JSONB,
    "expires_on" TIMESTAMPTZ(3) NOT NULL,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "merchants_email_key" ON "merchants"("email");

-- CreateIndex
CREATE INDEX "stores_merchant_id_created_on_id_idx" ON "stores"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "stores_merchant_id_name_key" ON "stores"("merchant_id", "name");

-- CreateIndex
CREATE INDEX "app_tokens_merchant_id_created_on_id_idx" ON "app_tokens"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "app_tokens_store_id_created_on_id_idx" ON "app_tokens"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "transaction_tokens_merchant_id_created_on_id_idx" ON "transaction_tokens"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "transaction_tokens_store_id_created_on_id_idx" ON "transaction_tokens"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "card_vault_transaction_token_id_key" ON "card_vault"("transaction_token_id");

-- CreateIndex
CREATE INDEX "card_vault_fingerprint_idx" ON "card_vault"("fingerprint");

-- CreateIndex
CREATE INDEX "charges_merchant_id_created_on_id_idx" ON "charges"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "charges_store_id_created_on_id_idx" ON "charges"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "charges_transaction_token_id_created_on_idx" ON "charges"("transaction_token_id", "created_on" DESC);

-- CreateIndex
CREATE INDEX "charges_subscription_id_created_on_id_idx" ON "charges"("subscription_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "captures_charge_id_created_on_idx" ON "captures"("charge_id", "created_on" DESC);

-- CreateIndex
CREATE INDEX "subscriptions_merchant_id_created_on_id_idx" ON "subscriptions"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "subscriptions_store_id_created_on_id_idx" ON "subscriptions"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "scheduled_payments_charge_id_key" ON "scheduled_payments"("charge_id");

-- CreateIndex
CREATE INDEX "scheduled_payments_subscription_id_created_on_id_idx" ON "scheduled_payments"("subscription_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "scheduled_payments_is_paid_due_date_idx" ON "scheduled_payments"("is_paid", "due_date");

-- CreateIndex
CREATE UNIQUE INDEX "scheduled_payments_subscription_id_due_date_key" ON "scheduled_payments"("subscription_id", "due_date");

-- CreateIndex
CREATE INDEX "refunds_merchant_id_created_on_id_idx" ON "refunds"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "refunds_store_id_created_on_id_idx" ON "refunds"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "refunds_charge_id_created_on_id_idx" ON "refunds"("charge_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "cancels_merchant_id_created_on_id_idx" ON "cancels"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "cancels_store_id_created_on_id_idx" ON "cancels"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "cancels_charge_id_created_on_id_idx" ON "cancels"("charge_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhooks_merchant_id_created_on_id_idx" ON "webhooks"("merchant_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhooks_store_id_created_on_id_idx" ON "webhooks"("store_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_created_on_id_idx" ON "webhook_deliveries"("webhook_id", "created_on" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_on_idx" ON "webhook_deliveries"("status", "next_attempt_on");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_event_id_key" ON "webhook_deliveries"("webhook_id", "event_id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_attempts_delivery_id_number_key" ON "webhook_attempts"("delivery_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_events_sequence_key" ON "outbox_events"("sequence");

-- CreateIndex
CREATE INDEX "outbox_events_aggregate_id_created_on_idx" ON "outbox_events"("aggregate_id", "created_on" DESC);

-- CreateIndex
CREATE INDEX "outbox_events_published_on_sequence_idx" ON "outbox_events"("published_on", "sequence");

-- CreateIndex
CREATE INDEX "idempotency_records_expires_on_idx" ON "idempotency_records"("expires_on");

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_records_credential_id_key_key" ON "idempotency_records"("credential_id", "key");

-- AddForeignKey
ALTER TABLE "stores" ADD CONSTRAINT "stores_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "app_tokens" ADD CONSTRAINT "app_tokens_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "app_tokens" ADD CONSTRAINT "app_tokens_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transaction_tokens" ADD CONSTRAINT "transaction_tokens_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "transaction_tokens" ADD CONSTRAINT "transaction_tokens_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "card_vault" ADD CONSTRAINT "card_vault_transaction_token_id_fkey" FOREIGN KEY ("transaction_token_id") REFERENCES "transaction_tokens"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "charges" ADD CONSTRAINT "charges_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "charges" ADD CONSTRAINT "charges_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "charges" ADD CONSTRAINT "charges_transaction_token_id_fkey" FOREIGN KEY ("transaction_token_id") REFERENCES "transaction_tokens"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "charges" ADD CONSTRAINT "charges_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "captures" ADD CONSTRAINT "captures_charge_id_fkey" FOREIGN KEY ("charge_id") REFERENCES "charges"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_transaction_token_id_fkey" FOREIGN KEY ("transaction_token_id") REFERENCES "transaction_tokens"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scheduled_payments" ADD CONSTRAINT "scheduled_payments_subscription_id_fkey" FOREIGN KEY ("subscription_id") REFERENCES "subscriptions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scheduled_payments" ADD CONSTRAINT "scheduled_payments_charge_id_fkey" FOREIGN KEY ("charge_id") REFERENCES "charges"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_charge_id_fkey" FOREIGN KEY ("charge_id") REFERENCES "charges"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cancels" ADD CONSTRAINT "cancels_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cancels" ADD CONSTRAINT "cancels_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cancels" ADD CONSTRAINT "cancels_charge_id_fkey" FOREIGN KEY ("charge_id") REFERENCES "charges"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "stores"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "outbox_events"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;
