-- Generated from libs/db/src/checkout/checkout-links.sql.ts by npm run sql:generate: do not edit.

-- checkout_link_payment_claim
-- params: $1 linkId uuid, $2 kind text, $3 paymentId uuid, $4 staleSeconds int4
-- columns: id text
UPDATE checkout_links l
   SET payment_kind = $2::text, payment_id = $3::uuid, payment_claimed_on = now(), updated_on = now()
 WHERE l.id = $1::uuid
   AND (l.payment_id IS NULL
        OR (l.payment_kind = 'charge' AND EXISTS (
              SELECT 1 FROM charges c
               WHERE c.id = l.payment_id AND c.status IN ('failed', 'error', 'canceled')))
        OR (l.payment_kind = 'subscription' AND EXISTS (
              SELECT 1 FROM subscriptions s
               WHERE s.id = l.payment_id AND s.status IN ('canceled', 'unconfirmed')))
        OR (l.payment_claimed_on < now() - make_interval(secs => $4::int4)
            AND NOT EXISTS (SELECT 1 FROM charges c WHERE c.id = l.payment_id)
            AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.id = l.payment_id)))
RETURNING l.id::text AS id;

-- checkout_link_payment_release
-- params: $1 linkId uuid, $2 paymentId uuid
-- columns: id text
UPDATE checkout_links
   SET payment_kind = NULL, payment_id = NULL, payment_claimed_on = NULL, updated_on = now()
 WHERE id = $1::uuid AND payment_id = $2::uuid
RETURNING id::text AS id;
