-- Generated from libs/db/src/checkout/payment-mails.sql.ts by npm run sql:generate: do not edit.

-- checkout_payment_mail_record
-- params: $1 chargeId uuid, $2 linkId uuid, $3 lang text
-- columns: charge_id text
INSERT INTO checkout_payment_mails (charge_id, checkout_link_id, lang)
VALUES ($1::uuid, $2::uuid, $3::text)
ON CONFLICT (charge_id) DO NOTHING
RETURNING charge_id::text AS charge_id;

-- checkout_payment_mail_forget
-- params: $1 chargeId uuid
-- columns: charge_id text
DELETE FROM checkout_payment_mails WHERE charge_id = $1::uuid AND status = 'pending'
RETURNING charge_id::text AS charge_id;

-- checkout_payment_mails_claim_due
-- params: $1 limit int4, $2 claimSeconds int4
-- columns: charge_id text, lang text, attempts int4, merchant_id text, store_id text, status text, payment_type text, email text, amount int8, currency bpchar, expires_on timestamptz, issuer_token jsonb
WITH due AS (
  SELECT m.charge_id
    FROM checkout_payment_mails m
    JOIN charges c ON c.id = m.charge_id
   WHERE m.status = 'pending'
     AND (m.claimed_until IS NULL OR m.claimed_until < now())
     AND c.status <> 'pending'
   ORDER BY m.created_on
   LIMIT $1::int4
     FOR UPDATE OF m SKIP LOCKED)
UPDATE checkout_payment_mails m
   SET claimed_until = now() + make_interval(secs => $2::int4),
       attempts = m.attempts + 1, updated_on = now()
  FROM due, charges c, transaction_tokens t
 WHERE m.charge_id = due.charge_id AND c.id = m.charge_id AND t.id = c.transaction_token_id
RETURNING m.charge_id::text AS charge_id, m.lang, m.attempts, c.merchant_id::text AS merchant_id,
          c.store_id::text AS store_id, c.status::text AS status, t.payment_type::text AS payment_type,
          t.email, c.requested_amount AS amount, c.requested_currency AS currency, c.expires_on,
          c.issuer_token;

-- checkout_payment_mail_finish
-- params: $1 chargeId uuid, $2 status text
-- columns: charge_id text
UPDATE checkout_payment_mails
   SET status = $2::text, sent_on = CASE WHEN $2::text = 'sent' THEN now() END,
       claimed_until = NULL, last_error = NULL, updated_on = now()
 WHERE charge_id = $1::uuid AND status = 'pending'
RETURNING charge_id::text AS charge_id;

-- checkout_payment_mail_postpone
-- params: $1 chargeId uuid, $2 retrySeconds int4, $3 error text
-- columns: charge_id text
UPDATE checkout_payment_mails
   SET claimed_until = now() + make_interval(secs => $2::int4), last_error = $3::text,
       updated_on = now()
 WHERE charge_id = $1::uuid AND status = 'pending'
RETURNING charge_id::text AS charge_id;

-- checkout_payment_mails_skip_orphans
-- params: $1 seconds int4
-- columns: charge_id text
UPDATE checkout_payment_mails m
   SET status = 'skipped', updated_on = now()
 WHERE m.status = 'pending' AND m.created_on < now() - make_interval(secs => $1::int4)
   AND NOT EXISTS (SELECT 1 FROM charges c WHERE c.id = m.charge_id)
RETURNING m.charge_id::text AS charge_id;
