-- Webhook delivery (issue 14): the body a delivery sends on every try, a try's response snippet, why delivery turned a
-- webhook off and since when it fails, its mode, and its previous secret during a rotation. webhook_deliveries has had no writer before this migration,
-- so it is empty.
ALTER TABLE "webhook_deliveries" ADD COLUMN "body" TEXT NOT NULL;

ALTER TABLE "webhooks" ADD COLUMN "disabled_reason" TEXT;

-- Since when every try to the webhook failed: a webhook failing longer than the configured period is
-- turned off.
ALTER TABLE "webhooks" ADD COLUMN "failing_since" TIMESTAMPTZ(3);

-- The mode of the credential that created the webhook: a live webhook's URL rules are checked at
-- creation and again on every try, against the address connected to.
ALTER TABLE "webhooks" ADD COLUMN "mode" "processing_mode" NOT NULL DEFAULT 'test';

-- Secret rotation: the secret before the last rotation signs deliveries too until it expires.
ALTER TABLE "webhooks" ADD COLUMN "previous_signing_secret" TEXT,
ADD COLUMN "previous_secret_expires_on" TIMESTAMPTZ(3);

-- The first bytes of the receiver's answer to a try, for the delivery log.
ALTER TABLE "webhook_attempts" ADD COLUMN "response_snippet" TEXT;
