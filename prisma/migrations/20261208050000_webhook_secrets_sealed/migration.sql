-- Webhooks' secrets sealed with the vault's keys (decision 0086): the signing secret, the one before
-- the last rotation and the auth_token, as one AES-256-GCM value bound to the webhook's id. A
-- migration holds no key, so existing rows keep their plaintext until `webhooks:seal` seals them;
-- the plaintext columns are read only where the row has no sealed value.
ALTER TABLE "webhooks" ALTER COLUMN "signing_secret" DROP NOT NULL,
ADD COLUMN "secrets_key_id" TEXT,
ADD COLUMN "secrets_iv" BYTEA,
ADD COLUMN "secrets_ciphertext" BYTEA,
ADD COLUMN "secrets_auth_tag" BYTEA;

-- A row is either sealed, with no plaintext secret beside its ciphertext, or not yet, with its
-- signing secret in the clear (a trigger, not a CHECK constraint: Prisma 6.19's schema engine
-- crashes introspecting one, as the ledger's migration says). Only writes of these columns run it.
CREATE FUNCTION webhooks_secrets_check() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."secrets_key_id" IS NOT NULL THEN
    IF NEW."secrets_iv" IS NULL OR NEW."secrets_ciphertext" IS NULL OR NEW."secrets_auth_tag" IS NULL THEN
      RAISE EXCEPTION 'webhook %: sealed secrets need their iv, ciphertext and auth tag', NEW.id
        USING ERRCODE = 'check_violation';
    END IF;
    IF NEW."signing_secret" IS NOT NULL OR NEW."previous_signing_secret" IS NOT NULL
       OR NEW."auth_token" IS NOT NULL THEN
      RAISE EXCEPTION 'webhook %: a sealed webhook keeps no plaintext secret', NEW.id
        USING ERRCODE = 'check_violation';
    END IF;
  ELSIF NEW."secrets_iv" IS NOT NULL OR NEW."secrets_ciphertext" IS NOT NULL
     OR NEW."secrets_auth_tag" IS NOT NULL OR NEW."signing_secret" IS NULL THEN
    RAISE EXCEPTION 'webhook %: its secrets are neither sealed nor in plaintext', NEW.id
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER "webhooks_secrets_check"
  BEFORE INSERT OR UPDATE OF "secrets_key_id", "secrets_iv", "secrets_ciphertext", "secrets_auth_tag",
    "signing_secret", "previous_signing_secret", "auth_token"
  ON "webhooks" FOR EACH ROW EXECUTE FUNCTION webhooks_secrets_check();
