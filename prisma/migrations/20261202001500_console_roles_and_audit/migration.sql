-- The merchant console (issue 33): a role per merchant user (the users that exist become owners,
-- who may do everything they could before) and the audit log of the console's writes, each row
-- inserted in the transaction of the write it records.
-- CreateEnum
CREATE TYPE "merchant_user_role" AS ENUM ('owner', 'admin', 'developer', 'viewer');

-- AlterTable
ALTER TABLE "merchant_users" ADD COLUMN     "role" "merchant_user_role" NOT NULL DEFAULT 'owner';

-- CreateTable
CREATE TABLE "console_audit_events" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "merchant_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" UUID NOT NULL,
    "mode" "processing_mode" NOT NULL,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "ip" TEXT NOT NULL,
    "user_agent" TEXT,
    "created_on" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "console_audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "console_audit_events_merchant_id_created_on_id_idx" ON "console_audit_events"("merchant_id", "created_on" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "console_audit_events" ADD CONSTRAINT "console_audit_events_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "console_audit_events" ADD CONSTRAINT "console_audit_events_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "merchant_users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
