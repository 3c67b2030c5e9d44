-- The payment instructions mail of a bank-transfer or konbini charge made on a link page, one per
-- charge (the primary key: a retried or concurrent link payment cannot add a second), sent by
-- charge-service's mailer (docs/hosted-checkout.md, "Bank transfer and konbini").
-- CreateTable
CREATE TABLE "checkout_payment_mails" (
    "charge_id" UUID NOT NULL,
    "checkout_link_id" UUID NOT NULL,
    "lang" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "claimed_until" TIMESTAMPTZ(3),
    "sent_on" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkout_payment_mails_pkey" PRIMARY KEY ("charge_id")
);

-- The mailer's scan: the pending mails only, oldest first (Prisma cannot declare a partial index).
CREATE INDEX "checkout_payment_mails_pending_idx" ON "checkout_payment_mails" ("created_on") WHERE "status" = 'pending';
